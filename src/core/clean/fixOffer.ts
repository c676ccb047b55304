import type { CleanFinding } from './types';

/** Tools whose invocation a fix may offer to run; any other command is only offered to copy. */
const TOOLS = new Set(['git', 'npm', 'pnpm', 'yarn', 'npx', 'pytest', 'python', 'python3', 'go', 'cargo', 'make', 'handoff']);

/** A part the user fills in before running (`<why>`, `<branch>`): words, spaces and dashes in angle brackets. */
const PLACEHOLDER = /<[\w -]+>/;

/**
 * Anything that makes a shell do more than run one program: separators, pipes, redirections,
 * substitutions, subshells, background jobs, history expansion, escapes and line breaks.
 */
const SHELL_OPERATORS = /[;&|<>`$(){}!\\\n\r]/;

/** How Apply Fix may offer one command: run it, type it for the user to complete, or copy it. */
export interface OfferedCommand {
  command: string;
  how: 'run' | 'type' | 'copy';
}

export type FixOffer =
  /** Temporary files, removed only after a confirmation. */
  | { kind: 'delete-temp-files'; paths: string[] }
  /** Commands, each shown with its exact text before anything runs. */
  | { kind: 'commands'; commands: OfferedCommand[] }
  /** A sentence to read (and copy). */
  | { kind: 'advice'; text: string };

/**
 * Whether a command line is one program with its arguments, no shell operators (placeholders aside),
 * starting with a known tool. Commands can come from agent-written files: this is the gate before
 * anything is offered to run.
 */
export function offerFor(command: string): OfferedCommand {
  const trimmed = command.trim();
  const placeholder = PLACEHOLDER.test(trimmed);
  const bare = trimmed.replace(new RegExp(PLACEHOLDER.source, 'g'), 'x');
  // The first word (split always yields one, '' for an empty command, which is no tool).
  const tool = bare.split(/\s/)[0] as string;
  const simple = !SHELL_OPERATORS.test(bare) && TOOLS.has(tool);
  return { command: trimmed, how: !simple ? 'copy' : placeholder ? 'type' : 'run' };
}

/** What Apply Fix offers for a finding, decided on its kind and structured data, never on its text. */
export function fixOffer(finding: CleanFinding): FixOffer {
  if (finding.kind === 'temp-files' && finding.paths?.length) return { kind: 'delete-temp-files', paths: [...finding.paths] };
  const commands = (finding.commands ?? []).filter((c) => c.trim()).map(offerFor);
  return commands.length ? { kind: 'commands', commands } : { kind: 'advice', text: finding.fix };
}
