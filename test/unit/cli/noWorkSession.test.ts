import * as assert from 'node:assert/strict';
import { promises as fs, readFileSync } from 'node:fs';
import * as path from 'node:path';
import { claudeProjectSlug } from '../../../src/core/context/discovery';
import { PacketSchema, type Packet } from '../../../src/core/packet/schema';
import { makeRepo, tempRepos } from '../helpers/gitRepo';
import { handoff, otherUser } from '../helpers/workbenchRepo';
import { bashUse, CWD, claudeAssistant, claudeResult, claudeUserText, text } from '../session/sessionLines';

/** A session that adds no work (it read the handoff and answered a line) keeps the previous next action in force. */

async function writeSession(env: NodeJS.ProcessEnv, dir: string, id: string, lines: string[], ageSeconds: number): Promise<void> {
  const project = path.join(env['CLAUDE_CONFIG_DIR'] as string, 'projects', claudeProjectSlug(dir));
  await fs.mkdir(project, { recursive: true });
  const file = path.join(project, `${id}.jsonl`);
  await fs.writeFile(file, `${lines.map((l) => l.replaceAll(CWD, dir).replaceAll('sess-claude', id)).join('\n')}\n`);
  const t = new Date(Date.now() - ageSeconds * 1000);
  await fs.utimes(file, t, t);
}

function generate(dir: string, env: NodeJS.ProcessEnv): Packet {
  const r = handoff(['generate', '--dir', dir, '--allow-dirty', '--json'], { env });
  assert.equal(r.code, 0, r.stderr + r.stdout);
  const out = JSON.parse(r.stdout) as { json: string };
  return PacketSchema.parse(JSON.parse(readFileSync(out.json, 'utf8')));
}

const firstSession = [
  claudeUserText('Make the date test pass'),
  claudeAssistant([bashUse('t1', 'npm test')]),
  claudeResult('t1', 'Exit code 1\nAssertionError: 2026-01-01 !== 2025-12-31', { isError: true }),
  claudeAssistant([text('The test still fails on the time zone. Should I parse the dates as UTC?')]),
];

describe('a session that adds no work keeps the previous next action', () => {
  const make = tempRepos(() => makeRepo({ files: { 'README.md': '# app\n' } }));

  it('the next action, its origin and the open question stay in force, saying where they came from', async () => {
    const r = make();
    const env = await otherUser();
    await writeSession(env, r.dir, 'sess-one', firstSession, 120);
    const first = generate(r.dir, env);
    assert.equal(first.waiting_for_answers, true, first.next_action);
    await writeSession(env, r.dir, 'sess-two', [
      claudeUserText('hi, where are we?'),
      claudeAssistant([text('The previous session left a failing date test and a question about UTC parsing.')]),
    ], 0);
    const second = generate(r.dir, env);
    assert.notEqual(second.packet_id, first.packet_id);
    assert.equal(second.next_action, first.next_action);
    assert.deepEqual(second.next_action_origin, first.next_action_origin);
    assert.equal(second.waiting_for_answers, true);
    assert.match(second.sources['next_action'] ?? '', new RegExp(`carried forward from packet ${first.packet_id}`));
  });

  it('a session that changed something replaces the next action as usual', async () => {
    const r = make();
    const env = await otherUser();
    await writeSession(env, r.dir, 'sess-one', firstSession, 120);
    const first = generate(r.dir, env);
    await writeSession(env, r.dir, 'sess-two', [
      claudeUserText('yes, parse as UTC'),
      claudeAssistant([bashUse('t2', 'sed -i s/local/utc/ src/date.js && npm test')]),
      claudeResult('t2', 'ok 1 date', { isError: false }),
      claudeAssistant([text('Dates are parsed as UTC now and the test passes.')]),
    ], 0);
    const second = generate(r.dir, env);
    assert.notEqual(second.next_action, first.next_action);
    assert.doesNotMatch(second.sources['next_action'] ?? '', /carried forward/);
  });
});
