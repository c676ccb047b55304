import type { CommandSpec } from './types';

/** The overview printed by `handoff --help`. */
export function overviewHelp(commands: readonly CommandSpec[]): string {
  const width = Math.max(...commands.map((c) => c.name.length), 4);
  return [
    'handoff — hand off AI-agent coding sessions: generate, show and restart from handoff packets',
    '',
    'Usage: handoff <command> [options]',
    '',
    'Commands:',
    ...commands.map((c) => `  ${c.name.padEnd(width)}  ${c.summary}`),
    `  ${'help'.padEnd(width)}  show help for a command (handoff help <command>)`,
    '',
    'Exit codes: 0 done, 1 refused (e.g. no next action recorded), 2 bad usage or unreadable input.',
    '',
  ].join('\n');
}

/** The help of one command: usage, summary and its flags. */
export function commandHelp(c: CommandSpec): string {
  const flags = c.flags.map((f) => {
    const left = `--${f.name}${f.type === 'boolean' ? '' : ` ${f.placeholder ?? 'VALUE'}`}`;
    return `  ${left.padEnd(22)}  ${f.help}`;
  });
  return [`Usage: handoff ${c.usage}`, '', c.summary, ...(flags.length ? ['', 'Options:', ...flags] : []), ''].join('\n');
}
