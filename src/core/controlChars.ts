/**
 * Control characters in agent-written text. A NUL cuts a path short in C-based tools, an escape
 * sequence repaints a terminal, a bidi override makes `a.py` display as something else. None of them is
 * content anyone meant to hand on, so they are removed where text enters the core.
 */

// C0 controls except tab, newline and carriage return; DEL and the C1 block (but NEL, a line break);
// the Unicode bidi controls (embeddings, overrides, isolates and the invisible marks) that reorder what a
// reader sees; the zero-width characters (space, joiners, word joiner, byte order mark) that hide text
// between visible letters.
const IN_TEXT = /[\u0000-\u0008\u000b\u000c\u000e-\u001f\u007f-\u0084\u0086-\u009f\u061c\u180e\u200b-\u200f\u202a-\u202e\u2060-\u2064\u2066-\u2069\ufeff]/g;
// The same plus tab, newline and carriage return: a path or a label is one line.
const IN_LINE = /[\u0000-\u001f\u007f-\u0084\u0086-\u009f\u061c\u180e\u200b-\u200f\u202a-\u202e\u2060-\u2064\u2066-\u2069\ufeff]/g;
// Line breaks other than newline: NEL, line and paragraph separators. A reader (a terminal, a model)
// starts a new line at each, so one of them in quoted text would begin a line without its quote marker.
const OTHER_BREAKS = /[\u0085\u2028\u2029]/g;

/**
 * Text (notes, output excerpts) without control characters; line breaks and tabs stay, and the other
 * line breaks (NEL, U+2028, U+2029) become newlines, so quoting marks every line a reader sees.
 */
export function stripControl(text: string): string {
  return text.replace(IN_TEXT, '').replace(OTHER_BREAKS, '\n');
}

/** A path or a one-line label: no control characters at all, line breaks (all of them) and tabs included. */
export function stripControlLine(text: string): string {
  return text.replace(OTHER_BREAKS, '').replace(IN_LINE, '');
}

/** `stripControl` over every string (keys included) of a JSON-like value; returns a new value. */
export function stripControlDeep<T>(value: T): T {
  if (typeof value === 'string') return stripControl(value) as T;
  if (Array.isArray(value)) return value.map((v) => stripControlDeep(v)) as T;
  if (value && typeof value === 'object') {
    const out: Record<string, unknown> = {};
    for (const [k, v] of Object.entries(value)) out[stripControl(k)] = stripControlDeep(v);
    return out as T;
  }
  return value;
}

/**
 * Whether a raw JSON line may decode to a control character: JSON text carries C0 controls only as
 * escapes (`\u0000`, `\b`, `\f`), and DEL, C1, bidi, zero-width and separator characters as
 * themselves. Lets a streaming reader skip the deep pass on the common, clean line.
 */
export function jsonMayHoldControl(raw: string): boolean {
  return /\\[ubf]|[\u007f-\u009f\u061c\u180e\u200b-\u200f\u2028\u2029\u202a-\u202e\u2060-\u2064\u2066-\u2069\ufeff]/.test(raw);
}

// Terminal escape sequences, whole: CSI (`ESC [` … final byte), the string sequences OSC, DCS, SOS,
// PM and APC (`ESC ]`, `P`, `X`, `^`, `_` … up to BEL or ST: window titles, OSC 52 clipboard writes,
// OSC 8 hyperlinks), and the short `ESC` + intermediates + final escapes; then their 8-bit (C1) forms.
const ESC_SEQUENCE = /\u001b(?:\[[0-?]*[ -/]*[@-~]?|[\]PX^_][^\u0007\u001b\u009c]*(?:\u0007|\u001b\\|\u009c)?|[ -/]*[0-~]?)/g;
const C1_SEQUENCE = /\u009b[0-?]*[ -/]*[@-~]?|[\u0090\u0098\u009d-\u009f][^\u0007\u001b\u009c]*(?:\u0007|\u001b\\|\u009c)?/g;

/**
 * Text for a terminal: every escape sequence removed whole (its payload too, so an OSC 52 clipboard
 * write or an OSC 8 link target never shows up as text), then the controls `stripControl` removes, and a
 * carriage return that does not end a line (it would let later text overwrite what was printed).
 * Newlines and tabs stay. The one sanitiser of everything the command line prints.
 */
export function terminalSafe(text: string): string {
  // U+2028 and U+2029 stay as they are (a terminal does not act on them; a newline for them would break
  // a JSON document's string), NEL goes with the other C1 controls.
  return text.replace(ESC_SEQUENCE, '').replace(C1_SEQUENCE, '').replace(IN_TEXT, '').replace(/\u0085/g, '').replace(/\r(?!\n)/g, '');
}
