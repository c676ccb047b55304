import { promises as fs } from 'node:fs';
import * as path from 'node:path';
import { z } from 'zod';
import type { Diagnostic, Parsed } from './diagnostics';
import { stripControl } from './controlChars';
import { atomicWrite, MAX_OWN_FILE_BYTES, readRegular } from './fsx';
import { redactedJson } from './redact';

/**
 * Risk acknowledgements: who accepted which risk, and when. They live in a sidecar file next to the
 * packet (`<packet dir>/acks.json`) so the packet itself stays byte-identical to what was generated;
 * the restart prompt and the views read both.
 */

export const ACKS_FILE = 'acks.json';

export const AckSchema = z.object({
  risk_id: z.string().min(1),
  by: z.string().min(1),
  /** ISO time of the acknowledgement. */
  at: z.string().min(1),
  note: z.string().optional(),
});
export type Ack = z.infer<typeof AckSchema>;

export const AckFileSchema = z.object({
  schema_version: z.literal(1),
  acks: z.array(AckSchema),
});
export type AckFile = z.infer<typeof AckFileSchema>;

/** The sidecar path for a packet folder. */
export function ackFilePath(packetDir: string): string {
  return path.join(packetDir, ACKS_FILE);
}

/** Parses sidecar text; a bad file is a located diagnostic, never an exception. */
export function parseAcks(text: string, file: string): Parsed<AckFile> {
  let json: unknown;
  try {
    json = JSON.parse(text);
  } catch (err) {
    return { ok: false, error: { file, message: `not valid JSON (${(err as Error).message})` } };
  }
  const r = AckFileSchema.safeParse(json);
  if (!r.success) {
    const issue = r.error.issues[0];
    return { ok: false, error: { file, message: `${issue?.path.join('.') || 'file'}: ${issue?.message ?? 'invalid'}` } };
  }
  return { ok: true, value: r.data };
}

/** Reads the acknowledgements of a packet folder; a missing sidecar is an empty list. */
export async function readAcks(packetDir: string): Promise<Parsed<AckFile>> {
  const file = ackFilePath(packetDir);
  const read = await readRegular(file, { root: packetDir, maxBytes: MAX_OWN_FILE_BYTES });
  if (!read.ok) {
    if (read.refusal.kind === 'missing') return { ok: true, value: { schema_version: 1, acks: [] } };
    return { ok: false, error: { file, message: read.refusal.message } };
  }
  return parseAcks(stripControl(read.bytes.toString('utf8')), file);
}

/**
 * Records an acknowledgement (atomic read-modify-write). Acknowledging a risk twice keeps the first
 * record: who accepted it first is what matters. A corrupt sidecar is refused, not overwritten.
 */
export async function writeAck(packetDir: string, ack: Ack): Promise<Parsed<AckFile>> {
  const current = await readAcks(packetDir);
  if (!current.ok) return current;
  if (current.value.acks.some((a) => a.risk_id === ack.risk_id)) return current;
  const next: AckFile = { schema_version: 1, acks: [...current.value.acks, AckSchema.parse(ack)] };
  await atomicWrite(ackFilePath(packetDir), redactedJson(next, 2, '\n'));
  return { ok: true, value: next };
}

/**
 * The acknowledgements that apply: a packet's own sidecar, or — while there is no packet for the
 * branch + topic — those waiting in the output dir (generate folds them into the next packet it
 * writes). A corrupt sidecar is reported, never fatal.
 */
export async function readPacketAcks(outputDir: string, packetDir: string | null): Promise<{ acks: Ack[]; diagnostics: Diagnostic[] }> {
  const r = await readAcks(packetDir ?? outputDir);
  return r.ok ? { acks: r.value.acks, diagnostics: [] } : { acks: [], diagnostics: [r.error] };
}

/**
 * Moves the acknowledgements waiting in the output dir (made before this packet existed) into the
 * packet's sidecar, so they apply to the packet they were made for and not to every later one.
 * Call under the output dir's lock. A corrupt waiting file is left where it is.
 */
export async function foldPendingAcks(outputDir: string, packetDir: string): Promise<void> {
  const pending = await readAcks(outputDir);
  if (!pending.ok || pending.value.acks.length === 0) return;
  for (const ack of pending.value.acks) {
    const r = await writeAck(packetDir, ack);
    if (!r.ok) return;
  }
  await fs.rm(ackFilePath(outputDir), { force: true });
}
