import { listPackets } from '../../core/registry/registry';
import { freshnessOf, readFreshnessNow } from '../../core/workflow/freshness';
import { outputDirOf } from '../../core/workflow/paths';
import { createGitClient } from '../../git/gitClient';
import { DIR_FLAGS, JSON_FLAG, optionsOf, printDiagnostics, workspaceDirOf } from '../common';
import type { CommandSpec } from '../types';
import { EXIT_OK } from '../types';

/** `handoff list`: packets of the output dir, active first per branch + topic, with freshness. */
export const listCommand: CommandSpec = {
  name: 'list',
  summary: 'list handoff packets: active ones with freshness (--all adds superseded and archived)',
  usage: 'list [--dir DIR] [--output-dir DIR] [--all] [--json]',
  flags: [...DIR_FLAGS, { name: 'all', type: 'boolean', help: 'include superseded and archived packets' }, JSON_FLAG],
  async run({ flags, io }) {
    const workspaceDir = await workspaceDirOf(flags, io);
    const options = optionsOf(flags);
    const outputDir = outputDirOf(workspaceDir, options);
    const { packets: all, diagnostics } = await listPackets(outputDir);
    printDiagnostics(io, diagnostics);
    const packets = flags['all'] ? all : all.filter((p) => p.packet.status === 'active');
    // Superseded and archived packets are history: their freshness is not a call to action.
    const active = packets.filter((p) => p.packet.status === 'active');
    const git = createGitClient(workspaceDir);
    const { now } = await readFreshnessNow(workspaceDir, options, git);
    const fresh = new Map((await freshnessOf(active.map((p) => p.packet), now, git)).map((f, i) => [active[i], f]));
    const rows = packets.map((p) => ({
      id: p.packet.packet_id,
      status: p.packet.status,
      branch: p.packet.branch,
      topic: p.packet.topic,
      head_commit: p.packet.head_commit,
      generated_at: p.packet.generated_at,
      superseded_by: p.packet.superseded_by,
      dir: p.dir,
      freshness: fresh.get(p),
    }));
    if (flags['json']) {
      io.stdout(`${JSON.stringify(rows, null, 2)}\n`);
      return EXIT_OK;
    }
    if (!rows.length) {
      io.stdout(`no ${flags['all'] ? '' : 'active '}packets in ${outputDir}${flags['all'] ? '' : ' (try --all)'}\n`);
      return EXIT_OK;
    }
    for (const r of rows) {
      const state = r.status === 'superseded' ? `superseded by ${r.superseded_by ?? '?'}` : r.status;
      const fresh = r.freshness ? (r.freshness.stale ? `stale: ${r.freshness.reasons.join(' ')}` : 'fresh') : '';
      io.stdout(`${r.id}  ${state}  ${r.branch ?? '(no branch)'} · ${r.topic}  ${r.head_commit?.slice(0, 7) ?? '-------'}  ${r.generated_at}${fresh ? `  ${fresh}` : ''}\n`);
    }
    return EXIT_OK;
  },
};
