import * as path from 'node:path';
import { acksForRisks } from '../acks';
import type { Diagnostic } from '../diagnostics';
import type { GitClient } from '../gitPort';
import type { HandoffOptions } from '../options';
import { framed, handoffTrust, promptFraming, type PacketTrust } from '../registry/trust';
import { renderForAgent, type PromptAgent } from '../render/forAgent';
import { renderRestartPrompt, type PromptDoor } from '../render/prompt';
import { renderStaleNotice } from '../render/sessionStart';
import { redact } from '../redact';
import { currentPacket } from './freshness';
import { outputDirOf } from './paths';

/**
 * The packet a restart should use (this branch + topic's active packet, else the newest) with its
 * freshness and what it may be treated as (`handoffTrust`, the one trust rule: ours and fresh, stale, or
 * not written here).
 * The one resolver `handoff prompt`, `handoff show`, the MCP server and VS Code's chat tool share.
 */
export async function currentWithTrust(workspaceDir: string, options: HandoffOptions, git: GitClient | null) {
  const { current, diagnostics, now } = await currentPacket(workspaceDir, options, git);
  if (!current) return { current: null, diagnostics };
  const trust: PacketTrust = await handoffTrust({ stored: current.stored, freshness: current.freshness, facts: now?.facts ?? null });
  return { current: { ...current, trust }, diagnostics };
}

export type CurrentWithTrust = NonNullable<Awaited<ReturnType<typeof currentWithTrust>>['current']>;

/**
 * The restart prompt of the current packet, under the trust rule: only a packet ours and fresh is a
 * prompt to act on; a stale one opens with why and asks for a read-only review; one not written here
 * opens with NOT_WRITTEN_HERE and gets no first-turn setting. `target` renders it for that agent;
 * `door` says in one line which way it reached the session.
 */
export async function restartPromptOf(
  workspaceDir: string,
  options: HandoffOptions,
  current: CurrentWithTrust,
  opts: { target?: PromptAgent; door?: PromptDoor } = {},
): Promise<{ text: string; diagnostics: Diagnostic[] }> {
  // Risks a person acknowledged (in the editor's Open Risks view) are marked as such.
  const { acks, diagnostics } = await acksForRisks(outputDirOf(workspaceDir, options), current.stored.dir, current.stored.packet.open_risks);
  const frame = promptFraming(current.trust, current.freshness, options.firstTurn);
  const extra = {
    ...(frame.firstTurn ? { firstTurn: frame.firstTurn } : {}),
    ...(opts.door ? { door: opts.door } : {}),
    freshness: frame.freshness,
    acknowledged: acks.map((a) => ({ id: a.risk_id, by: a.by, at: a.at })),
  };
  const body = opts.target === undefined
    ? renderRestartPrompt(current.stored.packet, extra)
    : renderForAgent(current.stored.packet, opts.target, extra, { packetDir: path.relative(workspaceDir, current.stored.dir) || '.' });
  return { text: framed(frame.header, body), diagnostics };
}

/**
 * What a new session is handed, by the SessionStart rule: the restart prompt only of a packet ours and
 * fresh; of a stale one a notice with the reasons; of one not written here a notice and nothing of it.
 */
export async function handoverOf(
  workspaceDir: string,
  options: HandoffOptions,
  current: CurrentWithTrust,
  opts: { target?: PromptAgent; door?: PromptDoor } = {},
): Promise<{ text: string; diagnostics: Diagnostic[] }> {
  const { trust } = current;
  if (trust.kind === 'foreign') return { text: `${redact(trust.notice)}\n`, diagnostics: [] };
  if (trust.kind === 'stale') return { text: `${renderStaleNotice(current.stored.packet, trust.reasons)}\n`, diagnostics: [] };
  return restartPromptOf(workspaceDir, options, current, opts);
}
