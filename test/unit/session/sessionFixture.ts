import { promises as fs } from 'node:fs';
import * as path from 'node:path';
import { claudeProjectSlug } from '../../../src/core/context/discovery';
import { fixturePath, makeTempDir } from '../helpers/fixtures';

export type TranscriptFixture = 'claude-tools' | 'codex-tools' | 'claude-tasks' | 'claude-bigline' | 'codex-2026';

/** The fixture's text with `__CWD__` replaced by `cwd` (JSON-escaped, as it sits inside strings). */
export async function fixtureText(name: TranscriptFixture, cwd: string): Promise<string> {
  const raw = await fs.readFile(fixturePath('transcripts', `${name}.jsonl`), 'utf8');
  return raw.split('__CWD__').join(JSON.stringify(cwd).slice(1, -1));
}

/** The expected facts with `__CWD__` replaced. */
export async function expectedFor(name: TranscriptFixture, cwd: string): Promise<Record<string, unknown>> {
  const raw = await fs.readFile(fixturePath('transcripts', `${name}.expected.json`), 'utf8');
  return JSON.parse(raw.split('__CWD__').join(JSON.stringify(cwd).slice(1, -1))) as Record<string, unknown>;
}

/**
 * Places a copy of a fixture session where the agent keeps it for `cwd`: Claude Code under
 * `<config>/projects/<slug>/<id>.jsonl`, Codex under `<home>/sessions/YYYY/MM/DD/rollout-….jsonl`
 * (today's folder, so discovery's recent-days window finds it). Returns the agent home and the file.
 */
export async function placeSession(name: TranscriptFixture, cwd: string, home?: string): Promise<{ home: string; file: string }> {
  const root = home ?? (await makeTempDir('handoff-agent-'));
  const text = await fixtureText(name, cwd);
  let file: string;
  if (name.startsWith('claude-')) {
    const dir = path.join(root, 'projects', claudeProjectSlug(cwd));
    await fs.mkdir(dir, { recursive: true });
    file = path.join(dir, '7f3e2a91-4c8b-4d2e-9a1f-3b5c6d7e8f90.jsonl');
  } else {
    const now = new Date();
    const pad = (n: number) => String(n).padStart(2, '0');
    const dir = path.join(root, 'sessions', String(now.getFullYear()), pad(now.getMonth() + 1), pad(now.getDate()));
    await fs.mkdir(dir, { recursive: true });
    file = path.join(dir, 'rollout-2026-11-20T09-00-00-019aa3f1-7c2e-7b40-9d1a-5e6f7a8b9c0d.jsonl');
  }
  await fs.writeFile(file, text);
  return { home: root, file };
}
