/**
 * Where a derived item came from (DESIGN §2c "provenance"): a session file or a workbench file, and the
 * 1-based line in it. One type for the whole core: next action, questions, closing words, failed
 * attempts, rejected approaches and credential findings all carry one. `file` is the path as the
 * reader knows it (absolute for an agent session, relative to the workbench for a workbench file).
 */
export interface Source {
  file: string;
  /** 1-based line; null when the item has no single line (a whole file, a git fact). */
  line: number | null;
  /** What at that line, for people: "closing message", "`cat .env` output", "TaskUpdate #4". */
  what?: string;
}

/** `file:line` (or just the file), for people and for the markdown render. */
export function formatSource(s: Source): string {
  return s.line === null ? s.file : `${s.file}:${s.line}`;
}
