import { terminalSafe } from '../core/controlChars';
import { redactDocument, type Redacted } from '../core/redact';

/**
 * One chunk of command-line output, made safe for a terminal and redacted: escape sequences and other
 * control characters removed (`terminalSafe`: session and workbench text reaches status, check and
 * secrets raw), then a `--json` document redacted value by value (it stays valid JSON: raw controls
 * cannot occur inside its strings), any other text as a whole.
 */
export function redactOutput(text: string): Redacted {
  return redactDocument(terminalSafe(text));
}
