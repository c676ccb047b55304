import { promises as fs } from 'node:fs';
import * as path from 'node:path';
import { createHash } from 'node:crypto';
import { z } from 'zod';
import type { Risk } from './packet/schema';
import type { Diagnostic, Parsed } from './diagnostics';
import { stripControl } from './controlChars';
import { jsonErrorDetail, parseJsonLocated } from './artifacts/readJson';
import { atomicWrite, MAX_OWN_FILE_BYTES, readRegular } from './fsx';
import { redactedJson } from './redact';
import { gitDirOf, isVouched, vouch } from './registry/ownership';

/**
 * Risk acknowledgements: who accepted which risk, and when. They live in a sidecar file next to the
 * packet (`<packet dir>/acks.json`) so the packet itself stays byte-identical to what was generated;
 * the restart prompt and the views read both.
 */

export const ACKS_FILE = 'acks.json';

export const AckSchema = z.object({
  risk_id: z.string().min(1),
  /**
   * What exactly was accepted (see `riskKey`): while a risk with this key is open it stays
   * acknowledged, whatever happens to packets. Older acknowledgements lack it and apply by id to the
   * packet they were made for.
   */
  risk_key: z.string().min(1).optional(),
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
  const json = parseJsonLocated(text);
  if (!json.ok) return { ok: false, error: { file, line: json.line, message: `not valid JSON (${jsonErrorDetail({ message: json.message })})` } };
  const r = AckFileSchema.safeParse(json.value);
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
 * Records an acknowledgement a person made here (atomic read-modify-write), and vouches for it (see
 * `vouchedAcks`): only acknowledgements made through this on this machine by this user count.
 * Acknowledging a risk twice keeps the first record: who accepted it first is what matters. A corrupt
 * sidecar is refused, not overwritten.
 */
export async function writeAck(packetDir: string, ack: Ack): Promise<Parsed<AckFile>> {
  // Only a record that counts makes this one a repeat: one of unknown origin never stands in for it.
  const r = await appendAck(packetDir, ack, (acks) => vouchedAcks(packetDir, acks));
  if (r.ok) {
    // The record as it reads back (redacted, cleaned) is what is vouched for.
    const back = await readAcks(packetDir);
    const mine = back.ok ? back.value.acks.filter((a) => sameRisk(a, ack)).at(-1) : undefined;
    if (mine) await vouch(packetDir, 'ack', ackDigest(mine));
  }
  return r;
}

const sameRisk = (a: Ack, b: Ack): boolean => a.risk_id === b.risk_id && a.risk_key === b.risk_key;

/**
 * Appends an acknowledgement to a sidecar as it is, vouching for nothing (moving records keeps their
 * standing); skipped when one of `existing(acks)` is for the same risk (id and, where recorded, key).
 */
async function appendAck(packetDir: string, ack: Ack, existing: (acks: Ack[]) => Ack[] | Promise<Ack[]> = (acks) => acks): Promise<Parsed<AckFile>> {
  const current = await readAcks(packetDir);
  if (!current.ok) return current;
  // A changed risk (another key) is acknowledged anew.
  if ((await existing(current.value.acks)).some((a) => sameRisk(a, ack))) return current;
  const next: AckFile = { schema_version: 1, acks: [...current.value.acks, AckSchema.parse(ack)] };
  await atomicWrite(ackFilePath(packetDir), redactedJson(next, 2, '\n'), { root: path.dirname(packetDir) });
  return { ok: true, value: next };
}

/** What identifies one acknowledgement record for the ledger: every field of it. */
function ackDigest(ack: Ack): string {
  return createHash('sha256').update([ack.risk_id, ack.risk_key ?? '', ack.by, ack.at, ack.note ?? ''].join('\u0000')).digest('hex');
}

/**
 * The acknowledgements that count: in a git repository, only those this user made here (`writeAck`
 * vouched for them in the keyed ledger, see registry/ownership). A sidecar that came with a clone, a
 * copy or an archive is data of unknown origin: its records neither mark a risk acknowledged nor
 * carry their text anywhere. Outside a repository there is no ledger (and no clone): all count.
 */
export async function vouchedAcks(anchorDir: string, acks: readonly Ack[]): Promise<Ack[]> {
  if (!acks.length || !(await gitDirOf(anchorDir).catch(() => null))) return [...acks];
  const out: Ack[] = [];
  for (const a of acks) if (await isVouched(anchorDir, 'ack', ackDigest(a))) out.push(a);
  return out;
}

/**
 * The acknowledgements that apply: a packet's own sidecar, or — while there is no packet for the
 * branch + topic — those waiting in the output dir (generate folds them into the next packet it
 * writes). A corrupt sidecar is reported, never fatal.
 */
export async function readPacketAcks(outputDir: string, packetDir: string | null): Promise<{ acks: Ack[]; diagnostics: Diagnostic[] }> {
  const dir = packetDir ?? outputDir;
  const r = await readAcks(dir);
  return r.ok ? { acks: await vouchedAcks(dir, r.value.acks), diagnostics: [] } : { acks: [], diagnostics: [r.error] };
}

/**
 * The identity of a risk as a person accepted it: its id, severity and text. The same finding in a
 * later packet (or live) has the same key; a risk whose text or severity changed is a new risk.
 */
export function riskKey(risk: Pick<Risk, 'id' | 'severity' | 'detail'>): string {
  return createHash('sha256').update(`${risk.id}\u0000${risk.severity}\u0000${risk.detail}`).digest('hex').slice(0, 16);
}

/**
 * The acknowledgements that apply to `risks`, one per risk (with the risk's own id): an ack in the
 * packet's own sidecar (or, without a packet, the output dir's) applies by id; an ack with a
 * `risk_key` anywhere in the output dir — an archived or superseded packet's sidecar included —
 * applies to a risk with the same key. So archiving or regenerating never drops an acknowledgement
 * of a risk that is still open unchanged. Unreadable sidecars are reported, never fatal.
 */
export async function acksForRisks(
  outputDir: string,
  packetDir: string | null,
  risks: readonly Pick<Risk, 'id' | 'severity' | 'detail'>[],
): Promise<{ acks: Ack[]; diagnostics: Diagnostic[] }> {
  const own = await readPacketAcks(outputDir, packetDir);
  const diagnostics = [...own.diagnostics];
  const byKey = new Map<string, Ack>();
  const dirs = [outputDir, ...(await packetDirs(outputDir))].filter((d) => d !== (packetDir ?? outputDir));
  for (const dir of dirs) {
    const r = await readAcks(dir);
    if (!r.ok) {
      diagnostics.push(r.error);
      continue;
    }
    for (const a of await vouchedAcks(dir, r.value.acks)) if (a.risk_key && !byKey.has(a.risk_key)) byKey.set(a.risk_key, a);
  }
  const out: Ack[] = [];
  for (const risk of risks) {
    const key = riskKey(risk);
    // An own ack made for another version of the risk (its key differs) no longer applies.
    const mine = own.acks.find((a) => a.risk_id === risk.id && (!a.risk_key || a.risk_key === key));
    const ack = mine ?? byKey.get(key);
    if (ack && !out.some((a) => a.risk_id === risk.id)) out.push({ ...ack, risk_id: risk.id });
  }
  return { acks: out, diagnostics };
}

/** The packet folders of an output dir (each may hold an acks.json). */
async function packetDirs(outputDir: string): Promise<string[]> {
  try {
    const entries = await fs.readdir(outputDir, { withFileTypes: true });
    return entries.filter((e) => e.isDirectory()).map((e) => path.join(outputDir, e.name)).sort();
  } catch {
    return [];
  }
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
    const r = await appendAck(packetDir, ack);
    if (!r.ok) return;
  }
  await fs.rm(ackFilePath(outputDir), { force: true });
}
