import { acksForRisks } from '../../core/acks';
import { collectRisks } from '../../core/packet/risks';
import type { Risk } from '../../core/packet/schema';
import { orderRisks } from '../../core/packet/severity';
import { DIR_FLAGS, JSON_FLAG, printDiagnostics, workspaceDirOf } from '../common';
import { SESSION_FLAGS, sessionForCli } from '../context';
import type { CommandSpec } from '../types';
import { EXIT_OK } from '../types';
import { readState } from './statusParts';

/**
 * `handoff risks`: the open risks, most severe first — the active packet's (unless it was not written
 * here: nothing of it is repeated) and the workbench's live ones (red verification, blockers, clean-state
 * findings, credentials), each once, with who acknowledged it. What the editor's Open Risks view shows.
 */
export const risksCommand: CommandSpec = {
  name: 'risks',
  summary: 'the open risks of the workbench and its active packet, most severe first',
  usage: 'risks [--dir DIR] [--output-dir DIR] [--json]',
  flags: [...DIR_FLAGS, JSON_FLAG, ...SESSION_FLAGS],
  async run({ flags, io }) {
    const workspaceDir = await workspaceDirOf(flags, io);
    const state = await readState(workspaceDir, flags, await sessionForCli(workspaceDir, flags, io.env));
    const fromPacket = state.shown && state.trust && state.trust.kind !== 'foreign' ? state.shown.packet.open_risks : [];
    const live = collectRisks(state.snapshot, state.clean ? { findings: state.clean.findings } : null);
    const seen = new Set<string>();
    const risks: Risk[] = orderRisks([...fromPacket, ...live].filter((r) => !seen.has(r.id) && (seen.add(r.id), true)));
    const { acks, diagnostics } = await acksForRisks(state.outputDir, state.shown?.dir ?? null, risks);
    printDiagnostics(io, [...state.diagnostics, ...diagnostics]);
    const ackOf = new Map(acks.map((a) => [a.risk_id, a]));
    if (flags['json']) {
      io.stdout(`${JSON.stringify({ risks: risks.map((r) => ({ ...r, acknowledged: ackOf.has(r.id) ? { by: ackOf.get(r.id)!.by, at: ackOf.get(r.id)!.at } : null })) }, null, 2)}\n`);
      return EXIT_OK;
    }
    if (!risks.length) {
      io.stdout('No open risks.\n');
      return EXIT_OK;
    }
    for (const r of risks) {
      const ack = ackOf.get(r.id);
      io.stdout(`[${r.severity}] ${r.id}: ${r.detail}${r.verify ? ` — verify with: ${r.verify}` : ''}${ack ? ` (acknowledged by ${ack.by} at ${ack.at})` : ''}\n`);
    }
    return EXIT_OK;
  },
};
