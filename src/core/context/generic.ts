import { jsonErrorDetail, parseJsonLocated } from '../artifacts/readJson';
import { readRegular } from '../fsx';
import { z } from 'zod';
import type { ContextResult } from './types';
import { usageReading } from './usage';

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

/**
 * Parses the text of a `context_usage.json`. Bad JSON or a bad field gives an unknown reading whose
 * reason names the file and the field — never a number.
 */
export function parseGenericUsage(text: string, file: string): ContextResult {
  const json = parseJsonLocated(text);
  if (!json.ok) return { known: false, source: 'generic', reason: `${file}: not valid JSON (${jsonErrorDetail(json)})`, file };
  const parsed = GenericUsageSchema.safeParse(json.value);
  if (!parsed.success) {
    // A failed parse always has at least one issue.
    const issue = parsed.error.issues[0]!;
    const field = issue.path.join('.') || '(root)';
    return { known: false, source: 'generic', reason: `${file}: field "${field}": ${issue.message}`, file };
  }
  return usageReading(parsed.data, file);
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
