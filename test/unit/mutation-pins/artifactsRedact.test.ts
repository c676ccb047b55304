import * as assert from 'node:assert/strict';
import { redactSnapshot } from '../../../src/core/artifacts/redactSnapshot';
import { AgentStateSchema, FeatureListSchema, ReviewReportSchema, VerificationReportSchema } from '../../../src/core/artifacts/schemas';
import type { FeedbackRecord } from '../../../src/core/artifacts/schemas';
import type { IndexedRecord, SecretFinding, WorkbenchSnapshot } from '../../../src/core/artifacts/snapshot';
import { emptySnapshot } from '../helpers/workbenchSnapshot';
import { fake } from '../redact/corpus';

// Fake, format-valid credentials assembled at run time (no literal here is one).
const gh = (seed: number): string => ['gh', 'p_', fake(seed, 36)].join('');
const stripe = (seed: number): string => ['sk_', 'live_', fake(seed, 24)].join('');
const aws = (seed: number): string => ['AKIA', fake(seed, 16, 'ABCDEFGHIJKLMNOPQRSTUVWXYZ234567')].join('');
const GH = 'a GitHub token';
const STRIPE = 'a Stripe live key';

const where = (s: SecretFinding): [string, number | null, string] => [s.file, s.line, s.label];
const leaks = (snap: WorkbenchSnapshot, secrets: string[]): string[] => secrets.filter((x) => JSON.stringify(snap).includes(x));

/** A feedback block as the loader hands it over: kept records, the newest per watched command, the last test run. */
function feedbackOf(kept: IndexedRecord[], lastRunOf: Record<string, IndexedRecord> = {}, lastTestRun: IndexedRecord | null = null): WorkbenchSnapshot['feedback'] {
  return { kept, total: kept.length, omitted: 0, lastRunOf, lastTestRun };
}
const rec = (index: number, record: FeedbackRecord): IndexedRecord => ({ index, record });

describe('redacting a workbench snapshot (redactSnapshot)', () => {
  it('masks every artifact and names where each secret was, sorted by file, then line', () => {
    const pw = fake(50, 14);
    const t = { agent: stripe(11), board: gh(12), verify: aws(13), review: gh(14), log: gh(15), deploy: stripe(16) };
    const raw = {
      'agent_state.json': [
        '{',
        '  "summary": "rotated the key",',
        '  "open_risks": [',
        '    "plain text",',
        `    { "detail": "stripe key ${t.agent} leaked in logs" }`,
        '  ]',
        '}',
      ].join('\n'),
      'feature_list.json': [
        '{',
        '  "features": [',
        `    { "id": "F1", "status": "todo", "done_when": "GH_TOKEN=${t.board} npm test" }`,
        '  ]',
        '}',
      ].join('\n'),
      'verification_report.json': [
        '{',
        '  "passed": false,',
        '  "findings": [',
        `    { "code": "leak", "detail": "printed ${t.verify}" }`,
        '  ],',
        '  "command": [',
        '    "mysql",',
        '    "--password",',
        `    "${pw}"`,
        '  ]',
        '}',
      ].join('\n'),
      'review_report.json': [
        '{',
        '  "total": 7,',
        '  "verdict": "pass",',
        `  "dimensions": [{ "name": "safety", "score": 7, "note": "saw ${t.review}" }]`,
        '}',
      ].join('\n'),
    };
    const snap = emptySnapshot();
    snap.agentState = AgentStateSchema.parse(JSON.parse(raw['agent_state.json']));
    snap.featureList = { ...FeatureListSchema.parse(JSON.parse(raw['feature_list.json'])), file: 'feature_list.json' };
    snap.verification = { ...VerificationReportSchema.parse(JSON.parse(raw['verification_report.json'])), file: 'verification_report.json' };
    snap.review = { ...ReviewReportSchema.parse(JSON.parse(raw['review_report.json'])), file: 'review_report.json' };
    const test = rec(0, { command: 'npm test', exit_code: 1, stdout_tail: `token ${t.log}`, stderr_tail: `again ${t.log}` });
    snap.feedback = feedbackOf([test, rec(1, { command: ['deploy', '--key', t.deploy], exit_code: 0 })], { 'npm test': test }, test);
    snap.diagnostics = [{ file: 'agent_state.json', message: `odd value ${t.log}` }];

    const out = redactSnapshot(snap, raw);
    assert.deepEqual(leaks(out, [...Object.values(t), pw]), []);
    assert.deepEqual(out.secrets?.map(where), [
      ['agent_state.json', 5, STRIPE],
      ['feature_list.json', 3, GH],
      ['feedback_record.jsonl', 1, GH], // the same token twice on one line: one finding
      ['feedback_record.jsonl', 2, STRIPE],
      ['review_report.json', 4, GH],
      ['verification_report.json', 4, 'an AWS access key id'],
      ['verification_report.json', 9, 'a password'],
    ]);
    assert.deepEqual(out.secrets?.slice(0, 2).map((s) => s.rule), ['stripe', 'github']);
    // What reads still reads; the masked fields keep their place.
    assert.equal(out.agentState?.summary, 'rotated the key');
    assert.deepEqual(out.agentState?.open_risks, ['plain text', { detail: 'stripe key [REDACTED] leaked in logs' }]);
    assert.equal(out.featureList?.features[0]?.done_when, 'GH_TOKEN=[REDACTED] npm test');
    assert.equal(out.featureList?.file, 'feature_list.json');
    assert.deepEqual((out.verification as unknown as { command: string[] }).command, ['mysql', '--password', '[REDACTED]']);
    assert.equal(out.verification?.file, 'verification_report.json');
    assert.equal(out.review?.dimensions[0]?.note, 'saw [REDACTED]');
    assert.equal(out.feedback?.kept[0]?.record.stdout_tail, 'token [REDACTED]');
    assert.deepEqual(out.feedback?.kept[1]?.record.command, ['deploy', '--key', '[REDACTED]']);
    assert.deepEqual([out.feedback?.kept.map((r) => r.index), out.feedback?.lastTestRun?.index], [[0, 1], 0]);
    assert.equal(out.feedback?.lastTestRun?.record.stderr_tail, 'again [REDACTED]');
    assert.equal(out.diagnostics[0]?.message, 'odd value [REDACTED]');
  });

  it('reads a command given as an argv as one line: a flag announces the secret in the next word', () => {
    const pw = fake(51, 14);
    const record: FeedbackRecord = { command: ['mysql', '-u', 'root', '--password', pw], exit_code: 0 };
    const snap = emptySnapshot();
    snap.feedback = feedbackOf([rec(3, record)]);
    const out = redactSnapshot(snap, {});
    assert.deepEqual(out.feedback?.kept[0]?.record.command, ['mysql', '-u', 'root', '--password', '[REDACTED]']);
    assert.deepEqual(out.secrets?.map(where), [['feedback_record.jsonl', 4, 'a password']]);
  });

  it('masks secrets inside objects within arrays that also hold plain text', () => {
    const t = gh(20);
    const snap = emptySnapshot();
    snap.agentState = AgentStateSchema.parse({ blockers: ['waiting on CI', { text: `push with ${t}` }], questions_for_human: [{ detail: 'ok?' }, 'fine'] });
    const out = redactSnapshot(snap, {});
    assert.deepEqual(out.agentState?.blockers, ['waiting on CI', { text: 'push with [REDACTED]' }]);
    assert.deepEqual(out.agentState?.questions_for_human, [{ detail: 'ok?' }, 'fine']);
    assert.deepEqual(out.secrets?.map(where), [['agent_state.json', null, GH]]);
  });

  it('orders the findings of one file by line, then by kind', () => {
    const early = rec(2, { command: 'npm test', exit_code: 1, stdout_tail: `token ${gh(21)}` });
    const late = rec(5, { command: 'make', exit_code: 2, stdout_tail: `key ${stripe(22)}`, stderr_tail: `token ${gh(23)}` });
    const snap = emptySnapshot();
    // The kept record comes first, the older one only as the last run of its command.
    snap.feedback = feedbackOf([late], { 'npm test': early }, early);
    const out = redactSnapshot(snap, {});
    assert.deepEqual(out.secrets?.map(where), [
      ['feedback_record.jsonl', 3, GH],
      ['feedback_record.jsonl', 6, GH],
      ['feedback_record.jsonl', 6, STRIPE],
    ]);
    assert.equal(out.feedback?.lastRunOf['npm test']?.record.stdout_tail, 'token [REDACTED]');
  });

  it('masks a secret in a command key of the last runs, keeping the key normalized', () => {
    const t = gh(24);
    const r = rec(0, { command: ['curl', '-H', `token ${t}`], exit_code: 0 });
    const snap = emptySnapshot();
    snap.feedback = feedbackOf([r], { [`curl -H token ${t}`]: r });
    const out = redactSnapshot(snap, {});
    assert.deepEqual(Object.keys(out.feedback?.lastRunOf ?? {}), ['curl -H token [REDACTED]']);
    assert.deepEqual(leaks(out, [t]), []);
  });

  it('keeps at most 20 findings per file, the first ones, without starving another file', () => {
    const snap = emptySnapshot();
    snap.feedback = feedbackOf(Array.from({ length: 25 }, (_, i) => rec(i, { command: 'make', exit_code: 1, stdout_tail: `token ${gh(100 + i)}` })));
    snap.agentState = AgentStateSchema.parse({ summary: `used ${stripe(30)}` });
    const out = redactSnapshot(snap, { 'agent_state.json': JSON.stringify({ summary: `used ${stripe(30)}` }) });
    const log = out.secrets?.filter((s) => s.file === 'feedback_record.jsonl') ?? [];
    assert.deepEqual(log.map((s) => s.line), Array.from({ length: 20 }, (_, i) => i + 1));
    assert.deepEqual(out.secrets?.filter((s) => s.file === 'agent_state.json').map(where), [['agent_state.json', 1, STRIPE]]);
    // Every record is masked, counted or not.
    assert.deepEqual(out.feedback?.kept.map((r) => r.record.stdout_tail), Array.from({ length: 25 }, () => 'token [REDACTED]'));
  });

  it('finds the line of a secret that the raw file holds JSON-escaped (a private key with its line breaks)', () => {
    const body = [fake(64, 64, 'ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/'), fake(65, 64, 'ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/')].join('\n');
    const key = ['-----BEGIN RSA ', 'PRIVATE KEY-----\n', body, '\n-----END RSA ', 'PRIVATE KEY-----'].join('');
    const state = { summary: 'rotated', next_action: `paste key: ${key} into the vault` };
    const raw = JSON.stringify(state, null, 2);
    const snap = emptySnapshot();
    snap.agentState = AgentStateSchema.parse(state);
    const out = redactSnapshot(snap, { 'agent_state.json': raw });
    assert.deepEqual(out.secrets?.map((s) => [s.file, s.line, s.rule]), [['agent_state.json', 3, 'private-key']]);
    assert.ok(!String(out.agentState?.next_action).includes(body.slice(0, 20)));
  });

  it('finds the line of a secret whose text around it the raw file escapes (\\u00e9)', () => {
    const t = gh(31);
    const raw = `{\n  "summary": "ok",\n  "next_action": "caf\\u00e9 ${t}"\n}`;
    const snap = emptySnapshot();
    snap.agentState = AgentStateSchema.parse(JSON.parse(raw));
    const out = redactSnapshot(snap, { 'agent_state.json': raw });
    assert.equal(out.agentState?.next_action, 'café [REDACTED]');
    assert.deepEqual(out.secrets?.map(where), [['agent_state.json', 3, GH]]);
  });

  it('gives no line for a secret the raw file spells differently (escaped), and none without raw text', () => {
    const t = gh(32);
    const spelled = `${t.slice(0, 2)}\\u0070${t.slice(3)}`; // the "p" of ghp_ as \u0070
    const raw = `{\n  "summary": "token ${spelled}"\n}`;
    const snap = emptySnapshot();
    snap.agentState = AgentStateSchema.parse(JSON.parse(raw));
    snap.verification = { ...VerificationReportSchema.parse({ passed: true, note: `token ${gh(33)}` }), file: 'verification_report.json' };
    const out = redactSnapshot(snap, { 'agent_state.json': raw });
    assert.equal(out.agentState?.summary, 'token [REDACTED]');
    assert.deepEqual(out.secrets?.map(where), [['agent_state.json', null, GH], ['verification_report.json', null, GH]]);
  });

  it('leaves a snapshot without secrets as it was, with no findings', () => {
    const snap = emptySnapshot();
    snap.agentState = AgentStateSchema.parse({ summary: 'all good', touched_files: ['src/a.ts'] });
    snap.feedback = feedbackOf([rec(0, { command: ['npm', 'test'], exit_code: 0, stdout_tail: 'ok' })]);
    const out = redactSnapshot(snap, {});
    assert.deepEqual({ ...out, secrets: undefined }, { ...snap, secrets: undefined });
    assert.deepEqual(out.secrets, []);
  });
});
