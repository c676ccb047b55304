/**
 * Commands that only look: their exit code is an answer (a file is missing, a search found nothing,
 * two files differ), never a change to undo or a failure to fix. Deterministic text rules.
 */

/** Programs that read and never write (a redirection to a file makes any of them a writer). */
const READERS = new Set([
  'cat', 'bat', 'head', 'tail', 'less', 'more', 'wc', 'ls', 'll', 'la', 'dir', 'tree', 'pwd', 'echo', 'printf', 'grep', 'egrep', 'fgrep', 'rg', 'ag', 'ack',
  'sort', 'uniq', 'cut', 'tr', 'nl', 'column', 'jq', 'yq', 'stat', 'file', 'du', 'df', 'which', 'whereis', 'type', 'env', 'printenv', 'date',
  'whoami', 'id', 'uname', 'hostname', 'basename', 'dirname', 'realpath', 'readlink', 'diff', 'cmp', 'md5sum', 'sha1sum', 'sha256sum', 'shasum',
  'xxd', 'od', 'hexdump', 'strings', 'test', '[', '[[', 'true', 'false', 'sleep', 'ps', 'lsof', 'pgrep', 'free', 'uptime', 'locale', 'tty',
  'get-content', 'get-childitem', 'select-string', 'test-path', 'get-command', 'get-item', 'get-location', 'where', 'where.exe', 'gc', 'gci', 'sls',
]);

/** `git` subcommands that read. */
const GIT_READERS = new Set(['log', 'show', 'status', 'diff', 'branch', 'remote', 'rev-parse', 'ls-files', 'ls-tree', 'blame', 'describe', 'reflog', 'check-ignore', 'grep', 'shortlog', 'cat-file', 'for-each-ref', 'name-rev', 'merge-base', 'whatchanged', 'show-ref']);

/** Split a shell line into its simple commands (outside quotes): `a && b | c; d` → a, b, c, d. */
export function simpleCommands(line: string): string[] {
  const out: string[] = [];
  let cur = '';
  let q: string | null = null;
  for (let i = 0; i < line.length; i++) {
    const ch = line[i] as string;
    if (q) {
      cur += ch;
      if (ch === q) q = null;
      else if (ch === '\\' && q === '"' && i + 1 < line.length) cur += line[++i];
      continue;
    }
    if (ch === "'" || ch === '"') {
      q = ch;
      cur += ch;
      continue;
    }
    if (ch === ';' || ch === '\n' || ch === '|' || (ch === '&' && line[i + 1] === '&')) {
      out.push(cur);
      cur = '';
      if ((ch === '|' || ch === '&') && line[i + 1] === ch) i++;
      continue;
    }
    cur += ch;
  }
  out.push(cur);
  return out.map((s) => s.trim()).filter(Boolean);
}

/** The words of a simple command with leading `VAR=value` assignments and `sudo`/`time`/`command` dropped. */
function words(simple: string): string[] {
  const w = simple.replace(/^\(+|\)+$/g, '').split(/\s+/).filter(Boolean);
  while (w.length && (/^[A-Za-z_][A-Za-z0-9_]*=/.test(w[0] as string) || ['sudo', 'time', 'nice', 'command', 'builtin', 'exec'].includes(w[0] as string))) {
    if (w[0] === 'command' && w[1] === '-v') break;
    w.shift();
  }
  return w;
}

/** A redirection that writes a file (`> out`, `>> log`, `tee f`), not `2>&1` or `> /dev/null`. */
function writesFile(simple: string): boolean {
  const masked = simple.replace(/'[^']*'|"(?:[^"\\]|\\.)*"/g, (m) => 'q'.repeat(m.length));
  for (const m of masked.matchAll(/(\d?)>>?\s*(&?\S+)/g)) {
    const target = m[2] ?? '';
    if (target.startsWith('&') || target === '/dev/null' || /^\$null$/i.test(target) || target === 'NUL') continue;
    return true;
  }
  return /(^|\s)(tee|Out-File|Set-Content|Add-Content)(\s|$)/i.test(masked);
}

/** True when one simple command only reads. */
function readsOnly(simple: string): boolean {
  if (writesFile(simple)) return false;
  const w = words(simple);
  const prog = (w[0] ?? '').replace(/^.*[\\/]/, '').toLowerCase();
  if (!prog) return true;
  if (prog === 'cd' || prog === 'pushd' || prog === 'popd' || prog === 'set-location') return true;
  if (prog === 'command' && w[1] === '-v') return true;
  if (prog === 'sed') return !w.some((a) => /^-[a-zA-Z]*i/.test(a) || a === '--in-place' || a.startsWith('--in-place='));
  if (prog === 'awk' || prog === 'gawk') return !/system\(|print[^|]*>\s*"/.test(simple);
  if (prog === 'find') return !w.some((a) => ['-delete', '-exec', '-execdir', '-ok', '-fprint', '-fprintf', '-fls'].includes(a));
  if (prog === 'git') {
    const sub = w.slice(1).find((a, i, all) => !a.startsWith('-') && !(i > 0 && ['-C', '-c', '--git-dir', '--work-tree'].includes(all[i - 1] as string)));
    if (sub === 'config') return w.some((a) => a === '--get' || a === '--list' || a === '-l' || a === '--get-all');
    if (sub === 'stash') return w.includes('list') || w.includes('show');
    if (sub === 'tag') return w.length === 2 || w.includes('-l') || w.includes('--list');
    return !!sub && GIT_READERS.has(sub);
  }
  if (w.length === 2 && /^(--version|-v|-V|version|--help|-h|help)$/.test(w[1] as string)) return true;
  return READERS.has(prog);
}

/** True when every simple command of the line only reads (`cat a | head`, `cd x && git status`, `sed -n 1,80p f`). */
export function isReadOnlyCommand(line: string): boolean {
  const simple = simpleCommands(line.trim());
  // A substitution or a subshell may run anything.
  if (!simple.length || /\$\(|`/.test(line)) return false;
  return simple.every(readsOnly);
}

/** Interpreters whose first argument is the program they run. */
const INTERPRETERS = new Set(['python', 'python3', 'python2', 'node', 'bash', 'sh', 'zsh', 'ruby', 'perl', 'php', 'deno', 'bun', 'tsx', 'ts-node', 'pwsh', 'powershell', 'uv', 'poetry']);

/**
 * The program a command line runs, as a word: `pytest` for `cd x && pytest -q`, and for an interpreter
 * the script it runs (`export_session.py` for `python3 export_session.py --all`).
 */
export function programOf(line: string): string | null {
  const simple = simpleCommands(line).filter((s) => !/^(cd|pushd|set-location)\b/i.test(s));
  const main = simple.find((s) => !readsOnly(s)) ?? simple[0];
  if (!main) return null;
  const w = words(main);
  const prog = (w[0] ?? '').replace(/^.*[\\/]/, '');
  if (INTERPRETERS.has(prog.toLowerCase())) {
    const script = w.slice(1).find((a) => !a.startsWith('-') && a !== 'run');
    if (script) return script.replace(/^['"]|['"]$/g, '').replace(/^.*[\\/]/, '');
  }
  return prog || null;
}

/**
 * The files a command runs rather than writes: its script (`bash ~/x/export.sh`, `python3 a.py`,
 * `./run.sh`), as paths or file names. "May have changed" never lists these.
 */
export function programFiles(line: string): string[] {
  const out: string[] = [];
  for (const simple of simpleCommands(line)) {
    const w = words(simple);
    const prog = w[0] ?? '';
    const base = prog.replace(/^.*[\\/]/, '').toLowerCase();
    if (INTERPRETERS.has(base)) {
      const script = w.slice(1).find((a) => !a.startsWith('-') && a !== 'run');
      if (script) out.push(script.replace(/^['"]|['"]$/g, ''));
    } else if (/[\\/]/.test(prog)) {
      out.push(prog);
    }
  }
  return out;
}
