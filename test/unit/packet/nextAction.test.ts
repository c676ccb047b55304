import * as assert from 'node:assert/strict';
import { promises as fs } from 'node:fs';
import * as path from 'node:path';
import { loadWorkbench } from '../../../src/core/artifacts/loader';
import { DEFAULT_OPTIONS } from '../../../src/core/options';
import { buildPacket } from '../../../src/core/packet/build';
import { makeTempDir } from '../helpers/fixtures';

async function workbench(files: Record<string, unknown>): Promise<string> {
  const dir = await makeTempDir();
  for (const [name, content] of Object.entries(files)) {
    const text = typeof content === 'string' ? content : JSON.stringify(content);
    await fs.writeFile(path.join(dir, name), text);
  }
  return dir;
}

async function build(dir: string, extra: Partial<Parameters<typeof buildPacket>[0]> = {}) {
  const snapshot = await loadWorkbench(dir, { feedbackK: 5, maxCommands: 30 });
  return buildPacket({ snapshot, options: DEFAULT_OPTIONS, packetId: 'p', git: null, clean: null, allowDirty: false, context: null, ...extra });
}

describe('next action and refusal', () => {
  it('refuses with a reason naming what to record when nothing can be derived', async () => {
    const dir = await workbench({
      'agent_state.json': { active_task_id: 'T-1', touched_files: [] },
      'feedback_record.jsonl': `${JSON.stringify({ command: ['npm', 'test'], exit_code: 0 })}\n`,
    });
    const r = await build(dir);
    assert.equal(r.ok, false);
    if (!r.ok) assert.match(r.reason, /next_action.*agent_state\.json/);
  });

  it('derives the step from a blocking verification finding, whatever word marks it blocking', async () => {
    const dir = await workbench({
      'agent_state.json': { active_task_id: 'T-1', touched_files: [] },
      'verification_report.json': { passed: false, findings: [{ code: 'acceptance.failed', severity: 'fatal', detail: 'route returns 500' }] },
    });
    const r = await build(dir);
    assert.ok(r.ok, r.ok ? '' : r.reason);
    if (!r.ok) return;
    assert.match(r.packet.next_action, /blocking verification finding acceptance\.failed: route returns 500/);
    assert.equal(r.packet.open_risks.find((x) => x.id === 'verify:acceptance.failed')?.severity, 'block');
  });

  it('derives the step from the newest failing command, naming it and its failure', async () => {
    const dir = await workbench({
      'feedback_record.jsonl': [
        { command: ['npm', 'run', 'lint'], exit_code: 1, stderr_tail: 'old failure' },
        { command: ['npm', 'test'], exit_code: 2, stderr_tail: 'TypeError: x is undefined\n  at y' },
        { command: ['git', 'status'], exit_code: 0 },
      ].map((r) => JSON.stringify(r)).join('\n'),
    });
    const r = await build(dir);
    assert.ok(r.ok);
    if (!r.ok) return;
    assert.equal(r.packet.next_action_source, 'derived');
    assert.match(r.packet.next_action, /`npm test`/);
    assert.match(r.packet.next_action, /exit 2: TypeError: x is undefined/);
    assert.ok(!r.packet.next_action.includes('lint'));
  });

  it('skips a failure that a later run of the same command fixed', async () => {
    const dir = await workbench({
      'feedback_record.jsonl': [
        { command: ['npm', 'run', 'lint'], exit_code: 1, stderr_tail: 'lint error' },
        { command: ['npm', 'test'], exit_code: 1, stderr_tail: 'red' },
        { command: ['npm', 'test'], exit_code: 0 },
      ].map((r) => JSON.stringify(r)).join('\n'),
    });
    const r = await build(dir);
    assert.ok(r.ok && /`npm run lint`/.test(r.packet.next_action), r.ok ? r.packet.next_action : r.reason);
  });

  it('a newest timeout asks to check for partial effects before re-running', async () => {
    const dir = await workbench({ 'feedback_record.jsonl': JSON.stringify({ command: 'make migrate', exit_code: null, error: 'timed out' }) });
    const r = await build(dir);
    assert.ok(r.ok && /partly applied/.test(r.packet.next_action) && r.packet.failed_attempts[0]!.uncertain);
  });

  it('clean findings become block risks with paths; session id and generated_at fall back without agent data', async () => {
    const dir = await workbench({ 'agent_state.json': { next_action: 'ship it' } });
    const clean = { clean: false, findings: [{ check: 'temp-artifacts' as const, kind: 'temp-files' as const, detail: 'debug.tmp exists', paths: ['debug.tmp'], fix: 'delete it' }] };
    const a = await build(dir, { clean, allowDirty: true });
    const b = await build(dir, { clean, allowDirty: true });
    assert.ok(a.ok && b.ok);
    if (!a.ok || !b.ok) return;
    const risk = a.packet.open_risks.find((x) => x.id === 'clean:temp-artifacts');
    assert.equal(risk?.severity, 'block');
    assert.equal(risk?.source, 'clean_state');
    assert.deepEqual(risk?.paths, ['debug.tmp']);
    assert.match(a.packet.session_id, /^session-[0-9a-f]{12}$/);
    assert.equal(a.packet.session_id, b.packet.session_id);
    assert.equal(a.packet.generated_at, '1970-01-01T00:00:00.000Z');
    assert.equal(a.packet.topic, 'default');
    const withGit = await build(dir, { git: { repo: 'r', branch: 'main', headCommit: 'abc', headTime: '2026-01-02T03:04:05Z', changedFiles: [{ path: 'a.ts', kind: 'modified' }], lastKnownGoodCommit: null } });
    assert.ok(withGit.ok && withGit.packet.generated_at === '2026-01-02T03:04:05.000Z' && withGit.packet.changed_files[0]!.kind === 'modified');
  });

  it('maps agent risk severities (critical→block, medium→warn, low→info, unknown→warn) and flags hard_fail reviews', async () => {
    const dir = await workbench({
      'agent_state.json': { next_action: 'x', open_risks: [
        { id: 'a', severity: 'critical', detail: 'A', owner: 'human', verify: 'make check' },
        { severity: 'medium', detail: 'B' }, { severity: 'low', detail: 'C' }, { severity: 'weird', detail: 'D' }, 'E'] },
      'review_report.json': { total: 8, verdict: 'hard_fail' },
    });
    const r = await build(dir);
    assert.ok(r.ok);
    if (!r.ok) return;
    const sev = Object.fromEntries(r.packet.open_risks.map((x) => [x.detail.slice(0, 1), x.severity]));
    assert.deepEqual([sev['A'], sev['B'], sev['C'], sev['D'], sev['E']], ['block', 'warn', 'info', 'warn', 'warn']);
    const a = r.packet.open_risks.find((x) => x.id === 'agent:a');
    assert.equal(a?.owner, 'human');
    assert.equal(a?.verify, 'make check');
    assert.equal(r.packet.open_risks.find((x) => x.id === 'review:hard_fail')?.severity, 'block');
  });
});
