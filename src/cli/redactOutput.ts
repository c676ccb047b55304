import { redact, redactDeep, type Redacted } from '../core/redact';

/**
 * One chunk of command-line output, redacted. A `--json` document is redacted value by value and
 * printed again in the same layout, so it stays valid JSON; any other text is redacted as a whole.
 */
export function redactOutput(text: string): Redacted {
  const t = text.trimStart();
  if (t.startsWith('{') || t.startsWith('[')) {
    try {
      const value: unknown = JSON.parse(text);
      const indent = /^[[{]\n {2}["[{\d]/.test(t) ? 2 : undefined;
      const tail = /\n$/.test(text) ? '\n' : '';
      return `${JSON.stringify(redactDeep(value), null, indent)}${tail}` as Redacted;
    } catch {
      // not one JSON document: plain text
    }
  }
  return redact(text);
}
