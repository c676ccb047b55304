import { FIX_MARK } from '../../core/packet/risks';

/**
 * Short row labels for the sidebar. A tree row does not wrap: at the default sidebar width a label
 * longer than about 32 characters is cut off with "…", and with it the finding. So the label is the
 * head of the text, and the rest goes to the description (drawn right after it, dimmer, where a cut
 * costs only detail), the tooltip and, where it matters, a child row. Pure: unit-tested in Node.
 */

/** Characters that fit in a second-level row of a 300 px sidebar, with room for an inline action. */
export const LABEL_MAX = 32;

/** Places where a finding's head naturally ends, in order of preference. */
const BREAKS = [' — ', ': ', '; ', ' (', ', '] as const;

/** The head of `text` for a label, and what follows it for the description. Nothing is dropped. */
export function splitLabel(text: string, max = LABEL_MAX): { label: string; rest: string } {
  const t = text.trim().replace(/\s+/g, ' ');
  if (t.length <= max) return { label: t, rest: '' };
  for (const sep of BREAKS) {
    const at = t.indexOf(sep);
    if (at >= 8 && at <= max) {
      // Keep an opening parenthesis with what it opens.
      const restFrom = sep === ' (' ? at + 1 : at + sep.length;
      return { label: t.slice(0, at), rest: t.slice(restFrom).trim() };
    }
  }
  // No natural break early enough: the words that fit; the description continues the sentence.
  const cut = t.lastIndexOf(' ', max);
  const at = cut >= 8 ? cut : max;
  return { label: t.slice(0, at).trim(), rest: t.slice(at).trim() };
}

/**
 * A clean-state risk's text is "<finding> — fix: <advice>": the finding and the advice apart, so the
 * advice can be a child row instead of being cut off at the end of the risk row.
 */
export function splitFix(detail: string): { finding: string; fix: string | null } {
  const at = detail.indexOf(FIX_MARK);
  if (at < 0) return { finding: detail, fix: null };
  return { finding: detail.slice(0, at).replace(/\.$/, ''), fix: detail.slice(at + FIX_MARK.length).trim() || null };
}
