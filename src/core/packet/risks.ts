import type { CleanFinding } from '../clean/types';
import type { WorkbenchSnapshot } from '../artifacts/snapshot';
import { activeTaskId } from '../artifacts/topic';
import type { Risk } from './schema';
import { secretRisks } from './secretRisks';
import { mapSeverity, orderRisks } from './severity';
import type { GitInput } from './gitInput';
import type { LineOrigin } from '../gitPort';

/** Joins a clean-state finding and its fix in a risk's text; views split on it to show the fix apart. */
export const FIX_MARK = ' — fix: ';

/** A review below this total is a risk even when it is not a hard fail. */
export const REVIEW_RISK_BELOW = 7;

type Textish = string | { text?: string; detail?: string; description?: string };

/** The words of a free-text-or-object artifact entry. */
export function textOf(item: Textish): string {
  if (typeof item === 'string') return item.trim();
  return (item.text ?? item.detail ?? item.description ?? '').trim();
}

/** Ids must be unique inside a packet; a repeated id gets `#2`, `#3`, … */
function uniqueIds(risks: Risk[]): Risk[] {
  const seen = new Map<string, number>();
  return risks.map((r) => {
    const n = (seen.get(r.id) ?? 0) + 1;
    seen.set(r.id, n);
    return n === 1 ? r : { ...r, id: `${r.id}#${n}` };
  });
}

/**
 * Open risks from verification findings, blockers, the review, the agent's own list, (when the
 * user accepted a dirty workbench) every clean-state finding as `block`, a `block` for every
 * credential masked in an input file, and a missing last known good commit when git says why it is
 * unknown. Most severe first, stable.
 */
export function collectRisks(
  snapshot: WorkbenchSnapshot,
  clean: { findings: CleanFinding[] } | null,
  git: Pick<GitInput, 'lastKnownGoodCommit' | 'lkgUnknownReason'> | null = null,
  secretOrigins?: Readonly<Record<string, LineOrigin>>,
): Risk[] {
  const risks: Risk[] = secretRisks(snapshot.secrets ?? [], secretOrigins, snapshot.session?.agent);
  const activeId = activeTaskId(snapshot);
  const doneWhen = snapshot.featureList?.features.find((f) => f.id === activeId)?.done_when;

  const v = snapshot.verification;
  for (const f of v?.findings ?? []) {
    const risk: Risk = { id: `verify:${f.code || 'finding'}`, severity: mapSeverity(f.severity), detail: f.detail || f.code || 'verification finding', source: v!.file };
    if (doneWhen && /^accept/i.test(f.code)) risk.verify = doneWhen;
    risks.push(risk);
  }
  if (v && !v.passed && v.findings.length === 0) {
    risks.push({ id: 'verify:failed', severity: 'block', detail: 'verification failed without findings', source: v.file, ...(doneWhen ? { verify: doneWhen } : {}) });
  }

  (snapshot.agentState?.blockers ?? []).forEach((b, i) => {
    const detail = textOf(b as Textish);
    if (detail) risks.push({ id: `blocker:${i + 1}`, severity: 'block', detail, source: 'agent_state.json' });
  });

  const r = snapshot.review;
  if (r && (r.verdict === 'hard_fail' || r.total < REVIEW_RISK_BELOW)) {
    const weakest = [...r.dimensions].sort((a, b) => a.score - b.score)[0];
    const why = weakest ? `; weakest: ${weakest.name} ${weakest.score}${weakest.note ? ` (${weakest.note})` : ''}` : '';
    risks.push({
      id: r.verdict === 'hard_fail' ? 'review:hard_fail' : 'review:score',
      severity: r.verdict === 'hard_fail' ? 'block' : 'warn',
      detail: `review ${r.verdict} with ${r.total}/10${why}`,
      source: r.file,
    });
  }

  (snapshot.agentState?.open_risks ?? []).forEach((item, i) => {
    if (typeof item === 'string') {
      if (item.trim()) risks.push({ id: `agent:${i + 1}`, severity: 'warn', detail: item.trim(), source: 'agent_state.json' });
      return;
    }
    const detail = (item.detail ?? item.text ?? '').trim();
    if (!detail) return;
    const risk: Risk = { id: `agent:${item.id?.trim() || i + 1}`, severity: mapSeverity(item.severity), detail, source: item.source?.trim() || 'agent_state.json' };
    if (item.owner === 'human' || item.owner === 'agent') risk.owner = item.owner;
    if (item.verify?.trim()) risk.verify = item.verify.trim();
    risks.push(risk);
  });

  for (const f of clean?.findings ?? []) {
    const risk: Risk = { id: `clean:${f.check}`, severity: f.severity ?? 'block', detail: `${f.detail}${FIX_MARK}${fixWithinRules(f.fix, snapshot)}`, source: 'clean_state' };
    if (f.paths?.length) risk.paths = [...f.paths];
    risks.push(risk);
  }

  const lkgUnknown = git && !git.lastKnownGoodCommit ? git.lkgUnknownReason : undefined;
  if (lkgUnknown) {
    risks.push({
      id: 'git:no-last-known-good',
      severity: 'warn',
      detail: `No last known good commit: ${lkgUnknown}. Do not assume HEAD is safe to build on.`,
      source: 'git',
      owner: 'agent',
    });
  }

  // Sorted once, after every risk is known.
  return uniqueIds(orderRisks(risks));
}

/** Git commands a clean-state fix may suggest that put a user's files aside or throw changes away. */
const SETS_ASIDE = /\bgit (stash|checkout|reset|restore|clean)\b/g;

/**
 * A clean-state fix that never contradicts what the user said: when the human's own words speak of a
 * command the fix suggests (`stash`, `checkout`, `reset`, `restore`, `clean` — whatever the language
 * around it), the fix names that rule instead of the command and leaves committing (or asking) to
 * the next session.
 */
export function fixWithinRules(fix: string, snapshot: WorkbenchSnapshot): string {
  const verbs = new Set([...fix.matchAll(SETS_ASIDE)].map((m) => m[1] as string));
  if (!verbs.size) return fix;
  const said = [...(snapshot.session?.humanMessages ?? []), ...(snapshot.session?.rejectionReasons ?? []).map((r) => ({ text: r.reason, line: r.line ?? 0 }))]
    .filter((m) => [...verbs].some((v) => new RegExp(`\\b${v}`, 'i').test(m.text)))
    .sort((a, b) => b.line - a.line)[0];
  if (!said) return fix;
  const words = said.text.replace(/\s+/g, ' ').trim();
  const quoted = words.length > 200 ? `${words.slice(0, 199)}…` : words;
  return `commit the changes or ask the user first — no \`git ${[...verbs].join('` / `git ')}\`: the user spoke of it (L${said.line}): "${quoted.replace(/"/g, "'")}".`;
}
