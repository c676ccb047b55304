import * as path from 'node:path';

/** Quotes one word for a POSIX shell: as it is when safe, else in single quotes. */
export function shellQuote(word: string): string {
  if (/^[\w@%+=:,./-]+$/.test(word)) return word;
  return `'${word.replace(/'/g, `'\\''`)}'`;
}

/** Splits the start of a shell command into words (plain, '…' and "…" with \ escapes); enough to recognise ours. */
export function shellWords(command: string): string[] {
  const words: string[] = [];
  let cur = '';
  let has = false;
  let i = 0;
  while (i < command.length) {
    const c = command[i]!;
    if (/\s/.test(c)) {
      if (has) words.push(cur);
      cur = '';
      has = false;
      i++;
    } else if (c === "'") {
      const end = command.indexOf("'", i + 1);
      if (end < 0) return [...words, cur + command.slice(i + 1)];
      cur += command.slice(i + 1, end);
      has = true;
      i = end + 1;
    } else if (c === '"') {
      i++;
      while (i < command.length && command[i] !== '"') {
        if (command[i] === '\\' && i + 1 < command.length) i++;
        cur += command[i];
        i++;
      }
      has = true;
      i++;
    } else if (c === '\\' && i + 1 < command.length) {
      cur += command[i + 1];
      has = true;
      i += 2;
    } else {
      cur += c;
      has = true;
      i++;
    }
  }
  if (has) words.push(cur);
  return words;
}

/** The launcher's file name: `handoff` on PATH, or the one the editor keeps (`handoff`, `handoff.cmd`). */
export const LAUNCHER_NAME = /^handoff(\.cmd)?$/i;

/**
 * True when `command` is exactly what set-up writes for `sub` (`hook`, `statusline`, `notify`): a
 * launcher named `handoff` (any folder), quoted the way set-up quotes it, then `sub` — for the
 * statusLine optionally `--chain '<their command>'`. A user's own command that merely starts the same
 * way (`handoff hook --output-dir x && say done`) is theirs and never touched.
 */
export function isHandoffCommand(command: unknown, sub: string): boolean {
  if (typeof command !== 'string') return false;
  const words = shellWords(command);
  const [exe, first] = words;
  if (!exe || !LAUNCHER_NAME.test(path.basename(exe.replace(/\\/g, '/'))) || first !== sub) return false;
  if (words.length === 2) return command === `${shellQuote(exe)} ${sub}`;
  if (sub === 'statusline' && words.length === 4 && words[2] === '--chain') return command === `${shellQuote(exe)} statusline --chain ${shellQuote(words[3]!)}`;
  return false;
}

/** The `--chain` argument of one of our statusLine commands, if it has one. */
export function chainedCommand(command: string): string | undefined {
  const words = shellWords(command);
  const at = words.indexOf('--chain');
  if (at >= 0) return words[at + 1];
  return words.find((w) => w.startsWith('--chain='))?.slice('--chain='.length);
}
