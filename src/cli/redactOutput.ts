import { redactDocument, type Redacted } from '../core/redact';

/**
 * One chunk of command-line output, redacted: a `--json` document value by value (it stays valid
 * JSON), any other text as a whole.
 */
export function redactOutput(text: string): Redacted {
  return redactDocument(text);
}
