import { startedAtIso } from '../artifacts/commands';
import { readRegular } from '../fsx';
import { z } from 'zod';
import { CLAUDE_COMPACT_MARGIN, round1 } from './claude';
import { CODEX_COMPACT_AT_PERCENT } from './codex';
import type { ContextResult } from './types';

/** The generic file any agent (or `handoff statusline`) writes into the workbench. */
export const GENERIC_USAGE_FILE = 'context_usage.json';

/** `context_usage.json`: extra fields are kept, not rejected. */
export const GenericUsageSchema = z
  .object({
    source: z.string().min(1),
    session_id: z.string().min(1),
    used_tokens: z.number().int().nonnegative(),
    context_window: z.number().int().positive(),
    updated_at: z.union([
      z.string().refine((s) => !Number.isNaN(Date.parse(s)), { message: 'not a date' }),
      z.number().nonnegative(),
    ]),
    model: z.string().optional(),
  })
  .passthrough();

export type GenericUsage = z.infer<typeof GenericUsageSchema>;

/** Where the agent named in `source` auto-compacts, in percent; 100 when it is not known to. */
export function compactAtPercentFor(agent: string, window: number): number {
  const a = agent.toLowerCase();
  if (a.startsWith('claude')) return round1(((window - CLAUDE_COMPACT_MARGIN) / window) * 100);
  if (a.startsWith('codex')) return CODEX_COMPACT_AT_PERCENT;
  return 100;
}


/**
 * Parses the text of a `context_usage.json`. Bad JSON or a bad field gives an unknown reading whose
 * reason names the file and the field — never a number.
 */
export function parseGenericUsage(text: string, file: string): ContextResult {
  let json: unknown;
  try {
    json = JSON.parse(text);
  } catch (err) {
    return { known: false, source: 'generic', reason: `${file}: not valid JSON (${(err as Error).message})`, file };
  }
  const parsed = GenericUsageSchema.safeParse(json);
  if (!parsed.success) {
    const issue = parsed.error.issues[0];
    const field = issue?.path.join('.') || '(root)';
    return { known: false, source: 'generic', reason: `${file}: field "${field}": ${issue?.message ?? 'invalid'}`, file };
  }
  const u = parsed.data;
  const at = startedAtIso(u.updated_at);
  if (!at) return { known: false, source: 'generic', reason: `${file}: field "updated_at": not a valid time`, file };
  return {
    known: true,
    source: 'generic',
    agent: u.source,
    sessionId: u.session_id,
    ...(u.model ? { model: u.model } : {}),
    usedTokens: u.used_tokens,
    windowTokens: u.context_window,
    percent: round1((u.used_tokens / u.context_window) * 100),
    compactAtPercent: compactAtPercentFor(u.source, u.context_window),
    at,
    file,
  };
}

/** Reads and parses a `context_usage.json`; a missing or unreadable file is an unknown reading. */
export async function readGenericUsage(file: string, root?: string): Promise<ContextResult> {
  // A few hundred bytes when written by an agent; a FIFO, device or symlink out of the folder is refused.
  const read = await readRegular(file, { root, maxBytes: 1024 * 1024 });
  if (!read.ok) {
    const why = read.refusal.kind === 'missing' ? 'ENOENT' : read.refusal.message;
    return { known: false, source: 'generic', reason: `cannot read ${file}: ${why}`, file };
  }
  return parseGenericUsage(read.bytes.toString('utf8'), file);
}

/** Builds the content of a `context_usage.json` (stable key order, trailing newline). */
export function formatGenericUsage(u: GenericUsage): string {
  return `${JSON.stringify(u, null, 2)}\n`;
}
