import { claudeWindow } from './claude';
import type { GenericUsage } from './usage';

// Checked by hand, not with the schema library: Claude Code runs the statusline after every message,
// and loading the library costs more than the whole reading.

type Maybe<T> = T | null | undefined;

/**
 * The JSON Claude Code pipes into a statusLine command. Every field may be missing or null (before the
 * first call there is no usage yet); unknown fields are kept.
 */
export interface StatuslineInput {
  session_id?: Maybe<string>;
  transcript_path?: Maybe<string>;
  cwd?: Maybe<string>;
  workspace?: Maybe<{ current_dir?: Maybe<string>; project_dir?: Maybe<string>; [k: string]: unknown }>;
  model?: Maybe<{ id?: Maybe<string>; display_name?: Maybe<string>; [k: string]: unknown }>;
  context_window?: Maybe<{
    context_window_size?: Maybe<number>;
    used_percentage?: Maybe<number>;
    current_usage?: Maybe<{
      input_tokens?: Maybe<number>;
      cache_creation_input_tokens?: Maybe<number>;
      cache_read_input_tokens?: Maybe<number>;
      output_tokens?: Maybe<number>;
      [k: string]: unknown;
    }>;
    [k: string]: unknown;
  }>;
  [k: string]: unknown;
}

type Check = (v: unknown) => string | null;

const typeName = (v: unknown): string => (v === null ? 'null' : Array.isArray(v) ? 'array' : typeof v);
const isObject = (v: unknown): v is Record<string, unknown> => typeof v === 'object' && v !== null && !Array.isArray(v);
const str: Check = (v) => (typeof v === 'string' ? null : `Expected string, received ${typeName(v)}`);
const num = (ok: (n: number) => boolean, rule: string): Check => (v) =>
  typeof v !== 'number' || Number.isNaN(v) ? `Expected number, received ${typeName(v)}` : ok(v) ? null : rule;
const count = num((n) => n >= 0, 'Number must be greater than or equal to 0');
const obj: Check = (v) => (isObject(v) ? null : `Expected object, received ${typeName(v)}`);

/** Each checked field: its path and its rule; missing and null always pass. */
const FIELDS: [string[], Check][] = [
  [['session_id'], str],
  [['transcript_path'], str],
  [['cwd'], str],
  [['workspace'], obj],
  [['workspace', 'current_dir'], str],
  [['workspace', 'project_dir'], str],
  [['model'], obj],
  [['model', 'id'], str],
  [['model', 'display_name'], str],
  [['context_window'], obj],
  [['context_window', 'context_window_size'], num((n) => n > 0, 'Number must be greater than 0')],
  [['context_window', 'used_percentage'], num((n) => n >= 0 && n <= 100, 'Number must be from 0 to 100')],
  [['context_window', 'current_usage'], obj],
  ...(['input_tokens', 'cache_creation_input_tokens', 'cache_read_input_tokens', 'output_tokens'] as const).map(
    (k): [string[], Check] => [['context_window', 'current_usage', k], count],
  ),
];

/** The first field that breaks its rule, as `field "a.b": why`, or null when the input is valid. */
function firstProblem(root: unknown): string | null {
  if (!isObject(root)) return `field "(root)": Expected object, received ${typeName(root)}`;
  for (const [where, check] of FIELDS) {
    let v: unknown = root;
    for (const key of where) v = isObject(v) ? v[key] : undefined;
    if (v === undefined || v === null) continue;
    const problem = check(v);
    if (problem) return `field "${where.join('.')}": ${problem}`;
  }
  return null;
}

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
  const problem = firstProblem(json);
  if (problem) return { ok: false, reason: `statusLine input: ${problem}` };
  const input = json as StatuslineInput;
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
