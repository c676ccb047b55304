import { promises as fs } from 'node:fs';
import * as path from 'node:path';
import { claudeProjectSlug } from '../../../src/core/context/discovery';
import { makeTempDir } from '../helpers/fixtures';

/** The session id of {@link claudeTranscript}'s session. */
export const TRANSCRIPT_SESSION = '9a1b2c3d-4e5f-4a6b-8c7d-0e1f2a3b4c5d';

/**
 * A Claude Code transcript (the format of the shared fixtures) in which `text` is a request, a failing
 * command's output and the closing words, and `command` the command the agent ran.
 */
export function claudeTranscript(cwd: string, text: string, command: string): string {
  const base = { isSidechain: false, userType: 'external', cwd, sessionId: TRANSCRIPT_SESSION, version: '2.1.126', gitBranch: 'feat/x' };
  let n = 0;
  const line = (o: object): string => {
    n++;
    return JSON.stringify({ ...base, uuid: `00000000-0000-4000-8000-${String(n).padStart(12, '0')}`, timestamp: `2026-11-20T09:00:${String(n).padStart(2, '0')}.000Z`, ...o });
  };
  const assistant = (content: unknown[]): string => line({ type: 'assistant', message: { model: 'claude-sonnet-4-5-20250929', id: `msg_0${n}`, type: 'message', role: 'assistant', content, stop_reason: null, usage: { input_tokens: 4, output_tokens: 20 } } });
  return [
    line({ type: 'user', message: { role: 'user', content: `Deploy it. The settings: ${text}` } }),
    assistant([{ type: 'tool_use', id: 'toolu_01Aa', name: 'Bash', input: { command, description: 'deploy' } }]),
    line({ type: 'user', message: { role: 'user', content: [{ tool_use_id: 'toolu_01Aa', type: 'tool_result', content: `Exit code 1\nerror: ${text}`, is_error: true }] } }),
    assistant([{ type: 'text', text: `The deploy failed. What I saw: ${text}\n\nQuestion: should I rotate ${text}?` }]),
  ].join('\n') + '\n';
}

/** A Claude Code home (for CLAUDE_CONFIG_DIR) holding {@link claudeTranscript} for the repository at `cwd`. */
export async function claudeHome(cwd: string, text: string, command: string): Promise<string> {
  const home = await makeTempDir('handoff-redact-agent-');
  const dir = path.join(home, 'projects', claudeProjectSlug(cwd));
  await fs.mkdir(dir, { recursive: true });
  await fs.writeFile(path.join(dir, `${TRANSCRIPT_SESSION}.jsonl`), claudeTranscript(cwd, text, command));
  return home;
}
