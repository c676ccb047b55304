import type { Packet } from '../packet/schema';
import { orderRisks } from '../packet/severity';
import { redact } from '../redact';

export interface PromptExtra {
  freshness?: { stale: boolean; reasons: string[] };
  acknowledged?: { id: string; by: string; at: string }[];
  /** Replaces the default "how the first reply should look". */
  firstTurn?: string;
}

/** ≈ 1 500 tokens: long enough for the essentials, short enough to paste. */
export const PROMPT_MAX_CHARS = 6000;
const MAX_FAILED = 6;
const MAX_RISKS = 8;
const MAX_FILES = 8;

const clip = (s: string, n: number): string => {
  const one = s.replace(/\s*\n\s*/g, ' ').trim();
  return one.length > n ? `${one.slice(0, n - 1)}…` : one;
};

/**
 * The restart prompt (DESIGN §6), built only from the packet: where the work stands, whether the
 * packet is still fresh, the next action first, what not to repeat, risks by severity, what to read,
 * and how the first reply should look.
 */
export function renderRestartPrompt(p: Packet, extra: PromptExtra = {}): string {
  const stale = extra.freshness?.stale === true;
  const lines: string[] = [];
  if (p.next_goal) lines.push(`GOAL FOR THIS SESSION: ${clip(p.next_goal, 500)}`, '');
  if (stale) {
    const why = extra.freshness?.reasons.length ? extra.freshness.reasons.map((r) => r.replace(/\.+$/, '')).join('; ') : 'the workspace moved on since it was written';
    lines.push(`WARNING: this handoff packet is **stale** — ${clip(why, 400)}. Treat it as history, not as the current state.`, '');
  }
  lines.push(`You are continuing work handed off from a previous session (${p.session_id}, topic ${p.topic}).`);
  lines.push(`Where it stands: repo ${p.repo ?? 'unknown'}, branch ${p.branch ?? 'unknown'}, HEAD ${p.head_commit?.slice(0, 12) ?? 'unknown'} (packet written ${p.generated_at}).`);
  if (!stale) lines.push(extra.freshness ? 'Freshness: the packet matches the current branch and HEAD.' : 'Freshness: not checked against the current repository; confirm branch and HEAD first.');
  lines.push('', `NEXT ACTION: ${clip(p.next_action, 600)}`, '', `Summary: ${clip(p.summary, 800)}`);

  if (p.failed_attempts.length) {
    lines.push('', 'Failed attempts — do not repeat blindly:');
    for (const f of p.failed_attempts.slice(-MAX_FAILED)) {
      const how = f.outcome === 'failed' ? `exit ${f.exit_code}` : f.outcome === 'timeout' ? 'timed out' : 'did not complete';
      const flag = f.uncertain ? ' — may have partly applied — check before re-running' : '';
      lines.push(`- ${clip(f.command, 160)} (${how})${flag}: ${clip(f.excerpt, 160)}${f.note ? ` [note: ${clip(f.note, 80)}]` : ''}`);
    }
    if (p.failed_attempts.length > MAX_FAILED) lines.push(`- …and ${p.failed_attempts.length - MAX_FAILED} older ones in handoff.json`);
  }
  const rejected = p.decisions.filter((d) => d.status === 'rejected');
  if (rejected.length) {
    lines.push('', 'Rejected approaches — do not retry:');
    for (const d of rejected.slice(0, 4)) lines.push(`- ${clip(d.text, 200)}`);
  }

  if (p.open_risks.length) {
    const acks = new Map((extra.acknowledged ?? []).map((a) => [a.id, a]));
    lines.push('', 'Open risks (most severe first):');
    const ordered = orderRisks(p.open_risks);
    for (const r of ordered.slice(0, MAX_RISKS)) {
      const ack = acks.get(r.id);
      const ackText = ack ? ` (acknowledged by ${ack.by} at ${ack.at})` : '';
      lines.push(`- [${r.severity}] ${r.id}: ${clip(r.detail, 200)}${r.verify ? ` — verify with: ${clip(r.verify, 120)}` : ''}${ackText}`);
    }
    if (ordered.length > MAX_RISKS) lines.push(`- …and ${ordered.length - MAX_RISKS} more in handoff.json`);
  }

  if (p.next_session_prereqs.length) {
    lines.push('', 'Read these first:');
    for (const f of p.next_session_prereqs.slice(0, MAX_FILES)) lines.push(`- ${f}`);
  }
  if (p.assumptions_to_validate.length) {
    lines.push('', 'Unverified assumptions:');
    for (const a of p.assumptions_to_validate.slice(0, 4)) lines.push(`- ${clip(a.text, 200)}`);
  }

  lines.push('', 'How your first reply should look:');
  if (extra.firstTurn?.trim()) lines.push(extra.firstTurn.trim());
  else if (stale) lines.push('Review read-only first: compare the packet with the current branch, HEAD and files, report what changed, and propose the next step before editing anything.');
  else lines.push('Confirm the branch and HEAD in one line, then act on the next action right away; report the result of its verification command.');

  let text: string = redact(lines.join('\n'));
  if (text.length > PROMPT_MAX_CHARS) text = `${text.slice(0, PROMPT_MAX_CHARS - 40)}\n…(trimmed; see handoff.json)`;
  return redact(`${text}\n`);
}
