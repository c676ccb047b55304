import { spawn, spawnSync } from 'node:child_process';
import * as path from 'node:path';
import { makeTempDir, repoRoot } from './fixtures';
import { makeRepo, type TempRepo } from './gitRepo';

export interface CliResult {
  code: number | null;
  stdout: string;
  stderr: string;
}

const main = (): string => path.join(repoRoot(), 'out', 'src', 'cli', 'main.js');

/** Runs the transpiled `handoff` CLI as a real process (after `node esbuild.mjs --tests`). */
export function handoff(args: string[], opts: { cwd?: string; env?: NodeJS.ProcessEnv; input?: string; timeoutMs?: number } = {}): CliResult {
  const r = spawnSync(process.execPath, [main(), ...args], {
    cwd: opts.cwd ?? repoRoot(),
    env: opts.env ?? process.env,
    input: opts.input ?? '',
    encoding: 'utf8',
    maxBuffer: 64 * 1024 * 1024,
    ...(opts.timeoutMs ? { timeout: opts.timeoutMs, killSignal: 'SIGKILL' as const } : {}),
  });
  return { code: r.status, stdout: r.stdout, stderr: r.stderr };
}

/**
 * A user of their own: a temporary home with no agents configured and a state folder (so a ledger
 * key) of their own. The environment to run `handoff` as that user.
 */
export async function otherUser(): Promise<NodeJS.ProcessEnv> {
  const home = await makeTempDir('handoff-home-');
  return { ...process.env, HOME: home, HANDOFF_STATE_DIR: path.join(home, 'state'), CLAUDE_CONFIG_DIR: path.join(home, '.claude'), CODEX_HOME: path.join(home, '.codex') };
}

/** What the SessionStart hook (source startup) hands a new session in `cwd`, run with `env`. */
export function sessionStartContext(cwd: string, env: NodeJS.ProcessEnv): string {
  const out = handoff(['hook'], { env, input: JSON.stringify({ session_id: 'c0ffee-1', cwd, hook_event_name: 'SessionStart', source: 'startup' }) });
  if (out.code !== 0) throw new Error(`handoff hook exited ${out.code}: ${out.stderr}`);
  return (JSON.parse(out.stdout) as { hookSpecificOutput: { additionalContext: string } }).hookSpecificOutput.additionalContext;
}

/** The same, without blocking: for concurrency tests. */
export function handoffAsync(args: string[], cwd: string): Promise<CliResult> {
  return new Promise((resolve) => {
    const child = spawn(process.execPath, [main(), ...args], { cwd, stdio: ['ignore', 'pipe', 'pipe'] });
    let stdout = '';
    let stderr = '';
    child.stdout.on('data', (d: Buffer) => (stdout += d.toString()));
    child.stderr.on('data', (d: Buffer) => (stderr += d.toString()));
    child.on('close', (code) => resolve({ code, stdout, stderr }));
  });
}

/**
 * A committed, clean workbench on branch `feat/refund` (forked from main): agent state with a next
 * action, a consistent board and a green test run.
 */
export function workbenchRepo(): TempRepo {
  const r = makeRepo({ files: { 'src/refund.py': 'def refund(amount):\n    return amount\n', '.gitignore': 'debug.log\n' } });
  r.git('checkout', '-q', '-b', 'feat/refund');
  r.write('agent_state.json', JSON.stringify({
    schema_version: 1, session_id: 'sess-a', branch: 'feat/refund', active_task_id: 'T-1',
    touched_files: ['src/refund.py'], next_action: 'Handle partial refunds in src/refund.py',
  }));
  r.write('feature_list.json', JSON.stringify({ active: 'T-1', features: [{ id: 'T-1', status: 'in_progress', done_when: 'pytest' }] }));
  r.write('feedback_record.jsonl', `${JSON.stringify({ command: ['pytest'], exit_code: 0, started_at: 1764400000 })}\n`);
  r.write('src/refund.py', 'def refund(amount):\n    return round(amount, 2)\n');
  r.commit('refund work');
  return r;
}

/** Commits a change to source files only (never the tool's outputs). */
export function commitSource(r: TempRepo, file: string, content: string, message: string): string {
  r.write(file, content);
  r.git('add', file);
  r.git('commit', '-q', '-m', message);
  return r.head();
}
