import * as assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { promises as fs } from 'node:fs';
import * as path from 'node:path';
import { parseGenericUsage, readGenericUsage } from '../../../src/core/context/generic';
import { compactAtPercentFor, formatGenericUsage } from '../../../src/core/context/usage';
import type { ContextResult } from '../../../src/core/context/types';
import { LOCK_FILE, LockTimeoutError, withLock } from '../../../src/core/registry/lock';
import { makeTempDir } from '../helpers/fixtures';

const usage = { source: 'claude-code', session_id: 's-1', used_tokens: 50_000, context_window: 200_000, updated_at: '2026-01-02T03:04:05Z' };
const reason = (r: ContextResult) => (r.known ? assert.fail('expected unknown') : r.reason);

describe('context_usage.json: the generic reading', () => {
  it('reads a valid file into a reading with the writer as agent', () => {
    assert.deepEqual(parseGenericUsage(JSON.stringify({ ...usage, model: 'm-1' }), 'cu.json'), {
      known: true, source: 'generic', agent: 'claude-code', sessionId: 's-1', model: 'm-1', usedTokens: 50_000, windowTokens: 200_000,
      percent: 25, compactAtPercent: 83.5, at: '2026-01-02T03:04:05.000Z', file: 'cu.json',
    });
    const r = parseGenericUsage(JSON.stringify({ ...usage, updated_at: 1_700_000_000, used_tokens: 1 }), 'cu.json');
    assert.ok(r.known && !('model' in r) && r.at === '2023-11-14T22:13:20.000Z' && r.percent === 0);
  });

  it('a JSON error names its line but never quotes the file: a cut piece of a credential is not judged by the redaction', () => {
    const text = `{\n  "used_tokens": 5,\n  "note": tok-${'a1b2c3d4'.repeat(4)}\n}`;
    const r = reason(parseGenericUsage(text, 'cu.json'));
    assert.match(r, /^cu\.json: not valid JSON \(/);
    assert.ok(!r.includes('tok-') && !r.includes('a1b2'), r);
  });

  it('compacts where the named agent does: Claude by its window, Codex at 90 %, others never', () => {
    assert.equal(compactAtPercentFor('Claude-Code', 1_000_000), 96.7);
    assert.equal(compactAtPercentFor('codex', 1_000_000), 90);
    assert.equal(compactAtPercentFor('aider', 100), 100);
  });

  it('bad JSON or a bad field is unknown, naming the file and the field', () => {
    assert.equal(reason(parseGenericUsage('{', 'cu.json')), `cu.json: not valid JSON (line 1: Expected property name or '}')`);
    assert.equal(reason(parseGenericUsage(JSON.stringify({ ...usage, used_tokens: -1 }), 'cu.json')).startsWith('cu.json: field "used_tokens": '), true);
    assert.equal(reason(parseGenericUsage(JSON.stringify({ ...usage, context_window: 0 }), 'cu.json')).startsWith('cu.json: field "context_window": '), true);
    assert.equal(reason(parseGenericUsage(JSON.stringify({ ...usage, source: '' }), 'cu.json')).startsWith('cu.json: field "source": '), true);
    assert.equal(reason(parseGenericUsage(JSON.stringify({ ...usage, session_id: '' }), 'cu.json')).startsWith('cu.json: field "session_id": '), true);
    assert.equal(reason(parseGenericUsage(JSON.stringify({ ...usage, used_tokens: 1.5 }), 'cu.json')).startsWith('cu.json: field "used_tokens": '), true);
    assert.equal(reason(parseGenericUsage(JSON.stringify({ ...usage, updated_at: 'soon' }), 'cu.json')), 'cu.json: field "updated_at": not a date');
    assert.equal(reason(parseGenericUsage(JSON.stringify({ ...usage, updated_at: -5 }), 'cu.json')).startsWith('cu.json: field "updated_at": '), true);
    assert.equal(reason(parseGenericUsage(JSON.stringify({ ...usage, updated_at: 1e20 }), 'cu.json')), 'cu.json: field "updated_at": not a valid time');
    assert.match(reason(parseGenericUsage('[]', 'cu.json')), /^cu\.json: field "\(root\)": /);
  });

  it('a missing file is unknown with the error code; a written file reads back', async () => {
    const dir = await makeTempDir('generic-pins-');
    const missing = await readGenericUsage(path.join(dir, 'none.json'));
    assert.equal(reason(missing), `cannot read ${path.join(dir, 'none.json')}: ENOENT`);
    const file = path.join(dir, 'context_usage.json');
    const text = formatGenericUsage(usage);
    assert.ok(text.endsWith('}\n') && text.includes('\n  "source": "claude-code",'));
    await fs.writeFile(file, text);
    assert.equal((await readGenericUsage(file)).known, true);
  });
});

describe('the output-dir lock', () => {
  it('holds the lock while fn runs and removes it afterwards, even when fn throws', async () => {
    const dir = path.join(await makeTempDir('lock-pins-'), 'new-sub');
    const seen = await withLock(dir, async () => JSON.parse(await fs.readFile(path.join(dir, LOCK_FILE), 'utf8')) as { pid: number; at: number; nonce: string });
    assert.equal(seen.pid, process.pid);
    assert.ok(Math.abs(seen.at - Date.now()) < 60_000 && seen.nonce.length === 16);
    await assert.rejects(fs.access(path.join(dir, LOCK_FILE)));
    await assert.rejects(withLock(dir, async () => { throw new Error('boom'); }), /boom/);
    await assert.rejects(fs.access(path.join(dir, LOCK_FILE)));
  });

  it('waits for a live holder and gives up with a message naming its pid', async () => {
    const dir = await makeTempDir('lock-pins-');
    await fs.writeFile(path.join(dir, LOCK_FILE), JSON.stringify({ pid: process.pid, at: Date.now(), nonce: 'x' }));
    const err = await withLock(dir, async () => 1, { timeoutMs: 100 }).then(() => null, (e: unknown) => e);
    assert.ok(err instanceof LockTimeoutError);
    assert.equal(err.name, 'LockTimeoutError');
    assert.equal(err.message, `Another handoff run (pid ${process.pid}) holds ${path.join(dir, LOCK_FILE)}; try again in a moment.`);
    assert.equal(JSON.parse(await fs.readFile(path.join(dir, LOCK_FILE), 'utf8')).nonce, 'x');
  });

  it('takes over a lock whose holder is dead, or that is older than staleMs', async () => {
    const dir = await makeTempDir('lock-pins-');
    const dead = spawnSync(process.execPath, ['-e', '0']).pid as number;
    await fs.writeFile(path.join(dir, LOCK_FILE), JSON.stringify({ pid: dead, at: Date.now(), nonce: 'd' }));
    assert.equal(await withLock(dir, async () => 'ran', { timeoutMs: 2_000 }), 'ran');
    await fs.writeFile(path.join(dir, LOCK_FILE), JSON.stringify({ pid: process.pid, at: Date.now() - 10_000, nonce: 'old' }));
    assert.equal(await withLock(dir, async () => 'ran', { staleMs: 5_000, timeoutMs: 2_000 }), 'ran');
    await fs.writeFile(path.join(dir, LOCK_FILE), JSON.stringify({ pid: process.pid, at: Date.now() - 1_000, nonce: 'young' }));
    await assert.rejects(withLock(dir, async () => 'ran', { staleMs: 600_000, timeoutMs: 100 }), LockTimeoutError);
  });

  it('a torn lock file is stale only once it is old, and a timeout then names no pid', async () => {
    const dir = await makeTempDir('lock-pins-');
    const file = path.join(dir, LOCK_FILE);
    await fs.writeFile(file, '{"pid": 1');
    const err = await withLock(dir, async () => 1, { timeoutMs: 100 }).then(() => null, (e: unknown) => e as Error);
    assert.equal(err?.message, `Another handoff run holds ${file}; try again in a moment.`);
    const old = new Date(Date.now() - 5_000);
    await fs.utimes(file, old, old);
    assert.equal(await withLock(dir, async () => 'ran', { timeoutMs: 2_000 }), 'ran');
  });

  it('leaves a lock that is no longer its own in place', async () => {
    const dir = await makeTempDir('lock-pins-');
    const file = path.join(dir, LOCK_FILE);
    const other = JSON.stringify({ pid: process.pid, at: Date.now(), nonce: 'someone-else' });
    await withLock(dir, async () => fs.writeFile(file, other));
    assert.equal(await fs.readFile(file, 'utf8'), other);
  });
});
