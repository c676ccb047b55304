import * as assert from 'node:assert/strict';
import { promises as fs } from 'node:fs';
import * as path from 'node:path';
import { auditPacket, auditLine, type Audit } from '../../../src/core/packet/audit';
import type { Packet } from '../../../src/core/packet/schema';
import { DEFAULT_OPTIONS } from '../../../src/core/options';
import { generateHandoff } from '../../../src/core/workflow/generate';
import { handoff } from '../helpers/workbenchRepo';
import { copyFixture, repoRoot } from '../helpers/fixtures';
import { makeRepo, tempRepos } from '../helpers/gitRepo';

const status = (a: Audit, id: string): string => a.probes.find((p) => p.id === id)!.status;

async function refundPacket(): Promise<Packet> {
  const outcome = await generateHandoff({ workspaceDir: await copyFixture('workbench-refund'), options: DEFAULT_OPTIONS });
  if (outcome.kind === 'refused') throw new Error(outcome.reason);
  return outcome.packet;
}

describe('completeness audit', () => {
  let p: Packet;
  before(async () => {
    p = await refundPacket();
  });

  it('scores passed over applicable probes; probes without a subject are not applicable', () => {
    const a = auditPacket(p);
    assert.equal(a.probes.length, 11);
    assert.equal(a.applicable, a.probes.filter((x) => x.status !== 'n/a').length);
    assert.equal(a.passed, a.probes.filter((x) => x.status === 'pass').length);
    assert.equal(status(a, 'fresh'), 'n/a');
    assert.equal(status(a, 'read-first'), 'n/a');
    for (const probe of a.probes) assert.ok(probe.fix.length > 20, probe.id);
    assert.deepEqual(auditPacket(p), a, 'deterministic');
  });

  it('the task: stated by a topic or a goal', () => {
    assert.equal(status(auditPacket(p), 'task'), 'pass');
    assert.equal(status(auditPacket({ ...p, topic: 'default' }), 'task'), 'fail');
    assert.equal(status(auditPacket({ ...p, topic: 'default', next_goal: 'ship refunds' }), 'task'), 'pass');
  });

  it('the next action must name a command or a file', () => {
    assert.equal(status(auditPacket({ ...p, next_action: 'Keep going with the refactor.' }), 'next-action'), 'fail');
    assert.equal(status(auditPacket({ ...p, next_action: 'Fix the rounding in payments/refund.py.' }), 'next-action'), 'pass');
    assert.equal(status(auditPacket({ ...p, next_action: 'Run `make check` again.' }), 'next-action'), 'pass');
  });

  it('failed attempts need a cause line; uncertain ones their partial output', () => {
    const f = p.failed_attempts.find((x) => !x.uncertain)!;
    assert.equal(status(auditPacket(p), 'failure-causes'), 'pass');
    const noCause = auditPacket({ ...p, failed_attempts: [{ ...f, excerpt: 'exit 1 with no output recorded' }] });
    assert.equal(status(noCause, 'failure-causes'), 'fail');
    assert.match(noCause.probes.find((x) => x.id === 'failure-causes')!.detail, new RegExp(`#${f.index}`));
    const frames = auditPacket({ ...p, failed_attempts: [{ ...f, excerpt: '    at Test.run (node:internal/test_runner/test:796:25)' }] });
    assert.equal(status(frames, 'failure-causes'), 'fail');
    const u = p.failed_attempts.find((x) => x.uncertain)!;
    assert.equal(status(auditPacket(p), 'uncertain-evidence'), 'fail', 'the fixture records no partial output for its timeout');
    assert.equal(status(auditPacket({ ...p, failed_attempts: [{ ...u, excerpt: 'timeout after 30.0s\npartial output:\ncollected 12 items' }] }), 'uncertain-evidence'), 'pass');
    assert.equal(status(auditPacket({ ...p, failed_attempts: [] }), 'uncertain-evidence'), 'n/a');
  });

  it('rejected approaches are expected when failures carry notes', () => {
    assert.equal(status(auditPacket(p), 'rejected-approaches'), 'pass');
    assert.equal(status(auditPacket({ ...p, decisions: [] }), 'rejected-approaches'), 'fail');
    assert.equal(status(auditPacket({ ...p, decisions: [], failed_attempts: p.failed_attempts.map((f) => ({ ...f, note: null })) }), 'rejected-approaches'), 'n/a');
  });

  it('open questions must reach the restart prompt', () => {
    assert.equal(status(auditPacket(p), 'open-questions'), 'pass');
    // Questions are never dropped to make room: nine of them all reach the prompt now.
    const many = Array.from({ length: 9 }, (_, i) => `question number ${i} about the rounding rule`);
    assert.equal(status(auditPacket({ ...p, questions_for_human: many }), 'open-questions'), 'pass');
    // More than the prompt's hard limit can hold: the ones that did not fit are counted.
    const huge = Array.from({ length: 60 }, (_, i) => `question ${i}: ${'which rounding rule applies to partial refunds '.repeat(6)}`);
    assert.equal(status(auditPacket({ ...p, questions_for_human: huge }), 'open-questions'), 'fail');
  });

  it('files to read must exist; masked secrets must be flagged; the packet must be fresh', () => {
    assert.equal(status(auditPacket(p, { exists: () => true }), 'read-first'), 'pass');
    const missing = auditPacket(p, { exists: (f) => f !== p.next_session_prereqs[0] });
    assert.equal(status(missing, 'read-first'), 'fail');
    assert.ok(missing.probes.find((x) => x.id === 'read-first')!.detail.includes(p.next_session_prereqs[0]!));
    // The fixture's bearer token is masked in the commands and flagged as a block risk.
    assert.equal(status(auditPacket(p), 'secrets'), 'pass');
    const unflagged = { ...p, open_risks: p.open_risks.filter((r) => !/secret|credential|key|token|password/i.test(`${r.id} ${r.detail}`)) };
    assert.equal(status(auditPacket(unflagged), 'secrets'), 'fail');
    const flagged = { ...unflagged, open_risks: [...unflagged.open_risks, { id: 'secret:1', severity: 'block' as const, detail: 'a live API key in feedback_record.jsonl line 11', source: 'redaction' }] };
    assert.equal(status(auditPacket(flagged), 'secrets'), 'pass');
    const clean = JSON.parse(JSON.stringify(p).split('[REDACTED]').join('x')) as Packet;
    assert.equal(status(auditPacket(clean), 'secrets'), 'n/a');
    assert.equal(status(auditPacket(p, { freshness: { stale: true, reasons: ['HEAD moved'] } }), 'fresh'), 'fail');
    assert.equal(status(auditPacket(p, { freshness: { stale: false, reasons: [] } }), 'fresh'), 'pass');
    assert.match(auditLine(auditPacket(unflagged)), /^completeness \d+\/\d+ probes pass — failing: .*secrets/);
  });
});

describe('handoff audit (CLI) on the example workbench', () => {
  const make = tempRepos(() => makeRepo({ branch: 'feat/upi-refund' }));

  it('prints every probe with pass/fail and the fix, exits 0; --json parses; generate prints the score line', async () => {
    const r = make();
    await fs.cp(path.join(repoRoot(), 'examples', 'workbench-refund'), r.dir, { recursive: true });
    r.commit('example workbench');
    const gen = handoff(['generate', '--allow-dirty', '--dir', r.dir]);
    assert.equal(gen.code, 0, gen.stderr);
    assert.match(gen.stdout, /^completeness \d+\/\d+ probes pass/m);

    const text = handoff(['audit', '--dir', r.dir]);
    assert.equal(text.code, 0, text.stderr);
    const probeLines = text.stdout.split('\n').filter((l) => /^ {2}(pass|FAIL|n\/a)/.test(l));
    assert.equal(probeLines.length, 11, text.stdout);
    assert.match(text.stdout, /FAIL {2}Each uncertain outcome carries its evidence[^\n]*\n {8}fix: Record the partial output/);
    assert.match(text.stdout, /pass {2}The files to read first exist/);
    assert.match(text.stdout, /pass {2}The packet is fresh/);
    assert.match(text.stdout, /^Score: \d+\/\d+ probes pass/m);

    const json = handoff(['audit', '--json', '--dir', r.dir]);
    assert.equal(json.code, 0);
    const parsed = JSON.parse(json.stdout) as Audit & { score: number };
    assert.equal(parsed.probes.length, 11);
    assert.equal(parsed.score, parsed.passed / parsed.applicable);
    const genJson = JSON.parse(handoff(['generate', '--allow-dirty', '--json', '--dir', r.dir]).stdout) as { completeness: { failing: string[] } };
    assert.ok(genJson.completeness.failing.includes('uncertain-evidence'));
  });
});
