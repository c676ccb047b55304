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
  // The lines both texts start and end with, past the context, are left out of the diff's work (a
  // set-up changes a few lines of a file of any length); the hunks' line numbers count them.
  const aAll = lines(a);
  const bAll = lines(b);
  let head = 0;
  while (head < aAll.length && head < bAll.length && aAll[head] === bAll[head]) head++;
  let tail = 0;
  while (tail < aAll.length - head && tail < bAll.length - head && aAll[aAll.length - 1 - tail] === bAll[bAll.length - 1 - tail]) tail++;
  const skip = Math.max(0, head - context);
  const drop = Math.max(0, tail - context);
  // Both texts end with a newline: each line left out is its text and one newline.
  let start = 0;
  for (let i = 0; i < skip; i++) start += aAll[i]!.length + 1;
  let end = 0;
  for (let i = 0; i < drop; i++) end += aAll[aAll.length - 1 - i]!.length + 1;
  const middle = (text: string): string => text.slice(start, text.length - end);
  const patch = structuredPatch(fromName, toName, middle(a), middle(b), undefined, undefined, { context, maxEditLength: MAX_EDIT_LENGTH, timeout: TIMEOUT_MS });
  for (const h of patch?.hunks ?? []) {
    h.oldStart += skip;
    h.newStart += skip;
  }
  if (!patch) {
    out.push(`@@ -${aAll.length ? 1 : 0},${aAll.length} +${bAll.length ? 1 : 0},${bAll.length} @@`, ...aAll.map((l) => `-${l}`), ...bAll.map((l) => `+${l}`));
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
