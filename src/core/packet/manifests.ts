/**
 * The manifest and lock files a package-manager command writes (`npm install x`, `cargo add y`, …):
 * an install that did not complete may have changed them, though its command line never names them.
 * Deterministic, no I/O: the caller says which files exist.
 */

interface Manager {
  /** The command head and the subcommands that write the manifest or the lock file. */
  re: RegExp;
  files: readonly string[];
}

const NODE = ['package.json'];
/** Options before the subcommand (`npm --prefix web install`), each with at most one value. */
const OPTS = String.raw`(?:-\S+\s+(?:[^-\s]\S*\s+)?)*?`;
const re = (s: string): RegExp => new RegExp(s);
const END = String.raw`(?=\s|$)`;
const MANAGERS: readonly Manager[] = [
  { re: re(String.raw`^npm\s+${OPTS}(?:install|i|add|remove|rm|uninstall|un|update|up|upgrade)${END}`), files: [...NODE, 'package-lock.json', 'npm-shrinkwrap.json'] },
  { re: re(String.raw`^pnpm\s+${OPTS}(?:install|i|add|remove|rm|uninstall|un|update|up|upgrade)${END}`), files: [...NODE, 'pnpm-lock.yaml'] },
  // A bare `yarn` installs too.
  { re: re(String.raw`^yarn(?:\s*$|\s+${OPTS}(?:install|add|remove|upgrade|up)${END})`), files: [...NODE, 'yarn.lock'] },
  { re: re(String.raw`^bun\s+${OPTS}(?:install|i|add|a|remove|rm|update)${END}`), files: [...NODE, 'bun.lockb', 'bun.lock'] },
  { re: re(String.raw`^cargo\s+(?:add|remove|rm|update)${END}`), files: ['Cargo.toml', 'Cargo.lock'] },
  { re: re(String.raw`^go\s+(?:get|mod\s+tidy)${END}`), files: ['go.mod', 'go.sum'] },
  { re: re(String.raw`^poetry\s+(?:add|remove|install|lock|update)${END}`), files: ['pyproject.toml', 'poetry.lock'] },
  { re: re(String.raw`^uv\s+(?:add|remove|lock|sync)${END}`), files: ['pyproject.toml', 'uv.lock'] },
  // pip is not here: it installs into the environment and writes no manifest or lock file of the repository.
  { re: re(String.raw`^bundle\s+(?:install|add|update|remove)${END}`), files: ['Gemfile', 'Gemfile.lock'] },
  { re: re(String.raw`^composer\s+(?:install|require|remove|update)${END}`), files: ['composer.json', 'composer.lock'] },
];

/** The folder a segment runs in: `--prefix D` / `-C D` / `--cwd D` / `--manifest-path D/…`, relative to `dir`. */
function folderOf(segment: string, dir: string): string {
  const opt = /(?:^|\s)(?:--prefix|-C|--dir|--cwd|--directory)(?:=|\s+)(\S+)/.exec(segment)?.[1];
  const manifest = /(?:^|\s)--manifest-path(?:=|\s+)(\S+)/.exec(segment)?.[1];
  const sub = opt ?? (manifest ? manifest.replace(/\/?[^/]*$/, '') : null);
  return sub ? join(dir, sub) : dir;
}

function join(dir: string, sub: string): string {
  const clean = sub.replace(/^['"]|['"]$/g, '');
  if (clean.startsWith('/')) return clean;
  const parts = dir ? dir.split('/') : [];
  for (const p of clean.split('/')) {
    if (p === '' || p === '.') continue;
    if (p === '..') parts.pop();
    else parts.push(p);
  }
  return parts.join('/');
}

/**
 * The repository files (repo-relative, among `known`) that a package-manager command in `command` may
 * have written: the manifest and lock files of the manager, in the folder it ran in (`cd D && …`,
 * `--prefix D`), in the order the manager lists them. Empty for any other command.
 */
export function manifestsWritten(command: string, known: ReadonlySet<string>): string[] {
  const out: string[] = [];
  let dir = '';
  for (const raw of command.split(/\s*(?:&&|\|\||;|\n)\s*/)) {
    const segment = raw.trim().replace(/^(?:sudo\s+|env\s+(?:\S+=\S*\s+)*|(?:\w+=\S*\s+)+)/, '');
    const cd = /^cd\s+(\S+)\s*$/.exec(segment);
    if (cd?.[1]) {
      dir = join(dir, cd[1]);
      continue;
    }
    const m = MANAGERS.find((x) => x.re.test(segment));
    if (!m) continue;
    const folder = folderOf(segment, dir);
    for (const f of m.files) {
      const p = folder ? `${folder}/${f}` : f;
      if (known.has(p) && !out.includes(p)) out.push(p);
    }
  }
  return out;
}
