/** A problem found in one input file. `line` is 1-based where the problem has a line. */
export interface Diagnostic {
  file: string;
  line?: number;
  message: string;
}

/** A parse result as a value: parsers never throw at the user. */
export type Parsed<T> = { ok: true; value: T } | { ok: false; error: Diagnostic };
