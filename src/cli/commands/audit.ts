import type { Audit } from '../../core/packet/audit';
import { redact } from '../../core/redact';
import { auditWithFiles } from '../../core/workflow/audit';
import { createGitClient } from '../../git/gitClient';
import { DIR_FLAGS, JSON_FLAG, optionsOf, workspaceDirOf } from '../common';
import { currentOrExplain } from '../current';
import type { CommandSpec } from '../types';
import { EXIT_OK, EXIT_REFUSED } from '../types';

const MARK = { pass: 'pass', fail: 'FAIL', 'n/a': 'n/a ' } as const;

/** The audit for people: one line per probe, the fix under each failing one, the score last. */
export function formatAudit(a: Audit, packetId: string): string {
  const lines = [`Completeness of handoff ${packetId}: what a fresh agent needs from it`];
  for (const p of a.probes) {
    lines.push(`  ${MARK[p.status]}  ${p.title} — ${p.detail}`);
    if (p.status === 'fail') lines.push(`        fix: ${p.fix}`);
  }
  lines.push(`Score: ${a.passed}/${a.applicable} probes pass${a.applicable < a.probes.length ? ` (${a.probes.length - a.applicable} not applicable)` : ''}.`);
  return `${lines.join('\n')}\n`;
}

/** `handoff audit`: the completeness checklist of the current packet. Informational: exits 0. */
export const auditCommand: CommandSpec = {
  name: 'audit',
  summary: 'check the active packet for what a fresh agent needs (each probe pass/fail with the fix)',
  usage: 'audit [--dir DIR] [--output-dir DIR] [--json]',
  flags: [...DIR_FLAGS, JSON_FLAG],
  async run({ flags, io }) {
    const workspaceDir = await workspaceDirOf(flags, io);
    const current = await currentOrExplain(workspaceDir, optionsOf(flags), io);
    if (!current) return EXIT_REFUSED;
    const facts = await createGitClient(workspaceDir).facts().catch(() => null);
    const { packet } = current.stored;
    const audit = await auditWithFiles(packet, facts?.root ?? workspaceDir, current.freshness);
    if (flags['json']) io.stdout(redact(`${JSON.stringify({ packetId: packet.packet_id, score: audit.applicable ? audit.passed / audit.applicable : 1, ...audit }, null, 2)}\n`));
    else io.stdout(redact(formatAudit(audit, packet.packet_id)));
    return EXIT_OK;
  },
};
