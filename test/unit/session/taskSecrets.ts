import { promises as fs } from 'node:fs';
import * as path from 'node:path';
import { fake } from '../redact/corpus';
import type { TaskFixture } from './vscodeAgentFixture';
import { placeTasks, taskDir } from './vscodeAgentFixture';

/** Credential-shaped values, built at run time (never whole in a committed file). */
export const stripeKey = (seed = 601): string => ['sk', 'live', fake(seed, 24)].join('_');
export const githubToken = (seed = 602): string => ['gh', 'p_', fake(seed, 36)].join('');
export const openaiKey = (seed = 603): string => ['sk-', 'proj-', fake(seed, 48)].join('');

type Msg = Record<string, unknown>;

/** Reads a task file, lets `edit` change its array, and writes it back (on one line, or indented as `pretty`). */
export async function editTaskFile(file: string, edit: (v: Msg[]) => void, pretty = false): Promise<void> {
  const v = JSON.parse(await fs.readFile(file, 'utf8')) as Msg[];
  edit(v);
  await fs.writeFile(file, pretty ? `${JSON.stringify(v, null, 2)}\n` : JSON.stringify(v));
}

/**
 * A placed fixture task in which the agent ran `cat .env` (the output holding a Stripe key) after
 * its first command, in the chat (one line) and in the api history (indented, so messages sit on
 * their own lines). Returns the storage root, the task folder and the key.
 */
export async function taskWithCatEnv(name: TaskFixture, cwd: string, ageMs = 3_600_000): Promise<{ root: string; dir: string; key: string }> {
  const root = await placeTasks(name, cwd);
  const dir = taskDir(root, name);
  const key = stripeKey();
  const ts = name.startsWith('cline') ? 1764580004500 : 1764300004500;
  await editTaskFile(path.join(dir, 'ui_messages.json'), (v) => {
    v.splice(5, 0, { ts, type: 'say', say: 'command', text: 'cat .env' }, { ts: ts + 100, type: 'say', say: 'command_output', text: `PORT=3000\nSTRIPE_SECRET_KEY=${key}\n` });
  });
  await editTaskFile(
    path.join(dir, 'api_conversation_history.json'),
    (v) => {
      v.splice(
        3,
        0,
        { role: 'assistant', content: [{ type: 'tool_use', id: 'toolu_env', name: 'execute_command', input: { command: 'cat .env', requires_approval: false } }], ts },
        { role: 'user', content: [{ type: 'tool_result', tool_use_id: 'toolu_env', content: `[execute_command for 'cat .env'] Result:\nCommand executed successfully (exit code 0).\nOutput:\nPORT=3000\nSTRIPE_SECRET_KEY=${key}` }], ts: ts + 100 },
      );
    },
    true,
  );
  const t = new Date(Date.now() - ageMs);
  for (const f of ['ui_messages.json', 'api_conversation_history.json']) await fs.utimes(path.join(dir, f), t, t);
  return { root, dir, key };
}
