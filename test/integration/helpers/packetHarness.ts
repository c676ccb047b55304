// Helpers for the in-host tests of the handoff panel and the packet commands.
import { execFileSync } from 'node:child_process';
import { promises as fs } from 'node:fs';
import path from 'node:path';
import * as vscode from 'vscode';
import type { PacketCommands } from '../../../src/ui/commands/registerPacketCommands';
import type { Packet } from '../../../src/core/packet/schema';
import { inHostEnv } from './testEnv';

const EXTENSION_ID = 'session-handoff.session-handoff';

/** The packet commands' handle, from the activated extension's exports. */
export async function packetCommands(): Promise<PacketCommands> {
  const ext = vscode.extensions.getExtension<{ packetCommands?: PacketCommands }>(EXTENSION_ID);
  if (!ext) throw new Error(`${EXTENSION_ID} is not loaded`);
  const api = await ext.activate();
  if (!api?.packetCommands) throw new Error('activate() does not return { packetCommands }');
  return api.packetCommands;
}

/** The default output dir of the test workspace. */
export function outputDir(): string {
  return path.join(inHostEnv().workspace, 'outputs', 'handoff');
}

/** Reads a written packet back from disk. */
export async function readPacket(packetId: string): Promise<Packet> {
  return JSON.parse(await fs.readFile(path.join(outputDir(), packetId, 'handoff.json'), 'utf8')) as Packet;
}

/** Runs git in the test workspace. */
export function git(...args: string[]): string {
  return execFileSync('git', args, { cwd: inHostEnv().workspace, encoding: 'utf8' });
}

/**
 * Generates a packet through the real command, accepting the dirty-workbench modal at the edge.
 * @returns the command's result
 */
export async function generateAccepting(): Promise<{ kind: string; packetId?: string }> {
  const api = await packetCommands();
  const restore = api.overrideConfirmDirty(async () => 'generateAnyway');
  try {
    const r = await vscode.commands.executeCommand<{ kind: string; packetId?: string }>('sessionHandoff.generateHandoff');
    if (!r) throw new Error('generateHandoff returned nothing (it failed: see the log)');
    return r;
  } finally {
    restore.dispose();
  }
}

/** Removes every packet the tests wrote, so later suites see the workspace as the harness made it. */
export async function removeOutputs(): Promise<void> {
  await fs.rm(path.join(inHostEnv().workspace, 'outputs'), { recursive: true, force: true });
}
