/**
 * Copilot CLI's instruction for the handoff: its `sessionStart` hook cannot hand text to the session
 * (docs.github.com "CLI hooks reference": sessionStart, output processed: no), so each session is told,
 * in the user-level `$COPILOT_HOME/copilot-instructions.md` it reads in every session, to ask the
 * handoff MCP server for the restart prompt. The instruction is a block of its own: appended to a file
 * of the user's after an empty line, taken out again by `--remove` (the file's bytes come back when that
 * is all set-up added; a file set-up made goes).
 */
import * as path from 'node:path';
import type { SetupPlan } from './plan';
import { backupFileOf } from './plan';

/** Copilot CLI's user-level instructions: `$COPILOT_HOME/copilot-instructions.md`, else `~/.copilot/…`. */
export function copilotInstructionsFileOf(o: { env: NodeJS.ProcessEnv; home: string }): string {
  return path.join(o.env['COPILOT_HOME'] || path.join(o.home, '.copilot'), 'copilot-instructions.md');
}

const BEGIN = '<!-- session-handoff: begin (handoff setup copilot --remove takes this out) -->';
const END = '<!-- session-handoff: end -->';

/** The block: ask the MCP server for the handoff at the start, write one before stopping. */
export const COPILOT_INSTRUCTIONS = [
  BEGIN,
  '## Session Handoff',
  '',
  'At the start of a session, call the `handoff_prompt` tool of the `handoff` MCP server with `for: "copilot"`.',
  'When it returns a restart prompt, take it as where the work stands: read what it says to read first, and',
  'take its next action unless the user asks for something else. When it says there is no handoff, go on as usual.',
  '',
  'Before you stop with work unfinished, call `handoff_generate` so that the next session can take over.',
  END,
  '',
].join('\n');

/** True when the text holds our block. */
export const hasCopilotInstructions = (text: string | null): boolean => text?.includes(BEGIN) ?? false;

/** The text with our block: the block alone for no file, else after the user's text and an empty line. */
export function withCopilotInstructions(text: string | null): string {
  if (text === null || text === '') return COPILOT_INSTRUCTIONS;
  if (text.includes(BEGIN)) return text;
  return `${text}${text.endsWith('\n') ? '' : '\n'}\n${COPILOT_INSTRUCTIONS}`;
}

/** Adds our block (the user's file kept in a backup first, on the first change only). */
export function copilotInstructionsPlan(file: string, text: string | null, backupExists: boolean): SetupPlan {
  const after = withCopilotInstructions(text);
  const change = after !== text;
  return {
    file,
    before: text,
    after,
    backupFile: backupFileOf(file),
    writeBackup: change && text !== null && !backupExists ? text : null,
    removeBackup: false,
    notes: change ? [`Copilot CLI reads ${file} in every session: it now asks the handoff MCP server for the handoff at the start (its sessionStart hook cannot hand text to the session, so no hook is written).`] : [],
  };
}

/** Takes our block out: the backup's bytes when that is all set-up added, the file gone when set-up made it. */
export function copilotInstructionsRemoval(file: string, text: string | null, backup: string | null): SetupPlan {
  const base = { file, before: text, backupFile: backupFileOf(file), writeBackup: null, notes: [] as string[] };
  if (text === null || !text.includes(BEGIN)) return { ...base, after: text, removeBackup: false };
  if (backup !== null && withCopilotInstructions(backup) === text) return { ...base, after: backup, removeBackup: true };
  const start = text.indexOf(BEGIN);
  const endAt = text.indexOf(END, start);
  const stop = endAt < 0 ? text.length : endAt + END.length + (text[endAt + END.length] === '\n' ? 1 : 0);
  let head = text.slice(0, start);
  if (head.endsWith('\n\n')) head = head.slice(0, -1);
  const after = head + text.slice(stop);
  if (after === '' && backup === null) return { ...base, after: null, removeBackup: false };
  return { ...base, after, removeBackup: false, notes: backup !== null ? [`${file} changed since set-up, so only the Session Handoff block was removed; the backup ${backupFileOf(file)} is kept.`] : [] };
}
