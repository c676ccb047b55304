import { createHash } from 'node:crypto';
import * as os from 'node:os';
import { stripControlDeep } from '../controlChars';
import type { GitClient } from '../gitPort';
import { safeSegment, serializePacket } from '../packet/build';
import { portableText, remoteKey } from '../packet/portable';
import { PacketSchema, type Packet } from '../packet/schema';
import { packetContentHash, writePacket } from '../packet/write';
import { redact, redactedJson, type Redacted } from '../redact';
import { withLock } from '../registry/lock';
import { renderMarkdown } from '../render/markdown';

/**
 * One self-contained file that carries a packet to another machine or a teammate: the packet (its next
 * action, closing words, questions, the human's words and the failure excerpts the restart prompt
 * quotes) and its markdown, redacted, with a digest of that content. The digest tells a changed or
 * damaged file; trusting what it says stays the receiver's decision after review (`--trust`).
 */

export const EXPORT_FORMAT = 'session-handoff-export';
/** The largest export read back: a packet is a few kilobytes; anything near this is not one. */
export const MAX_EXPORT_BYTES = 4 * 1024 * 1024;

export interface ExportFile {
  format: typeof EXPORT_FORMAT;
  version: 1;
  /** sha256 of the packet's `handoff.json` bytes, a NUL, then the markdown. */
  sha256: string;
  packet: Packet;
  markdown: string;
}

function digestOf(json: string, markdown: string): string {
  return createHash('sha256').update(json).update('\0').update(markdown).digest('hex');
}

/** The export of a packet: the file's text (redacted whole), its digest and its size in bytes. */
export function exportPacket(packet: Packet): { text: Redacted; sha256: string; bytes: number } {
  const json = serializePacket(packet);
  const parsed = PacketSchema.parse(JSON.parse(json));
  const markdown = redact(renderMarkdown(parsed));
  const sha256 = digestOf(json, markdown);
  const file: ExportFile = { format: EXPORT_FORMAT, version: 1, sha256, packet: parsed, markdown };
  const text = redactedJson(file, 2, '\n');
  return { text, sha256, bytes: Buffer.byteLength(text) };
}

export type ReadExport = { ok: true; packet: Packet; json: Redacted; sha256: string } | { ok: false; reason: string };

/**
 * Reads an export back, refusing (as a value, with the file named) anything that is not one, or whose
 * content no longer matches its digest: a field changed by hand, a damaged copy.
 */
export function readExport(text: string, file: string): ReadExport {
  if (Buffer.byteLength(text) > MAX_EXPORT_BYTES) return { ok: false, reason: `${file} is larger than ${MAX_EXPORT_BYTES / 1024 / 1024} MiB: not a handoff export.` };
  let raw: unknown;
  try {
    raw = JSON.parse(text);
  } catch (err) {
    return { ok: false, reason: `${file} is not valid JSON (${(err as Error).message}): not a handoff export.` };
  }
  const v = raw as Partial<ExportFile> | null;
  if (!v || typeof v !== 'object' || v.format !== EXPORT_FORMAT) return { ok: false, reason: `${file} is not a handoff export (no "format": "${EXPORT_FORMAT}").` };
  if (v.version !== 1) return { ok: false, reason: `${file} is a handoff export of version ${String(v.version)}; this version reads version 1.` };
  const parsed = PacketSchema.safeParse(v.packet);
  if (!parsed.success) {
    const issue = parsed.error.issues[0];
    return { ok: false, reason: `${file}: its packet is not valid (${issue ? `${issue.path.join('.') || 'packet'}: ${issue.message}` : 'schema'}).` };
  }
  // What would be written, cleaned as every packet is: a packet that carries anything else fails the digest.
  const packet = stripControlDeep(parsed.data);
  const json = serializePacket(packet);
  const markdown = typeof v.markdown === 'string' ? v.markdown : '';
  if (typeof v.sha256 !== 'string' || digestOf(json, markdown) !== v.sha256 || markdown !== redact(renderMarkdown(packet))) {
    return { ok: false, reason: `${file} was changed after it was exported (its content does not match its sha256 digest); not imported. Ask for the export again.` };
  }
  return { ok: true, packet, json, sha256: v.sha256 };
}

export type HeadRelation = 'same' | 'after' | 'before' | 'diverged' | 'unknown-commit' | 'unknown';

export interface CheckoutMatch {
  remote: 'same' | 'different' | 'unknown';
  branch: 'same' | 'different' | 'unknown';
  head: HeadRelation;
  /** Commits HEAD is after (or before) the packet's HEAD, when known. */
  commits?: number;
  /** The remote, branch and HEAD match (HEAD at or after the packet's): the packet belongs to this checkout. */
  matches: boolean;
  /** One plain sentence per fact, for people. */
  lines: string[];
}

const short = (sha: string | null | undefined): string => (sha ? sha.slice(0, 7) : 'none');
const plural = (n: number, what: string): string => `${n} ${what}${n === 1 ? '' : 's'}`;

/** How a packet from elsewhere matches this checkout: same remote? branch? HEAD at or after its HEAD? */
export async function matchCheckout(packet: Packet, git: GitClient): Promise<CheckoutMatch> {
  const lines: string[] = [];
  const [local, here] = await Promise.all([git.remoteUrl?.().catch(() => null) ?? Promise.resolve(null), git.head().catch(() => null)]);
  let remote: CheckoutMatch['remote'] = 'unknown';
  // A remote on a local disk is written with the home folder as `~` (portable): compare it both ways.
  const localForms = local ? [local, portableText(local, { repoRoot: null, home: os.homedir() })] : [];
  if (packet.remote && local) remote = localForms.some((l) => remoteKey(l) === remoteKey(packet.remote as string)) ? 'same' : 'different';
  if (remote === 'same') lines.push(`Remote: the same (${packet.remote}).`);
  else if (remote === 'different') lines.push(`Remote: DIFFERENT — the packet was written in a clone of ${packet.remote}, this checkout's remote is ${local}.`);
  else lines.push(`Remote: cannot be compared (${packet.remote ? 'this checkout has no remote' : 'the packet records none'}).`);

  let branch: CheckoutMatch['branch'] = 'unknown';
  if (packet.branch && here?.branch) branch = packet.branch === here.branch ? 'same' : 'different';
  if (branch === 'same') lines.push(`Branch: the same (${packet.branch}).`);
  else if (branch === 'different') lines.push(`Branch: DIFFERENT — the packet is for ${packet.branch}, this checkout is on ${here?.branch}.`);
  else lines.push(`Branch: cannot be compared (${packet.branch ? 'this checkout is on a detached HEAD' : 'the packet records none'}).`);

  let head: HeadRelation = 'unknown';
  let commits: number | undefined;
  const was = packet.head_commit;
  const now = here?.head ?? null;
  if (was && now) {
    if (was === now) head = 'same';
    else {
      const after = (await git.isAncestor?.(was, now).catch(() => null)) ?? null;
      const before = after ? false : ((await git.isAncestor?.(now, was).catch(() => null)) ?? null);
      head = after === null ? 'unknown-commit' : after ? 'after' : before ? 'before' : 'diverged';
      const n = head === 'after' ? await git.commitsBetween(was, now) : head === 'before' ? await git.commitsBetween(now, was) : null;
      if (n !== null && n !== undefined) commits = n;
    }
  }
  const n = commits === undefined ? '' : ` (${plural(commits, 'commit')})`;
  lines.push(
    {
      same: `HEAD: at the packet's HEAD ${short(was)}.`,
      after: `HEAD: after the packet's HEAD${n}: ${short(was)} → ${short(now)}; the packet is older than this checkout.`,
      before: `HEAD: OLDER than the packet's — this checkout is at ${short(now)}, the packet was made at ${short(was)}${n} later; pull first.`,
      diverged: `HEAD: DIVERGED — ${short(now)} and the packet's ${short(was)} are on different lines of history.`,
      'unknown-commit': `HEAD: the packet's commit ${short(was)} is not in this repository; fetch it first.`,
      unknown: `HEAD: cannot be compared (${was ? 'this repository has no commit' : 'the packet records no HEAD'}).`,
    }[head],
  );
  const matches = remote !== 'different' && branch === 'same' && (head === 'same' || head === 'after');
  return { remote, branch, head, ...(commits === undefined ? {} : { commits }), matches, lines };
}

/**
 * Writes an imported packet into the output dir under the output dir's lock, NOT as this machine's own:
 * it is shown for review, and instructs nobody until trusted. A folder already holding another packet of
 * that id (an earlier export of the same session) is left alone: the id gets a short content hash, as a
 * generated packet's does.
 */
export async function writeImported(outputDir: string, packet: Packet): Promise<{ packetDir: string; kind: 'written' | 'unchanged'; json: Redacted }> {
  let safe = { ...packet, packet_id: safeSegment(packet.packet_id) };
  return withLock(outputDir, async () => {
    let w = await writePacket(outputDir, safe, { keepOther: true, record: false });
    if (w.kind === 'taken') {
      safe = { ...safe, packet_id: `${safe.packet_id}-${packetContentHash(safe)}` };
      w = await writePacket(outputDir, safe, { keepOther: true, record: false });
      if (w.kind === 'taken') throw new Error(`${w.packetDir} already holds another packet; nothing imported`);
    }
    return { packetDir: w.packetDir, kind: w.kind, json: serializePacket(safe) };
  });
}
