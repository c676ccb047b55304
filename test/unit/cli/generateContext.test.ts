import * as assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { promises as fs } from 'node:fs';
import * as path from 'node:path';
import { claudeProjectSlug } from '../../../src/core/context/discovery';
import { PacketSchema } from '../../../src/core/packet/schema';
import { copyFixture, fixturePath, makeTempDir, repoRoot } from '../helpers/fixtures';
import { tempRepos } from '../helpers/gitRepo';
import { workbenchRepo } from '../helpers/workbenchRepo';

/** The transpiled CLI as a real process, with a chosen Claude Code home. */
function generate(dir: string, claudeDir: string) {
  const main = path.join(repoRoot(), 'out', 'src', 'cli', 'main.js');
  const r = spawnSync(process.execPath, [main, 'generate', '--dir', dir, '--json'], {
    encoding: 'utf8',
    env: { ...process.env, CLAUDE_CONFIG_DIR: claudeDir, CODEX_HOME: path.join(claudeDir, 'no-codex') },
  });
  return { code: r.status, stdout: r.stdout, stderr: r.stderr };
}

/** A Claude Code home holding the fixture transcript, rewritten to run in `dir`. */
async function claudeHomeFor(dir: string): Promise<string> {
  const claudeDir = await makeTempDir('claude-home-');
  const transcript = (await fs.readFile(fixturePath('agents/claude-session.jsonl'), 'utf8')).replaceAll('/home/dev/refund-service', dir);
  const project = path.join(claudeDir, 'projects', claudeProjectSlug(dir));
  await fs.mkdir(project, { recursive: true });
  await fs.writeFile(path.join(project, 'session.jsonl'), transcript);
  return claudeDir;
}

describe('handoff generate records the context reading at generation', () => {
  const make = tempRepos(workbenchRepo);

  it('writes nothing new on unchanged inputs when the agent and its transcript name the session differently', async () => {
    // agent_state.json says sess-a; the transcript's session id is a UUID. The packet takes sess-a,
    // so sess-a's own first packet must not become the base of the second run.
    const r = make();
    const claudeDir = await claudeHomeFor(r.dir);
    const first = generate(r.dir, claudeDir);
    assert.equal(first.code, 0, first.stderr);
    assert.equal(JSON.parse(first.stdout).kind, 'written');
    const second = generate(r.dir, claudeDir);
    assert.equal(second.code, 0, second.stderr);
    assert.equal(JSON.parse(second.stdout).kind, 'unchanged', second.stdout);
  });

  it('reads the Claude Code session of the folder into packet.context', async () => {
    const dir = await copyFixture('workbench-refund');
    const claudeDir = await claudeHomeFor(dir);

    const r = generate(dir, claudeDir);
    assert.equal(r.code, 0, r.stderr);
    const packet = PacketSchema.parse(JSON.parse(await fs.readFile(JSON.parse(r.stdout).json, 'utf8')));
    assert.ok(packet.context?.known, JSON.stringify(packet.context));
    assert.equal(packet.context.usedTokens, 99_212);
    assert.equal(packet.context.windowTokens, 200_000);
    assert.equal(packet.context.source, 'claude');
  });

  it('says why when no session is found, instead of a number', async () => {
    const dir = await copyFixture('workbench-refund');
    const r = generate(dir, await makeTempDir('claude-home-'));
    assert.equal(r.code, 0, r.stderr);
    const packet = PacketSchema.parse(JSON.parse(await fs.readFile(JSON.parse(r.stdout).json, 'utf8')));
    assert.equal(packet.context?.known, false);
    assert.ok(packet.context && !packet.context.known && packet.context.reason.length > 0);
  });
});
