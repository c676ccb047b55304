import type { AddedLine } from '../core/gitPort';

const ESCAPES: Record<string, string> = { n: '\n', t: '\t', '"': '"', '\\': '\\', a: '\x07', b: '\b', f: '\f', r: '\r', v: '\v' };

/**
 * Undoes git's C-style quoting of a path (`"a\tb"`, octal bytes for non-ASCII when
 * core.quotePath is on). Unquoted paths are returned as they are.
 */
export function unquoteGitPath(raw: string): string {
  if (!raw.startsWith('"') || !raw.endsWith('"') || raw.length < 2) return raw;
  const body = raw.slice(1, -1);
  const bytes: number[] = [];
  for (let i = 0; i < body.length; i++) {
    const ch = body[i] as string;
    if (ch !== '\\') {
      bytes.push(...Buffer.from(ch, 'utf8'));
      continue;
    }
    const next = body[i + 1] ?? '';
    if (/[0-7]/.test(next)) {
      bytes.push(parseInt(body.slice(i + 1, i + 4), 8));
      i += 3;
    } else {
      bytes.push(...Buffer.from(ESCAPES[next] ?? next, 'utf8'));
      i += 1;
    }
  }
  return Buffer.from(bytes).toString('utf8');
}

/** Strips the `b/` prefix diff puts on new-side paths (quoted or not). */
function newSidePath(spec: string): string | null {
  const p = unquoteGitPath(spec.trim());
  if (p === '/dev/null') return null;
  return p.startsWith('b/') ? p.slice(2) : p;
}

/**
 * Parses `git diff -U0` output into the lines it adds, with their line numbers in the new file.
 * Deleted files and binary files add no lines.
 */
export function parseAddedLines(diff: string): AddedLine[] {
  const added: AddedLine[] = [];
  let file: string | null = null;
  let next = 0;
  // Inside a file header `+++ ` names the file; inside a hunk it is an added line starting "++ ".
  let inHeader = false;
  for (const line of diff.split('\n')) {
    if (line.startsWith('diff --git ')) {
      file = null;
      inHeader = true;
    } else if (inHeader && line.startsWith('+++ ')) {
      file = newSidePath(line.slice(4));
    } else if (line.startsWith('@@ ')) {
      inHeader = false;
      const m = /^@@ -\d+(?:,\d+)? \+(\d+)(?:,\d+)? @@/.exec(line);
      next = m ? Number(m[1]) : 0;
    } else if (!inHeader && file !== null && line.startsWith('+')) {
      added.push({ path: file, line: next, text: line.slice(1) });
      next++;
    }
  }
  return added;
}
