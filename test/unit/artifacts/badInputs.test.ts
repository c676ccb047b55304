import * as assert from 'node:assert/strict';
import { promises as fs } from 'node:fs';
import * as path from 'node:path';
import { loadWorkbench } from '../../../src/core/artifacts/loader';
import { DEFAULT_OPTIONS } from '../../../src/core/options';
import { generateHandoff } from '../../../src/core/workflow/generate';
import { copyFixture } from '../helpers/fixtures';

const JSON_ARTIFACTS = ['agent_state.json', 'verification_report.json', 'review_report.json', 'feature_list.json'];
const LOAD = { feedbackK: 5, maxCommands: 30 };

/** Each bad content, and what the diagnostic must say about it. */
const BAD: { name: string; content: Buffer; message: RegExp; line?: number }[] = [
  { name: 'invalid JSON', content: Buffer.from('{\n  "a": 1,\n  oops\n}\n'), message: /invalid JSON/, line: 3 },
  { name: 'empty file', content: Buffer.from(''), message: /empty/, line: 1 },
  { name: 'binary garbage', content: Buffer.from([0x7b, 0x00, 0xff, 0xfe, 0x01, 0x02]), message: /binary content/, line: 1 },
  { name: 'invalid UTF-8', content: Buffer.from([0x7b, 0x22, 0xc3, 0x28, 0x22, 0x7d]), message: /invalid UTF-8/, line: 1 },
];

/** A value of the wrong type for one field of each artifact, and the field the message must name. */
const WRONG_TYPE: Record<string, { content: string; field: RegExp; line: number }> = {
  'agent_state.json': { content: '{\n  "touched_files": "payments/refund.py",\n  "next_action": "x"\n}\n', field: /touched_files/, line: 2 },
  'verification_report.json': { content: '{\n  "task_id": "T-004",\n  "passed": "no"\n}\n', field: /`passed`/, line: 3 },
  'review_report.json': { content: '{\n  "total": 6,\n  "verdict": "meh"\n}\n', field: /`verdict`/, line: 3 },
  'feature_list.json': { content: '{\n  "features": [{"id": "T-1", "status": "doing"}]\n}\n', field: /features\[0\]\.status/, line: 2 },
};

describe('loader: one bad artifact never hides the others', () => {
  for (const file of JSON_ARTIFACTS) {
    for (const bad of [...BAD, { name: 'wrong type', content: Buffer.from(WRONG_TYPE[file]!.content), message: WRONG_TYPE[file]!.field, line: WRONG_TYPE[file]!.line }]) {
      it(`${file}: ${bad.name} gives a located diagnostic and the packet still builds`, async () => {
        const dir = await copyFixture('workbench-refund');
        await fs.writeFile(path.join(dir, file), bad.content);
        const snap = await loadWorkbench(dir, LOAD);
        const diags = snap.diagnostics.filter((d) => d.file === file);
        assert.equal(diags.length, 1, JSON.stringify(snap.diagnostics));
        assert.match(diags[0]!.message, bad.message);
        if (bad.line !== undefined) assert.equal(diags[0]!.line, bad.line);
        // The rest still loads.
        assert.equal(snap.feedback?.total, 12);
        for (const other of JSON_ARTIFACTS.filter((f) => f !== file)) {
          assert.ok(snap.sources.some((s) => s.file === other), `${other} still read`);
        }
        const outcome = await generateHandoff({ workspaceDir: dir, options: DEFAULT_OPTIONS });
        assert.notEqual(outcome.kind, 'refused', outcome.kind === 'refused' ? outcome.reason : '');
        assert.ok(outcome.diagnostics.some((d) => d.file === file));
      });
    }
  }

  it('agent_state.json broken: the next action is derived from the newest failing command', async () => {
    const dir = await copyFixture('workbench-refund');
    await fs.writeFile(path.join(dir, 'agent_state.json'), '{');
    const outcome = await generateHandoff({ workspaceDir: dir, options: DEFAULT_OPTIONS });
    if (outcome.kind === 'refused') throw new Error(outcome.reason);
    assert.equal(outcome.packet.next_action_source, 'derived');
    assert.match(outcome.packet.next_action, /pytest tests\/test_refund.py/);
    assert.match(outcome.packet.next_action, /exit 1: 1 failed, 6 passed/);
  });

  it('a JSON artifact over the size cap is skipped with a clear message', async () => {
    const dir = await copyFixture('workbench-refund');
    const fh = await fs.open(path.join(dir, 'review_report.json'), 'w');
    await fh.truncate(6 * 1024 * 1024);
    await fh.close();
    const snap = await loadWorkbench(dir, LOAD);
    assert.equal(snap.review, null);
    assert.match(snap.diagnostics.find((d) => d.file === 'review_report.json')!.message, /over the 5 MB limit/);
  });

  it('reads the alternative paths outputs/verification/<task>.json, outputs/review/<task>.json and task_board.json', async () => {
    const dir = await copyFixture('workbench-refund');
    await fs.mkdir(path.join(dir, 'outputs', 'verification'), { recursive: true });
    await fs.mkdir(path.join(dir, 'outputs', 'review'), { recursive: true });
    await fs.rename(path.join(dir, 'verification_report.json'), path.join(dir, 'outputs', 'verification', 'T-004.json'));
    await fs.rename(path.join(dir, 'review_report.json'), path.join(dir, 'outputs', 'review', 'T-004.json'));
    await fs.rename(path.join(dir, 'feature_list.json'), path.join(dir, 'task_board.json'));
    const snap = await loadWorkbench(dir, LOAD);
    assert.equal(snap.verification?.file, 'outputs/verification/T-004.json');
    assert.equal(snap.review?.file, 'outputs/review/T-004.json');
    assert.equal(snap.featureList?.file, 'task_board.json');
    assert.deepEqual(snap.diagnostics, []);
  });
});

describe('loader: feedback_record.jsonl', () => {
  const setLog = async (content: string | Buffer): Promise<string> => {
    const dir = await copyFixture('workbench-refund');
    await fs.writeFile(path.join(dir, 'feedback_record.jsonl'), content);
    return dir;
  };
  const lines = async (): Promise<string[]> => {
    const dir = await copyFixture('workbench-refund');
    return (await fs.readFile(path.join(dir, 'feedback_record.jsonl'), 'utf8')).trimEnd().split('\n');
  };

  it('skips a partial last line and says so', async () => {
    const all = await lines();
    const dir = await setLog(`${all.join('\n')}\n{"command": ["pytest"], "exit_`);
    const snap = await loadWorkbench(dir, LOAD);
    assert.equal(snap.feedback?.total, 12);
    const d = snap.diagnostics.find((x) => x.file === 'feedback_record.jsonl');
    assert.equal(d?.line, 13);
    assert.match(d!.message, /partial last line/);
    const outcome = await generateHandoff({ workspaceDir: dir, options: DEFAULT_OPTIONS });
    assert.notEqual(outcome.kind, 'refused');
  });

  it('accepts a complete last line without a trailing newline', async () => {
    const dir = await setLog((await lines()).join('\n'));
    const snap = await loadWorkbench(dir, LOAD);
    assert.equal(snap.feedback?.total, 12);
    assert.deepEqual(snap.diagnostics, []);
  });

  it('reports a bad middle line, a wrong type and binary garbage by line and keeps the rest', async () => {
    const all = await lines();
    const bad = [all[0], '{not json', all[1], '{"command": 42, "exit_code": 1}', Buffer.from([0, 1, 2, 0xff]).toString('latin1'), ...all.slice(2)];
    const dir = await setLog(Buffer.from(`${bad.join('\n')}\n`, 'latin1'));
    const snap = await loadWorkbench(dir, LOAD);
    assert.equal(snap.feedback?.total, 12);
    const diags = snap.diagnostics.filter((d) => d.file === 'feedback_record.jsonl');
    assert.deepEqual(diags.map((d) => d.line), [2, 4, 5]);
    assert.match(diags[0]!.message, /invalid JSON/);
    assert.match(diags[1]!.message, /`command`/);
    assert.match(diags[2]!.message, /binary/);
    // Line numbers in the packet stay those of the file.
    assert.ok(snap.feedback!.kept.some((k) => k.index === 2 && k.record.exit_code === 1));
  });

  it('validates every field of a record, keeping unknown fields of good ones', async () => {
    const recs = [
      { command: ['a'], exit_code: 1.5 },
      { command: 'b', exit_code: 0, duration_ms: 'fast' },
      { command: 'c', exit_code: 0, agent_note: 7 },
      { command: 'd', exit_code: 0, started_at: '2025-11-29T07:00:00Z', truncations: { stdout: 1 } },
    ];
    const dir = await setLog(`${recs.map((r) => JSON.stringify(r)).join('\n')}\n`);
    const snap = await loadWorkbench(dir, LOAD);
    const diags = snap.diagnostics.filter((d) => d.file === 'feedback_record.jsonl');
    assert.deepEqual(diags.map((d) => d.line), [1, 2, 3]);
    assert.match(diags[0]!.message, /`exit_code`/);
    assert.match(diags[1]!.message, /`duration_ms`/);
    assert.match(diags[2]!.message, /`agent_note`/);
    assert.equal(snap.feedback?.total, 1);
    assert.deepEqual((snap.feedback!.kept[0]!.record as Record<string, unknown>)['truncations'], { stdout: 1 });
  });

  it('skips a line longer than 1 MB without buffering it, and keeps counting lines', async () => {
    const all = await lines();
    const huge = `{"command": "x", "stdout_tail": "${'y'.repeat(2 * 1024 * 1024)}", "exit_code": 0}`;
    const dir = await setLog(`${[all[0], huge, ...all.slice(1)].join('\n')}\n`);
    const snap = await loadWorkbench(dir, LOAD);
    assert.equal(snap.feedback?.total, 12);
    const d = snap.diagnostics.find((x) => x.file === 'feedback_record.jsonl');
    assert.equal(d?.line, 2);
    assert.match(d!.message, /longer than 1 MB/);
    assert.equal(snap.feedback!.kept[snap.feedback!.kept.length - 1]!.index, 12);
  });

  it('an empty log is a diagnostic, and the packet still builds', async () => {
    const dir = await setLog('');
    const snap = await loadWorkbench(dir, LOAD);
    assert.equal(snap.feedback?.total, 0);
    assert.match(snap.diagnostics.find((d) => d.file === 'feedback_record.jsonl')!.message, /empty/);
    const outcome = await generateHandoff({ workspaceDir: dir, options: DEFAULT_OPTIONS });
    assert.notEqual(outcome.kind, 'refused');
  });

  it('caps kept records at maxCommands, keeping the newest failures, and counts the rest as omitted', async () => {
    const recs = Array.from({ length: 100 }, (_, i) => JSON.stringify({ command: ['make', `step${i}`], exit_code: i % 2 }));
    const dir = await setLog(`${recs.join('\n')}\n`);
    const snap = await loadWorkbench(dir, { feedbackK: 5, maxCommands: 10 });
    const kept = snap.feedback!.kept.map((k) => k.index);
    assert.equal(kept.length, 10);
    assert.deepEqual(kept, [...kept].sort((a, b) => a - b));
    assert.equal(kept[kept.length - 1], 99);
    assert.ok(kept.every((i) => i >= 80), `newest kept: ${kept}`);
    assert.equal(snap.feedback!.omitted, 90);
  });

  it('tracks the newest test run and the newest run of each done_when command', async () => {
    const snap = await loadWorkbench(await copyFixture('workbench-refund'), LOAD);
    assert.equal(snap.feedback?.lastTestRun?.index, 9);
    assert.equal(snap.feedback?.lastRunOf['pytest tests/test_refund.py']?.index, 9);
    assert.equal(snap.feedback?.lastRunOf['pytest tests/test_gateway.py']?.index, 4);
    assert.equal(snap.feedback?.lastRunOf['ruff check .'], undefined);
    assert.ok(snap.sources.find((s) => s.file === 'feedback_record.jsonl')?.sha256.match(/^[0-9a-f]{64}$/));
  });
});
