import * as assert from 'node:assert/strict';
import { promises as fs } from 'node:fs';
import * as path from 'node:path';
import { makeTempDir } from '../helpers/fixtures';
import { makeRepo } from '../helpers/gitRepo';
import { handoff } from '../helpers/workbenchRepo';
import { taskOptions } from '../../../src/cli/context';
import type { Packet } from '../../../src/core/packet/schema';
import { placeKiloDb } from '../session/kiloDbFixture';
import { placeTasks, TASK_IDS } from '../session/vscodeAgentFixture';

describe('handoff status / generate with a Cline or Roo Code task', () => {
  it('finds a Cline task in the usual VS Code user-data location and a Roo task through --roo-dir, then writes the packet from the newest', async () => {
    const repo = makeRepo({ files: { 'README.md': '# app\n' } });
    const dir = await fs.realpath(repo.dir);
    const home = await makeTempDir('handoff-cli-home-');
    const env = { ...process.env, HOME: home, XDG_CONFIG_HOME: '', CLAUDE_CONFIG_DIR: path.join(home, 'claude'), CODEX_HOME: path.join(home, 'codex') };
    await placeTasks('cline-xml', dir, path.join(home, '.config', 'Code', 'User', 'globalStorage'));
    const cline = handoff(['status', '--dir', dir], { env });
    assert.equal(cline.code, 0, cline.stderr);
    assert.match(cline.stdout, /27\.2 % — 34,800 of 128,000 tokens · Cline · compacts at 76\.6 %/);

    const rooRoot = await placeTasks('roo-condense', dir);
    // The Roo task is the newest: its files were written last.
    const later = new Date(Date.now() + 60_000);
    const ui = path.join(rooRoot, 'rooveterinaryinc.roo-cline', 'tasks', TASK_IDS['roo-condense'], 'ui_messages.json');
    await fs.utimes(ui, later, later);
    const args = ['--dir', dir, '--roo-dir', path.join(rooRoot, 'rooveterinaryinc.roo-cline'), '--roo-model', 'claude-sonnet-4-5'];
    const status = handoff(['status', ...args], { env });
    assert.match(status.stdout, /21\.9 % — 42,000 of 200,000 tokens · Roo Code · compacts at 89\.6 %/);
    assert.match(status.stdout, /also: Cline 27\.2 %/);
    const gen = handoff(['generate', '--allow-dirty', ...args], { env });
    assert.equal(gen.code, 0, gen.stderr);
    const packet = JSON.parse(await fs.readFile(path.join(dir, 'outputs', 'handoff', TASK_IDS['roo-condense'], 'handoff.json'), 'utf8')) as { sources: Record<string, string>; context: { source: string; percent: number } };
    assert.equal(packet.sources['commands'], `roo:${TASK_IDS['roo-condense']}`);
    assert.equal(packet.context.source, 'roo');
    const md = await fs.readFile(path.join(dir, 'outputs', 'handoff', TASK_IDS['roo-condense'], 'handoff.md'), 'utf8');
    assert.match(md, /Derived from: Roo Code task 019ad5c4/);
  });
});

describe('handoff status / generate / secrets with a Kilo Code database', () => {
  it('finds the folder session in $KILO_DB, writes its packet facts, and lists (never scrubs) a credential in it', async () => {
    const repo = makeRepo({ files: { 'README.md': '# app\n' } });
    const dir = await fs.realpath(repo.dir);
    const home = await makeTempDir('handoff-cli-home-');
    const db = await placeKiloDb(dir, { into: path.join(home, 'kilo-data'), now: Date.now() - 60_000 });
    const env = { ...process.env, HOME: home, XDG_CONFIG_HOME: '', XDG_DATA_HOME: '', KILO_DB: db, CLAUDE_CONFIG_DIR: path.join(home, 'claude'), CODEX_HOME: path.join(home, 'codex') };
    const status = handoff(['status', '--dir', dir, '--window', '200000'], { env });
    assert.equal(status.code, 0, status.stderr);
    assert.match(status.stdout, /9\.6 % — 19,206 of 200,000 tokens · Kilo Code · compacts at 84 %/);
    const gen = handoff(['generate', '--allow-dirty', '--dir', dir, '--window', '200000'], { env });
    assert.equal(gen.code, 0, gen.stderr);
    const id = 'ses_3f9c2a7b1e04Kq8ZrT2vLx9Kp4';
    const packet = JSON.parse(await fs.readFile(path.join(dir, 'outputs', 'handoff', id, 'handoff.json'), 'utf8')) as Packet;
    assert.equal(packet.sources['commands'], `kilo:${id}`);
    assert.equal(packet.context && 'source' in packet.context ? packet.context.source : null, 'kilo');
    assert.deepEqual(packet.commands_run.map((c) => [c.command, c.exit_code, c.outcome, c.note]), [['npm test -- src/export', 1, 'failed', null], ['npm test -- src/export', 0, 'ok', 'formatDate now formats the stored UTC date with `toISOString().slice(0, 10)` instead of local getters, so UTC+ users get the right day; `npm test -- src/export` passes (6 tests).']]);
    // The failure was fixed by the later run: an attempt that failed, resolved by the passing one.
    assert.deepEqual(packet.failed_attempts.map((f) => [f.command, f.exit_code, f.resolved_by]), [['npm test -- src/export', 1, 1]]);
    assert.ok(packet.changed_files.some((f) => f.path === 'src/export/csv.ts'));
    assert.deepEqual(packet.questions?.map((q) => [q.text, q.from]), [['Should I add the UTC+9 regression case to the fixtures file as well?', 'closing']]);
    assert.match(packet.closing?.text ?? '', /^formatDate now formats the stored UTC date/);
    assert.equal(packet.human_words?.find((w) => w.kind === 'first-request')?.text, 'Exported CSV dates are one day early for users east of UTC. Fix formatDate in src/export/csv.ts and run the export tests.');
    const md = await fs.readFile(path.join(dir, 'outputs', 'handoff', id, 'handoff.md'), 'utf8');
    assert.match(md, /Task list: 1 of 2 done/);
    // The database is read from a copy: not one byte of it or its folder changes.
    const secrets = handoff(['secrets', '--dir', dir, '--scrub', '--force'], { env });
    assert.match(secrets.stdout, /Sessions read: Kilo Code task ses_3f9c2a7b1e04Kq8ZrT2vLx9Kp4: ~\/kilo-data\/kilo\.db \(0\)/);
    assert.deepEqual(await fs.readdir(path.dirname(db)), ['kilo.db']);
  });
});

describe('handoff secrets with an OpenCode database', () => {
  it('lists the folder session of opencode.db as OpenCode, read from a copy, never rewritten', async () => {
    const repo = makeRepo({ files: { 'README.md': '# app\n' } });
    const dir = await fs.realpath(repo.dir);
    const home = await makeTempDir('handoff-cli-home-');
    // The Kilo Code fixture's database where OpenCode keeps its own (the same schema family).
    const store = path.join(home, '.local', 'share', 'opencode');
    await fs.rename(await placeKiloDb(dir, { into: store, now: Date.now() - 60_000 }), path.join(store, 'opencode.db'));
    const env: NodeJS.ProcessEnv = { ...process.env, HOME: home, XDG_CONFIG_HOME: '', XDG_DATA_HOME: '', CLAUDE_CONFIG_DIR: path.join(home, 'claude'), CODEX_HOME: path.join(home, 'codex') };
    delete env['KILO_DB'];
    delete env['OPENCODE_DB'];
    const before = await fs.readFile(path.join(store, 'opencode.db'));
    const secrets = handoff(['secrets', '--dir', dir, '--scrub', '--force'], { env });
    assert.match(secrets.stdout, /Sessions read: OpenCode task ses_3f9c2a7b1e04Kq8ZrT2vLx9Kp4: ~\/\.local\/share\/opencode\/opencode\.db \(0\)/, secrets.stdout);
    assert.deepEqual(await fs.readFile(path.join(store, 'opencode.db')), before);
    assert.deepEqual(await fs.readdir(store), ['opencode.db']);
  });
});

describe('a database session from weeks ago', () => {
  it('a Kilo Code session whose last message is three weeks old is still the folder\'s: status reads it and generate writes its packet', async () => {
    const repo = makeRepo({ files: { 'README.md': '# app\n' } });
    const dir = await fs.realpath(repo.dir);
    const home = await makeTempDir('handoff-cli-home-');
    const db = await placeKiloDb(dir, { into: path.join(home, 'kilo-data'), now: Date.now() - 21 * 86_400_000 });
    const env = { ...process.env, HOME: home, XDG_CONFIG_HOME: '', XDG_DATA_HOME: '', KILO_DB: db, CLAUDE_CONFIG_DIR: path.join(home, 'claude'), CODEX_HOME: path.join(home, 'codex') };
    const status = handoff(['status', '--dir', dir, '--window', '200000'], { env });
    assert.equal(status.code, 0, status.stderr);
    assert.match(status.stdout, /9\.6 % — 19,206 of 200,000 tokens · Kilo Code/);
    const gen = handoff(['generate', '--allow-dirty', '--dir', dir, '--window', '200000'], { env });
    assert.equal(gen.code, 0, gen.stderr);
    const packet = JSON.parse(await fs.readFile(path.join(dir, 'outputs', 'handoff', 'ses_3f9c2a7b1e04Kq8ZrT2vLx9Kp4', 'handoff.json'), 'utf8')) as Packet;
    assert.equal(packet.sources['commands'], 'kilo:ses_3f9c2a7b1e04Kq8ZrT2vLx9Kp4');
  });
});

describe('the flags that say where the VS Code agents keep their tasks', () => {
  it('--zoo-dir and --kilo-db are taken relative to the folder, next to the other agents\' flags', () => {
    const o = taskOptions('/ws', { 'roo-dir': 'roo', 'zoo-dir': '../zoo', 'kilo-dir': '/k', 'kilo-db': 'data/kilo.db', 'opencode-db': 'oc.db', 'roo-model': ' claude-sonnet-4-5 ' });
    assert.deepEqual(o, { rooDir: path.resolve('/ws', 'roo'), zooDir: path.resolve('/zoo'), kiloDir: path.resolve('/k'), kiloDb: path.resolve('/ws', 'data', 'kilo.db'), opencodeDb: path.resolve('/ws', 'oc.db'), rooModel: 'claude-sonnet-4-5' });
    assert.deepEqual(taskOptions('/ws', {}), {});
  });
});
