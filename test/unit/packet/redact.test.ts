import * as assert from 'node:assert/strict';
import { promises as fs } from 'node:fs';
import * as path from 'node:path';
import { loadWorkbench } from '../../../src/core/artifacts/loader';
import { DEFAULT_OPTIONS } from '../../../src/core/options';
import { buildPacket, serializePacket } from '../../../src/core/packet/build';
import { redact, redactDeep } from '../../../src/core/redact';
import { renderMarkdown } from '../../../src/core/render/markdown';
import { renderRestartPrompt } from '../../../src/core/render/prompt';
import { makeTempDir } from '../helpers/fixtures';

/** [kind, input, the secret that must not survive, text that must survive]. */
const TABLE: [string, string, string, string][] = [
  ['bearer header', "curl -H 'Authorization: Bearer abc.DEF-123_xyz987' https://x", 'abc.DEF-123_xyz987', 'https://x'],
  ['sk- key', 'use sk-abcdefghijklmnopqrstuvwx now', 'abcdefghijklmnopqrstuvwx', 'now'],
  ['sk-live key', 'k=sk-live-4f9a8b7c6d5e4f3a2b1c', '4f9a8b7c6d5e4f3a2b1c', 'k='],
  ['sk-proj key', 'OPENAI sk-proj-AbCdEf0123456789xyz', 'AbCdEf0123456789xyz', 'OPENAI'],
  ['ghp token', 'git clone https://ghp_abcdefghijklmnopqrstuvwxyz012345@github.com/o/r', 'abcdefghijklmnopqrstuvwxyz012345', 'github.com/o/r'],
  ['gho token', 'gho_ABCDEFGHIJKLMNOPQRSTUVWX', 'ABCDEFGHIJKLMNOPQRSTUVWX', ''],
  ['github_pat', 'github_pat_11AAAAAAA0123456789_bbbbbbbbbbbbbbbbbbbb', '11AAAAAAA0123456789_bbbbbbbbbbbbbbbbbbbb', ''],
  ['AWS access key', 'id AKIAIOSFODNN7EXAMPLE here', 'IOSFODNN7EXAMPLE', 'here'],
  ['aws_secret_access_key', 'aws_secret_access_key = wJalrXUtnFEMI/K7MDENG/bPxRfiCYEXAMPLEKEY', 'wJalrXUtnFEMI/K7MDENG', 'aws_secret_access_key'],
  ['password=', 'DB_PASSWORD=hunter2 ./run', 'hunter2', './run'],
  ['token=', 'https://api.example/x?token=abc123def&page=2', 'abc123def', 'page=2'],
  ['secret=', 'client_secret: s3cr3t-value', 's3cr3t-value', 'client_secret'],
  ['api_key=', 'api_key=AIzaFAKEFAKE', 'AIzaFAKEFAKE', 'api_key'],
  ['--password flag', 'mysql --password hunter2 -u root', 'hunter2', '-u root'],
  ['--token= flag', 'deploy --token=t0k3nvalue --force', 't0k3nvalue', '--force'],
  ['JSON password', '{"user": "me", "password": "hunter2"}', 'hunter2', '"user": "me"'],
  ['URL credentials', 'postgres://admin:s3cr3tpw@db:5432/app', 's3cr3tpw', 'db:5432/app'],
  ['private key block', 'key:\n-----BEGIN OPENSSH PRIVATE KEY-----\nb3BlbnNzaC1rZXktdjEAAAA\n-----END OPENSSH PRIVATE KEY-----\ndone', 'b3BlbnNzaC1rZXktdjEAAAA', 'done'],
  ['cut-off private key', 'tail: -----BEGIN RSA PRIVATE KEY-----\nMIIEowIBAAKCAQEA', 'MIIEowIBAAKCAQEA', 'tail:'],
];

describe('redact', () => {
  for (const [kind, input, secret, keep] of TABLE) {
    it(`masks ${kind}`, () => {
      const out = redact(input);
      assert.ok(!out.includes(secret), out);
      assert.match(out, /\[REDACTED\]/);
      if (keep) assert.ok(out.includes(keep), `kept context: ${out}`);
      assert.equal(redact(out), out, 'idempotent');
    });
  }

  it('leaves ordinary commands alone', () => {
    for (const s of ['pytest tests/test_refund.py::test_partial', 'git commit -m "wip: paise"', 'npm run build -- --max-tokens', 'skip-this step',
      'curl api/v1/complete -d max_tokens=1024', 'llm --num-tokens=50 "hi"',
      'Fix the token refresh bug', 'Basic validation fails on empty input', 'pytest -k "token expiry"']) {
      assert.equal(redact(s), s);
    }
  });

  it('redactDeep reaches nested strings and keeps structure', () => {
    const v = redactDeep({ a: ['x sk-live-abcdefghijklmnop'], b: { c: 'password=p4ss', n: 3 } });
    assert.deepEqual(v, { a: ['x [REDACTED]'], b: { c: 'password=[REDACTED]', n: 3 } });
  });
});

describe('redaction across the packet', () => {
  it('masks secrets in every field that comes from agent-written files', async () => {
    const dir = await makeTempDir();
    const s = 'ghp_SECRETSECRETSECRETSECRET01';
    await fs.writeFile(path.join(dir, 'agent_state.json'), JSON.stringify({
      summary: `pushed with ${s}`, next_action: `export GITHUB_TOKEN=${s} and push`, touched_files: [`notes-${s}.txt`],
      decisions: [`rejected: hard-coding ${s}`], assumptions: [{ text: `token ${s} still valid` }], blockers: [`revoke ${s}`],
      questions_for_human: [`rotate ${s}?`], open_risks: [{ id: 'leak', severity: 'high', detail: `leaked ${s}`, verify: `gh auth status --token ${s}` }],
    }));
    await fs.writeFile(path.join(dir, 'verification_report.json'), JSON.stringify({ passed: false, findings: [{ code: 'x', severity: 'block', detail: `saw ${s}` }] }));
    await fs.writeFile(path.join(dir, 'feedback_record.jsonl'), `${JSON.stringify({ command: ['git', 'push', `https://${s}@github.com/o/r`], exit_code: 1, agent_note: s, stderr_tail: `denied for ${s}` })}\n`);
    const snapshot = await loadWorkbench(dir, { feedbackK: 5, maxCommands: 30 });
    const r = buildPacket({ snapshot, options: DEFAULT_OPTIONS, packetId: 'p', git: null, clean: null, allowDirty: false, context: null });
    assert.ok(r.ok);
    if (!r.ok) return;
    for (const text of [serializePacket(r.packet), renderMarkdown(r.packet), renderRestartPrompt(r.packet, { firstTurn: `use ${s}` })]) {
      assert.ok(!text.includes('SECRETSECRET'), text);
    }
    assert.equal(r.packet.failed_attempts.length, 1);
  });
});
