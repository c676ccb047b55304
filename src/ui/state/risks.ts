import * as path from 'node:path';
import { resolveInside } from '../../core/safePath';
import type { Ack } from '../../core/acks';
import { orderBySeverity } from '../../core/packet/severity';
import type { Risk } from '../../core/packet/schema';
import type { UiRisk } from './types';

/**
 * Merges the active packet's risks with the live ones (what a packet generated now would carry:
 * red tests, clean-state findings, verification and review findings). A risk in both is shown once,
 * as a packet risk; acknowledgements attach by risk id. No vscode import: unit-tested in plain Node.
 */
export function mergeRisks(
  packetRisks: readonly Risk[],
  liveRisks: readonly Risk[],
  acks: ReadonlyMap<string, Ack>,
  locate: (risk: Risk) => UiRisk['location'],
): UiRisk[] {
  const seen = new Set<string>();
  const out: UiRisk[] = [];
  const add = (risk: Risk, origin: UiRisk['origin']) => {
    const key = `${risk.id}\u0000${risk.detail}`;
    if (seen.has(risk.id) || seen.has(key)) return;
    seen.add(risk.id);
    seen.add(key);
    out.push({ risk, origin, ack: acks.get(risk.id) ?? null, location: locate(risk) });
  };
  for (const r of packetRisks) add(r, 'packet');
  for (const r of liveRisks) add(r, 'live');
  // Most severe first; the original order breaks ties so the list does not jump between refreshes.
  return orderBySeverity(out, (r) => r.risk.severity);
}

/** Unacknowledged `block`/`high` risks: the Open Risks badge. */
export function badgeCount(risks: readonly UiRisk[]): number {
  return risks.filter((r) => !r.ack && (r.risk.severity === 'block' || r.risk.severity === 'high')).length;
}

/**
 * Where a risk can be opened: the first of its paths (relative to the repository root), else its
 * source artifact in the workbench, at the line whose text mentions the risk. `texts` holds the
 * artifacts read for this refresh (absolute path → content); paths escaping the folder are refused.
 */
export function locateRisk(
  risk: Risk,
  dirs: RiskDirs,
  texts: ReadonlyMap<string, string>,
): UiRisk['location'] {
  const first = risk.paths?.[0];
  if (first) {
    const file = resolveInside(dirs.folder, path.resolve(dirs.repoRoot ?? dirs.folder, first));
    if (file) return { file };
  }
  const file = sourceFileOf(risk, dirs);
  if (!file) return null;
  // A source that names its line (`feedback_record.jsonl:12`, a masked credential) is opened there.
  const named = /:(\d+)$/.exec(risk.source);
  if (named) return { file, line: Number(named[1]) };
  const text = texts.get(file);
  if (text === undefined) return { file };
  const line = findLine(text, risk);
  return line === null ? { file } : { file, line };
}

/** The folders a risk's paths and source resolve against. */
export interface RiskDirs {
  folder: string;
  repoRoot: string | null;
  workbenchDir: string;
}

/**
 * The artifact a risk comes from (`agent_state.json#open_risks` → `<workbench>/agent_state.json`),
 * when it is a readable text artifact inside the folder; else null.
 */
export function sourceFileOf(risk: Risk, dirs: RiskDirs): string | null {
  const source = risk.source.split(/[#:]/)[0] ?? '';
  if (!/\.(json|jsonl|md|txt)$/i.test(source)) return null;
  return resolveInside(dirs.folder, path.resolve(dirs.workbenchDir, source));
}

/** The 1-based line that mentions the risk (its detail, or its id's tail), or null. */
export function findLine(text: string, risk: Risk): number | null {
  const needles = [risk.detail.slice(0, 60), risk.id.split(':').pop() ?? '']
    .map((n) => JSON.stringify(n).slice(1, -1).trim())
    .filter((n) => n.length >= 3);
  const lines = text.split('\n');
  for (const needle of needles) {
    const i = lines.findIndex((l) => l.includes(needle));
    if (i >= 0) return i + 1;
  }
  return null;
}
