/**
 * A tiny glob matcher for temp-artifact settings: `**` spans folders, `*` and `?` stay inside one
 * path segment. Paths use `/`. A glob without a `/` matches the file name in any folder.
 */
export function globToRegExp(glob: string): RegExp {
  const g = glob.includes('/') ? glob.replace(/^\.?\//, '') : `**/${glob}`;
  let re = '';
  for (let i = 0; i < g.length; i++) {
    const ch = g[i] as string;
    if (ch === '*' && g[i + 1] === '*') {
      const atStart = i === 0 || g[i - 1] === '/';
      const slashAfter = g[i + 2] === '/';
      if (atStart && slashAfter) {
        re += '(?:.*/)?'; // `**/`: zero or more whole folders
        i += 2;
      } else {
        re += '.*'; // trailing `/**`: everything below; elsewhere any characters
        i += 1;
      }
    } else if (ch === '*') {
      re += '[^/]*';
    } else if (ch === '?') {
      re += '[^/]';
    } else {
      re += ch.replace(/[.+^${}()|[\]\\]/g, '\\$&');
    }
  }
  return new RegExp(`^${re}$`);
}

/** Compiles globs once and tests paths against all of them. */
export function globMatcher(globs: readonly string[]): (p: string) => boolean {
  const res = globs.filter((g) => g.trim() !== '').map(globToRegExp);
  return (p) => {
    const norm = p.replace(/\\/g, '/');
    return res.some((re) => re.test(norm));
  };
}

/** True when `p` is `prefix` itself or inside the folder `prefix` (both repo-relative, `/`-separated). */
export function isUnder(p: string, prefix: string): boolean {
  const a = p.replace(/\\/g, '/');
  const b = prefix.replace(/\\/g, '/').replace(/\/+$/, '');
  return b === '' || b === '.' || a === b || a.startsWith(`${b}/`);
}
