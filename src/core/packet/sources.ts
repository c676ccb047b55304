/**
 * How a kind of fact in `packet.sources` reads for people: its key in words ("changed_files" →
 * "changed files"), except the session's declined commands, kept under `decisions`.
 */
const kindName = (kind: string): string => (kind === 'decisions' ? 'declined commands' : kind.replace(/_/g, ' '));

/** The sources entry that counts the session lines of unknown types the reader skipped (a note, not a source). */
export const SKIPPED_LINES = 'skipped_lines';

const SESSION_NAMES: Record<string, string> = { claude: 'Claude Code session', codex: 'Codex session', cline: 'Cline task', roo: 'Roo Code task', zoo: 'Zoo Code task', kilo: 'Kilo Code task', opencode: 'OpenCode session', 'copilot-chat': 'Copilot Chat session', gemini: 'Gemini CLI session', qwen: 'Qwen Code session', 'copilot-cli': 'Copilot CLI session' };

/**
 * A session id short enough to read and long enough to tell sessions apart: its first 8 characters,
 * except where ids start with the time. A UUIDv7 (Codex, OpenCode) keeps its first 13 characters (the
 * millisecond it was made; 8 would be the same for every session of the same minute), an OpenCode
 * `ses_` id its 12 characters of time, and a numeric id (a Cline task's epoch milliseconds) is kept whole.
 */
export function shortSessionId(id: string): string {
  if (/^[0-9a-f]{8}-[0-9a-f]{4}-7[0-9a-f]{3}-/i.test(id)) return id.slice(0, 13);
  if (/^ses_[0-9a-f]{12}/.test(id)) return id.slice(0, 16);
  if (/^\d{13}$/.test(id)) return id;
  return id.slice(0, 8);
}

/** `claude:<id>` → "Claude Code session 7f3e2a91", `codex:<uuidv7>` → "Codex session 01a23a96-fea0"; other labels stay as they are. */
export function sourceName(label: string): string {
  const m = /^(claude|codex|cline|roo|zoo|kilo|opencode|copilot-chat|gemini|qwen|copilot-cli):(.+)$/.exec(label);
  if (!m) return label;
  return `${SESSION_NAMES[m[1] as string]} ${shortSessionId(m[2] ?? '')}`;
}

/**
 * One line saying where the packet's facts came from, agent sessions first: "From Claude Code session
 * 7f3e2a91 (commands, task list, changed files); next action from the task list." Empty when the
 * packet records no sources (older packets).
 */
export function describeSources(sources: Record<string, string>): string {
  const byOrigin = new Map<string, string[]>();
  for (const [kind, label] of Object.entries(sources)) {
    if (kind === 'next_action' || kind === 'session' || kind === 'branch' || kind === SKIPPED_LINES) continue;
    for (const part of label.split(' + ')) {
      const name = sourceName(part.trim());
      byOrigin.set(name, [...(byOrigin.get(name) ?? []), kindName(kind)]);
    }
  }
  const sessionsFirst = [...byOrigin].sort((a, b) => Number(/ (?:session|task) /.test(b[0])) - Number(/ (?:session|task) /.test(a[0])));
  const parts = sessionsFirst.map(([name, kinds]) => `${name} (${kinds.join(', ')})`);
  const next = sources['next_action'];
  const ours = ['task list', 'newest failure', 'latest request', 'closing words', 'recap', 'unanswered request', 'questions'];
  const nextText = next ? `next action from ${ours.includes(next) ? `the ${next}` : sourceName(next)}` : '';
  const skipped = sources[SKIPPED_LINES] ? ` ${sources[SKIPPED_LINES]}.` : '';
  if (!parts.length) return nextText ? `${nextText.charAt(0).toUpperCase()}${nextText.slice(1)}.${skipped}` : skipped.trim();
  return `From ${parts.join('; ')}${nextText ? `; ${nextText}` : ''}.${skipped}`;
}
