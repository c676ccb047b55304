/**
 * A unified diff of two texts, line by line (longest common subsequence; settings files are small).
 * Empty when the texts are equal. `null` stands for a file that does not exist.
 */
export function unifiedDiff(fromName: string, toName: string, from: string | null, to: string | null, context = 3): string {
  if (from === to) return '';
  const a = splitLines(from ?? '');
  const b = splitLines(to ?? '');
  const ops = diffOps(a, b);
  const out: string[] = [`--- ${from === null ? '/dev/null' : fromName}`, `+++ ${to === null ? '/dev/null' : toName}`];
  // One hunk per run of changes, with `context` unchanged lines around; close runs merge.
  const ranges: [number, number][] = [];
  ops.forEach((o, k) => {
    if (o.kind === ' ') return;
    const lo = Math.max(0, k - context);
    const hi = Math.min(ops.length, k + context + 1);
    const last = ranges[ranges.length - 1];
    if (last && lo <= last[1]) last[1] = Math.max(last[1], hi);
    else ranges.push([lo, hi]);
  });
  for (const [lo, hi] of ranges) {
    const hunk = ops.slice(lo, hi);
    const aLen = hunk.filter((o) => o.kind !== '+').length;
    const bLen = hunk.filter((o) => o.kind !== '-').length;
    const aStart = hunk[0]!.aLine;
    const bStart = hunk[0]!.bLine;
    out.push(`@@ -${aLen ? aStart : aStart - 1},${aLen} +${bLen ? bStart : bStart - 1},${bLen} @@`);
    for (const o of hunk) out.push(`${o.kind}${o.text}`);
  }
  return `${out.join('\n')}\n`;
}

interface Op {
  kind: ' ' | '-' | '+';
  text: string;
  /** 1-based line in the old / new text where this op sits. */
  aLine: number;
  bLine: number;
}

function splitLines(text: string): string[] {
  if (!text) return [];
  const lines = text.split('\n');
  if (lines[lines.length - 1] === '') lines.pop();
  return lines;
}

function diffOps(a: string[], b: string[]): Op[] {
  const n = a.length;
  const m = b.length;
  // lcs[i][j] = length of the LCS of a[i..] and b[j..]
  const lcs: number[][] = Array.from({ length: n + 1 }, () => new Array<number>(m + 1).fill(0));
  for (let i = n - 1; i >= 0; i--) {
    for (let j = m - 1; j >= 0; j--) lcs[i]![j] = a[i] === b[j] ? lcs[i + 1]![j + 1]! + 1 : Math.max(lcs[i + 1]![j]!, lcs[i]![j + 1]!);
  }
  const ops: Op[] = [];
  let i = 0;
  let j = 0;
  while (i < n || j < m) {
    if (i < n && j < m && a[i] === b[j]) {
      ops.push({ kind: ' ', text: a[i]!, aLine: i + 1, bLine: j + 1 });
      i++;
      j++;
    } else if (j < m && (i >= n || lcs[i]![j + 1]! >= lcs[i + 1]![j]!)) {
      ops.push({ kind: '+', text: b[j]!, aLine: i + 1, bLine: j + 1 });
      j++;
    } else {
      ops.push({ kind: '-', text: a[i]!, aLine: i + 1, bLine: j + 1 });
      i++;
    }
  }
  return ops;
}
