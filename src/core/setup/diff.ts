import { structuredPatch } from 'diff';

/**
 * Myers' diff (jsdiff) is O((n + m) · d) for d changed lines: linear for a set-up's few added lines.
 * Past this many changed lines (a file reformatted throughout) it stops early and the diff shows the
 * whole file replaced, so time and memory stay bounded for any input.
 */
const MAX_EDIT_LENGTH = 2_000;
const TIMEOUT_MS = 1_000;

/**
 * A unified diff of two texts, line by line. Empty when the texts are equal. `null` stands for a file
 * that does not exist.
 */
export function unifiedDiff(fromName: string, toName: string, from: string | null, to: string | null, context = 3): string {
  if (from === to) return '';
  const a = normalise(from ?? '');
  const b = normalise(to ?? '');
  const out: string[] = [`--- ${from === null ? '/dev/null' : fromName}`, `+++ ${to === null ? '/dev/null' : toName}`];
  const patch = structuredPatch(fromName, toName, a, b, undefined, undefined, { context, maxEditLength: MAX_EDIT_LENGTH, timeout: TIMEOUT_MS });
  if (!patch) {
    const aLines = lines(a);
    const bLines = lines(b);
    out.push(`@@ -${aLines.length ? 1 : 0},${aLines.length} +${bLines.length ? 1 : 0},${bLines.length} @@`, ...aLines.map((l) => `-${l}`), ...bLines.map((l) => `+${l}`));
    return `${out.join('\n')}\n`;
  }
  for (const h of patch.hunks) {
    out.push(`@@ -${h.oldLines ? h.oldStart : h.oldStart - (h.oldStart > 0 ? 1 : 0)},${h.oldLines} +${h.newLines ? h.newStart : h.newStart - (h.newStart > 0 ? 1 : 0)},${h.newLines} @@`);
    // jsdiff marks a missing final newline with a "\ No newline" line; the diff here is for reading.
    for (const l of h.lines) if (!l.startsWith('\\')) out.push(l);
  }
  return `${out.join('\n')}\n`;
}

/** Every text ends with a newline, so a missing final one does not show as a changed line. */
const normalise = (text: string): string => (text && !text.endsWith('\n') ? `${text}\n` : text);

function lines(text: string): string[] {
  if (!text) return [];
  const l = text.split('\n');
  if (l[l.length - 1] === '') l.pop();
  return l;
}
