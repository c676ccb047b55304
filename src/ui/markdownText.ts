import { redact } from '../core/redact';

/**
 * Agent-, git- and artifact-written text inside a Markdown tooltip must render as the characters it
 * holds: no link, no image, no HTML, no heading, no `$(icon)`. Backslash-escaping every ASCII
 * punctuation character is always valid CommonMark and turns each of those back into plain text
 * (a bare URL too: its `:` and `.` no longer form an autolink). Line breaks stay line breaks.
 */
export function escapeMarkdown(text: string): string {
  // Redacted first: once escaped (`ghp\_…`, `password\=…`), a secret no longer reads as one.
  return redact(text).replace(/[!-/:-@[-`{-~]/g, '\\$&').replace(/\r?\n/g, '  \n');
}
