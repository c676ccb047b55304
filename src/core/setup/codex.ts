import type { PlanResult } from './plan';
import { backupFileOf, connectPlan } from './plan';

/** The comment line above our `notify` entry: how a person (and `--remove`) recognises it. */
export const CODEX_MARKER = '# Session Handoff: regenerates the handoff after each turn past the wrap-up threshold (remove: handoff setup codex --remove)';

/** A TOML basic string; JSON's escapes are valid TOML escapes. */
const tomlString = (s: string): string => JSON.stringify(s);

/** The top-level part of a TOML file: the lines before its first table header. */
function topLevel(lines: string[]): string[] {
  const end = lines.findIndex((l) => /^\s*\[/.test(l));
  return end < 0 ? lines : lines.slice(0, end);
}

/** Our two lines in a config, as their index, or -1. */
function ourBlock(lines: string[]): number {
  return lines.findIndex((l, i) => l.trim() === CODEX_MARKER && /^\s*notify\s*=/.test(lines[i + 1] ?? ''));
}

export interface CodexSetupInput {
  /** `~/.codex/config.toml` or `$CODEX_HOME/config.toml`. */
  file: string;
  text: string | null;
  /** The program and its arguments, e.g. `["handoff", "notify"]` or the editor's launcher. Not run through a shell. */
  argv: string[];
  backupExists: boolean;
}

/**
 * Adds Codex CLI's one hook, a top-level `notify` program, without a TOML library: two lines at the
 * top of the file (always the top-level table, before any `[section]`). A `notify` that is not ours is
 * never replaced — Codex takes only one — so that case is refused with what to do instead.
 */
export function planCodexSetup(input: CodexSetupInput): PlanResult {
  const text = input.text ?? '';
  const lines = text.split('\n');
  const entry = `notify = [${input.argv.map(tomlString).join(', ')}]`;
  const at = ourBlock(lines);
  let after: string;
  if (at >= 0) {
    lines[at + 1] = entry;
    after = lines.join('\n');
  } else {
    const other = topLevel(lines).find((l) => /^\s*notify\s*=/.test(l));
    if (other !== undefined) {
      return {
        ok: false,
        message: `${input.file} already has a notify program (${other.trim()}); Codex runs only one, so it was left as it is. Call \`${input.argv.join(' ')} '<payload>'\` from your program instead. Nothing was written.`,
      };
    }
    after = `${CODEX_MARKER}\n${entry}\n${text}`;
  }
  return connectPlan(input, after, [], 'Codex CLI is already connected; nothing to change.');
}

/** Takes our two lines out again; the file goes when set-up created it and nothing else was added. */
export function planCodexRemove(input: { file: string; text: string | null; backup: string | null }): PlanResult {
  const backupFile = backupFileOf(input.file);
  const none = { file: input.file, before: input.text, after: input.text, backupFile, writeBackup: null, removeBackup: false };
  if (input.text === null) return { ok: true, plan: { ...none, notes: ['There is no Codex CLI config to change.'] } };
  const lines = input.text.split('\n');
  const at = ourBlock(lines);
  if (at < 0) return { ok: true, plan: { ...none, notes: ['Session Handoff is not in this config; nothing to remove.'] } };
  lines.splice(at, 2);
  const result = lines.join('\n');
  const deleteFile = input.backup === null && result.trim() === '';
  const exact = deleteFile || input.backup === result;
  return {
    ok: true,
    plan: {
      ...none,
      after: deleteFile ? null : result,
      removeBackup: input.backup !== null && exact,
      notes: input.backup !== null && !exact ? [`Your config changed since set-up, so only Session Handoff's lines were removed; the backup ${backupFile} is kept.`] : [],
    },
  };
}
