import type { WorkbenchSnapshot } from '../artifacts/snapshot';
import { textOf } from './risks';

import type { Source } from '../source';

export interface Decision {
  text: string;
  status: 'made' | 'rejected';
  source?: Source;
}

/**
 * Decisions made and rejected, so the next session does not retry a rejected path. Plain strings
 * starting with `rejected:` (or `rejected -`) count as rejected.
 */
export function collectDecisions(snapshot: WorkbenchSnapshot): Decision[] {
  const out: Decision[] = [];
  // Decisions of the session (declined commands) name their file and line; agent_state.json's need no
  // source of their own (`sources.decisions` says it).
  const fromSession = snapshot.origins?.['decisions'] !== undefined && snapshot.origins['decisions'] !== 'agent_state.json';
  for (const d of snapshot.agentState?.decisions ?? []) {
    if (typeof d === 'string') {
      const m = /^\s*rejected\s*[:\-–]\s*(.*)/is.exec(d);
      const text = (m ? m[1]! : d).trim();
      if (text) out.push({ text, status: m ? 'rejected' : 'made' });
      continue;
    }
    const base = (d.decision ?? d.text ?? '').trim();
    if (!base) continue;
    const text = d.reason?.trim() ? `${base} — ${d.reason.trim()}` : base;
    // Stryker disable next-line StringLiteral: a missing status reads as made whatever stands in for it, unless that starts with "reject"
    const rejected = /^reject/i.test(d.status ?? '');
    const file = typeof d['file'] === 'string' ? d['file'] : null;
    const line = typeof d['line'] === 'number' ? d['line'] : null;
    const sessionFile = file ?? snapshot.session?.file;
    const what = typeof d['what'] === 'string' ? d['what'] : 'declined command';
    const source: Source | null = fromSession && sessionFile ? { file: sessionFile, line, what } : null;
    out.push({ text, status: rejected ? 'rejected' : 'made', ...(source ? { source } : {}) });
  }
  return out;
}

/** Assumptions the next session must check: never marked verified by the generator. */
export function collectAssumptions(snapshot: WorkbenchSnapshot): { text: string; verified: false }[] {
  return (snapshot.agentState?.assumptions ?? []).map((a) => textOf(a)).filter(Boolean).map((text) => ({ text, verified: false as const }));
}

/** Questions the agent left for a human, as plain text. */
export function collectQuestions(snapshot: WorkbenchSnapshot): string[] {
  return (snapshot.agentState?.questions_for_human ?? []).map((q) => textOf(q)).filter(Boolean);
}
