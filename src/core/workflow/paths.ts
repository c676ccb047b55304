import * as path from 'node:path';
import type { HandoffOptions } from '../options';

/** The workbench dir: `options.workbenchDir` resolved against the workspace folder. */
export function workbenchDirOf(workspaceDir: string, options: Pick<HandoffOptions, 'workbenchDir'>): string {
  return path.resolve(workspaceDir, options.workbenchDir || '.');
}

/** The output dir: `options.outputDir` resolved against the workbench dir. */
export function outputDirOf(workspaceDir: string, options: Pick<HandoffOptions, 'workbenchDir' | 'outputDir'>): string {
  return path.resolve(workbenchDirOf(workspaceDir, options), options.outputDir || 'outputs/handoff');
}

/** A packet's folder inside the output dir. */
export function packetDirOf(outputDir: string, packetId: string): string {
  return path.join(outputDir, packetId);
}
