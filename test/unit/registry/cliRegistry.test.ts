import * as assert from 'node:assert/strict';
import { promises as fs } from 'node:fs';
import * as path from 'node:path';
import { PacketSchema, type Packet } from '../../../src/core/packet/schema';
import { tempRepos } from '../helpers/gitRepo';
import { commitSource, handoff, handoffAsync, workbenchRepo } from '../helpers/workbenchRepo';

async function packetsIn(dir: string): Promise<Packet[]> {
  const out = path.join(dir, 'outputs/handoff');
  const ids = (await fs.readdir(out, { withFileTypes: true })).filter((e) => e.isDirectory()).map((e) => e.name);
  return Promise.all(ids.map(async (id) => PacketSchema.parse(JSON.parse(await fs.readFile(path.join(out, id, 'handoff.json'), 'utf8')))));
}

describe('generate, supersede, archive, list (real process, real git)', () => {
  const make = tempRepos(workbenchRepo);

  it('fills the git fields and refuses a dirty workbench unless --allow-dirty', async () => {
    const r = make();
    const clean = handoff(['generate', '--dir', r.dir, '--json']);
    assert.equal(clean.code, 0, clean.stderr);
    const p = PacketSchema.parse(JSON.parse(await fs.readFile(JSON.parse(clean.stdout).json, 'utf8')));
    assert.equal(p.branch, 'feat/refund');
    assert.equal(p.head_commit, r.head());
    assert.equal(p.last_known_good_commit, r.head(), 'clean + green test run: HEAD is good');
    assert.deepEqual(p.clean_state, { clean: true, findings: [] });
    assert.deepEqual(p.changed_files.map((c) => `${c.kind}:${c.path}`), [
      'added:agent_state.json', 'added:feature_list.json', 'added:feedback_record.jsonl', 'modified:src/refund.py',
    ]);

    r.write('scratch.bak', 'old');
    const refused = handoff(['generate', '--dir', r.dir]);
    assert.equal(refused.code, 1);
    assert.match(refused.stderr, /refused: the workbench is not clean/);
    assert.match(refused.stderr, /temp-artifacts: 1 temporary file: scratch\.bak/);

    const dirty = handoff(['generate', '--dir', r.dir, '--allow-dirty', '--json']);
    assert.equal(dirty.code, 0, dirty.stderr);
    const d = PacketSchema.parse(JSON.parse(await fs.readFile(JSON.parse(dirty.stdout).json, 'utf8')));
    const blocks = d.open_risks.filter((k) => k.source === 'clean_state');
    assert.ok(blocks.length >= 2);
    assert.ok(blocks.every((k) => k.severity === 'block'));
    assert.ok(blocks.some((k) => k.paths?.includes('scratch.bak')));
    assert.ok(d.changed_files.some((c) => c.path === 'scratch.bak' && c.kind === 'untracked'));
    assert.equal(d.last_known_good_commit, r.head(), 'the previous packet of the session vouched for it');
  });

  it('reports a stale packet with the commit count, supersedes it, archives, and lists all three states', async () => {
    const r = make();
    const g1 = handoff(['generate', '--dir', r.dir, '--json']);
    assert.equal(g1.code, 0, g1.stderr);
    const id1 = JSON.parse(g1.stdout).packetId as string;
    const fresh = handoff(['prompt', '--dir', r.dir]);
    assert.equal(fresh.code, 0);
    assert.doesNotMatch(fresh.stdout, /stale/i);

    commitSource(r, 'src/refund.py', 'def refund(amount):\n    return int(amount * 100)\n', 'paise');
    commitSource(r, 'src/util.py', 'X = 1\n', 'util');
    const stale = handoff(['prompt', '--dir', r.dir]);
    assert.match(stale.stdout.split('\n')[0] ?? '', /stale/i);
    assert.match(stale.stdout, /HEAD moved 2 commits/);
    assert.match(handoff(['list', '--dir', r.dir]).stdout, new RegExp(`${id1}  active .*stale: HEAD moved 2 commits`));

    const g2 = handoff(['generate', '--dir', r.dir, '--json']);
    assert.equal(g2.code, 0, g2.stderr);
    const out2 = JSON.parse(g2.stdout) as { packetId: string; superseded: string[] };
    assert.deepEqual(out2.superseded, [id1]);
    const old = (await packetsIn(r.dir)).find((p) => p.packet_id === id1);
    assert.equal(old?.status, 'superseded');
    assert.equal(old?.superseded_by, out2.packetId);
    assert.match(await fs.readFile(path.join(r.dir, 'outputs/handoff', id1, 'handoff.md'), 'utf8'), /superseded/i);

    commitSource(r, 'src/util.py', 'X = 2\n', 'util 2');
    assert.equal(handoff(['generate', '--dir', r.dir]).code, 0);
    const arch = handoff(['archive', id1, '--dir', r.dir]);
    assert.equal(arch.code, 0, arch.stderr);
    assert.equal(handoff(['archive', 'no-such', '--dir', r.dir]).code, 1);

    const list = handoff(['list', '--all', '--json', '--dir', r.dir]);
    const rows = JSON.parse(list.stdout) as { id: string; status: string }[];
    assert.deepEqual(rows.map((x) => x.status), ['active', 'superseded', 'archived']);
    assert.equal(rows[2]?.id, id1);
    const active = handoff(['list', '--dir', r.dir]);
    assert.equal(active.stdout.trim().split('\n').length, 1);
    assert.match(active.stdout, /active .* fresh$/m);
    assert.equal((await packetsIn(r.dir)).length, 3, 'nothing is deleted');
  });

  it('ten concurrent generate processes leave exactly one active packet and no torn file', async () => {
    const r = make();
    assert.equal(handoff(['generate', '--dir', r.dir]).code, 0);
    commitSource(r, 'src/refund.py', 'def refund(a):\n    return a\n', 'next');
    const runs = await Promise.all(Array.from({ length: 10 }, () => handoffAsync(['generate', '--json'], r.dir)));
    for (const run of runs) assert.equal(run.code, 0, run.stderr);
    const kinds = runs.map((run) => (JSON.parse(run.stdout) as { kind: string }).kind).sort();
    assert.equal(kinds.filter((k) => k === 'written').length, 1);
    const packets = await packetsIn(r.dir);
    assert.equal(packets.filter((p) => p.status === 'active').length, 1);
    assert.equal(packets.length, 2);
    const files = await fs.readdir(path.join(r.dir, 'outputs/handoff'));
    assert.ok(!files.includes('.lock'), 'the lock is released');
    assert.ok(!files.some((f) => f.endsWith('.tmp')), 'no temp files left');
  });

  it('hook generates for the event cwd (dirty accepted), always exits 0, and logs problems', async () => {
    const r = make();
    r.write('notes.tmp', 'x');
    // Inline: the packet before the hook returns (as the detached completion writes it).
    const inline = { ...process.env, HANDOFF_HOOK_INLINE: '1' };
    const ok = handoff(['hook'], { env: inline, input: JSON.stringify({ hook_event_name: 'PreCompact', cwd: r.dir, session_id: 'abc' }) });
    assert.equal(ok.code, 0, ok.stderr);
    const [p] = await packetsIn(r.dir);
    assert.ok(p?.open_risks.some((k) => k.source === 'clean_state' && k.paths?.includes('notes.tmp')));

    const bad = handoff(['hook'], { cwd: r.dir, input: 'not json' });
    assert.equal(bad.code, 0);
    assert.equal(bad.stderr, '');
    const log = await fs.readFile(path.join(r.dir, 'outputs/handoff/hook.log'), 'utf8');
    assert.match(log, /stdin is not a hook event/);

    await fs.writeFile(path.join(r.dir, 'agent_state.json'), JSON.stringify({ active_task_id: 'T-1' }));
    await fs.writeFile(path.join(r.dir, 'feedback_record.jsonl'), '');
    const refused = handoff(['hook'], { env: inline, input: JSON.stringify({ hook_event_name: 'SessionEnd', cwd: r.dir }) });
    assert.equal(refused.code, 0);
    assert.match(await fs.readFile(path.join(r.dir, 'outputs/handoff/hook.log'), 'utf8'), /hook SessionEnd: no packet written: .*next_action/);
  });
});
