import { promises as fs } from 'node:fs';
import * as path from 'node:path';
import { loadWorkbench } from '../../../src/core/artifacts/loader';
import { DEFAULT_OPTIONS } from '../../../src/core/options';
import { buildPacket } from '../../../src/core/packet/build';
import type { Packet } from '../../../src/core/packet/schema';
import { mergeSession } from '../../../src/core/session/merge';
import type { SessionCommand, SessionFacts } from '../../../src/core/session/model';
import { makeTempDir } from './fixtures';

/** Session facts built by hand, and the packet a correct reader's facts give (the readers have their own tests). */

let ordinal = 0;
export function cmd(command: string, exit: number | null, extra: Partial<SessionCommand> = {}): SessionCommand {
  return {
    ordinal: ordinal++, id: `c${ordinal}`, command, exit_code: exit, timed_out: false, unfinished: null, rejected: false,
    started_at: '2026-11-20T09:00:00.000Z', duration_ms: 10, stdout_tail: exit ? 'Error: it broke' : 'ok', stderr_tail: null,
    error: null, agent_note: null, user_reply: null, line: 10 + ordinal, ...extra,
  };
}

export function facts(dir: string, over: Partial<SessionFacts> = {}): SessionFacts {
  const commands = over.commands ?? [];
  return {
    agent: 'claude-code', file: path.join(dir, 's.jsonl'), sessionId: 'abcdef12-0000', cwd: dir, branch: 'feat/s',
    firstUserRequest: 'Build the thing', latestUserRequest: 'Build the thing', userRequests: ['Build the thing'],
    commands, commandCount: commands.length, rejected: [], rejectedCount: 0, filesTouched: [], todos: null,
    lastAssistantMessage: null, apiErrorLines: 0, revision: 1, badLines: [], ...over,
  };
}

export async function packetFor(f: (dir: string) => SessionFacts, files: Record<string, unknown> = {}, feedbackK = 5): Promise<Packet> {
  const dir = await makeTempDir('handoff-judgement-');
  for (const [name, content] of Object.entries(files)) await fs.writeFile(path.join(dir, name), typeof content === 'string' ? content : JSON.stringify(content));
  const snapshot = mergeSession(await loadWorkbench(dir, { feedbackK, maxCommands: 30 }), f(dir), { workspaceDir: dir, feedbackK, maxCommands: 30 });
  const r = buildPacket({ snapshot, options: DEFAULT_OPTIONS, packetId: 'p', git: null, clean: null, allowDirty: false, context: null });
  if (!r.ok) throw new Error(r.reason);
  return r.packet;
}

export const closing = (text: string, line = 90) => ({ closing: { text, line }, endedOnClosing: true, lastAssistantMessage: text });

