import { z } from 'zod';
import { claudeWindow } from './claude';
import type { GenericUsage } from './generic';

const count = z.number().nonnegative().nullish();

/**
 * The JSON Claude Code pipes into a statusLine command. Every field may be missing or null (before the
 * first call there is no usage yet); unknown fields are kept.
 */
export const StatuslineInputSchema = z
  .object({
    session_id: z.string().nullish(),
    transcript_path: z.string().nullish(),
    cwd: z.string().nullish(),
    workspace: z.object({ current_dir: z.string().nullish(), project_dir: z.string().nullish() }).passthrough().nullish(),
    model: z.object({ id: z.string().nullish(), display_name: z.string().nullish() }).passthrough().nullish(),
    context_window: z
      .object({
        context_window_size: z.number().positive().nullish(),
        used_percentage: z.number().min(0).max(100).nullish(),
        current_usage: z
          .object({
            input_tokens: count,
            cache_creation_input_tokens: count,
            cache_read_input_tokens: count,
            output_tokens: count,
          })
          .passthrough()
          .nullish(),
      })
      .passthrough()
      .nullish(),
  })
  .passthrough();

export type StatuslineInput = z.infer<typeof StatuslineInputSchema>;

export type StatuslineParse = { ok: true; input: StatuslineInput; dir: string } | { ok: false; reason: string };

/** Parses stdin; the folder is the project dir, else `cwd`, else `workspace.current_dir`. */
export function parseStatuslineInput(text: string): StatuslineParse {
  if (!text.trim()) return { ok: false, reason: 'no statusLine input on stdin' };
  let json: unknown;
  try {
    json = JSON.parse(text);
  } catch {
    return { ok: false, reason: 'statusLine input is not JSON' };
  }
  const parsed = StatuslineInputSchema.safeParse(json);
  if (!parsed.success) {
    const issue = parsed.error.issues[0];
    return { ok: false, reason: `statusLine input: field "${issue?.path.join('.') || '(root)'}": ${issue?.message ?? 'invalid'}` };
  }
  const input = parsed.data;
  const dir = input.workspace?.project_dir || input.cwd || input.workspace?.current_dir;
  if (!dir) return { ok: false, reason: 'statusLine input has no cwd' };
  return { ok: true, input, dir };
}

/**
 * The usage the statusLine JSON itself carries, as a `context_usage.json` record, or undefined when it
 * carries none (then the caller reads `transcript_path`). `current_usage` beats `used_percentage`.
 */
export function usageFromStatusline(input: StatuslineInput, now: Date): GenericUsage | undefined {
  const cw = input.context_window;
  const u = cw?.current_usage;
  const model = input.model?.id ?? undefined;
  let used: number | undefined;
  if (u) used = (u.input_tokens ?? 0) + (u.cache_creation_input_tokens ?? 0) + (u.cache_read_input_tokens ?? 0);
  const window = cw?.context_window_size ?? (used !== undefined ? claudeWindow(model, used) : undefined);
  if (used === undefined && typeof cw?.used_percentage === 'number' && window) used = Math.round((cw.used_percentage / 100) * window);
  if (used === undefined || !window || !input.session_id) return undefined;
  return {
    source: 'claude',
    session_id: input.session_id,
    used_tokens: Math.round(used),
    context_window: Math.round(window),
    updated_at: now.toISOString(),
    ...(model ? { model } : {}),
  };
}
