import * as assert from 'node:assert/strict';
import { promises as fs } from 'node:fs';
import * as path from 'node:path';
import { DEFAULT_OPTIONS } from '../../../src/core/options';
import { secretRisks, sessionSecretFindings, sourceFileOf } from '../../../src/core/packet/secretRisks';
import { credentialName, mayHoldCredential } from '../../../src/core/redact/scan';
import { CredentialScanner } from '../../../src/core/session/credentials';
import { readSessionFile } from '../../../src/core/session/reader';
import { generateHandoff } from '../../../src/core/workflow/generate';
import { createGitClient } from '../../../src/git/gitClient';
import { fixturePath, makeTempDir } from '../helpers/fixtures';
import { tempRepos } from '../helpers/gitRepo';
import { workbenchRepo } from '../helpers/workbenchRepo';
import { fake, SECRETS } from './corpus';

/** A copy of a shared transcript fixture in a temp folder, `__CWD__` replaced. */
async function copyTranscript(name: string, cwd: string): Promise<string> {
  const raw = await fs.readFile(fixturePath('transcripts', name), 'utf8');
  const dir = await makeTempDir('handoff-creds-');
  const file = path.join(dir, name);
  await fs.writeFile(file, raw.split('__CWD__').join(JSON.stringify(cwd).slice(1, -1)));
  return file;
}

/** The one value of a fixture's `secrets_to_flag` (read at run time: never written in this file). */
async function flagged(name: string): Promise<{ value: string; line: number; also?: number[] }> {
  const expected = JSON.parse(await fs.readFile(fixturePath('transcripts', name), 'utf8')) as { secrets_to_flag: { value: string; line: number; also_in_lines?: number[] }[] };
  const [s] = expected.secrets_to_flag;
  return { value: s!.value, line: s!.line, ...(s!.also_in_lines ? { also: s!.also_in_lines } : {}) };
}

describe('credentials an agent session saw are flagged', () => {
  const make = tempRepos(workbenchRepo);

  it('claude-tasks.jsonl: the key `cat .env` printed on line 24 is one block risk with its line and the command', async () => {
    const r = make();
    const secret = await flagged('claude-tasks.expected.json');
    const file = await copyTranscript('claude-tasks.jsonl', r.dir);
    const facts = await readSessionFile(file, 'claude-code');
    assert.ok(facts);
    assert.equal(facts.credentials?.length, 1, JSON.stringify(facts.credentials));
    const [c] = facts.credentials!;
    assert.deepEqual(c!.lines, [secret.line]);
    assert.equal(c!.printedBy, '`cd services/sync && cat .env`');
    assert.equal(c!.callLine, 23);
    assert.match(c!.kind, /Stripe live key/);
    assert.ok(!JSON.stringify(facts).includes(secret.value.slice(8, 20)), 'the value is never kept');

    // The file the command printed is in the repository, committed.
    r.write('services/sync/.env', `PROVIDER_BASE_URL=https://api.payments.example/v1\nPROVIDER_API_KEY=${secret.value}\n`);
    const since = r.commit('sync service settings');
    const out = await generateHandoff({ workspaceDir: r.dir, options: DEFAULT_OPTIONS, gitClient: createGitClient(r.dir), allowDirty: true, session: facts });
    assert.ok(out.kind === 'written', out.kind === 'refused' ? out.reason : '');
    const leaks = out.packet.open_risks.filter((x) => x.id.startsWith('leak:'));
    assert.equal(leaks.length, 1, JSON.stringify(leaks));
    const [risk] = leaks;
    assert.ok(risk!.detail.includes(`It comes from services/sync/.env line 2: git tracks that file; the line is in history since commit ${since.slice(0, 12)}.`), risk!.detail);
    assert.equal(risk!.severity, 'block');
    assert.ok(risk!.source?.endsWith(`claude-tasks.jsonl:${secret.line}`), risk!.source);
    assert.match(risk!.detail, /^`cd services\/sync && cat \.env` printed a Stripe live key/);
    assert.ok(risk!.detail.includes(`claude-tasks.jsonl line ${secret.line} (the call at line 23), which now holds a copy`), risk!.detail);
    assert.match(risk!.detail, /into the agent's transcript \(Claude Code\) /);
    assert.match(risk!.detail, /rotate the credential now; remove it from the file it came from and from git history .*; delete the transcript or scrub it/);
    assert.ok(!JSON.stringify(out.packet).includes(secret.value.slice(8, 20)));
  });

  it('codex-2026.jsonl: the npm token of `cat .npmrc` (lines 34 and 35) is one credential, one risk', async () => {
    const secret = await flagged('codex-2026.expected.json');
    const file = await copyTranscript('codex-2026.jsonl', '/home/dev/app');
    const facts = await readSessionFile(file, 'codex');
    assert.equal(facts?.credentials?.length, 1, JSON.stringify(facts?.credentials));
    const [c] = facts!.credentials!;
    assert.deepEqual(c!.lines, [secret.line, ...(secret.also ?? [])]);
    assert.equal(c!.printedBy, '`cat .npmrc`');
    const risks = secretRisks(sessionSecretFindings(facts!), {}, 'codex');
    assert.equal(risks.length, 1);
    assert.match(risks[0]!.detail, /^`cat \.npmrc` printed an npm access token .*lines 34, 35/);
  });

  it('a credential read through the file-read tool is one risk naming the file read', async () => {
    const key = ['sk', 'live', fake(301, 32)].join('_');
    const dir = await makeTempDir('handoff-creds-');
    const file = path.join(dir, 's.jsonl');
    const base = { sessionId: 's1', cwd: dir, version: '2.1.198' };
    await fs.writeFile(file, [
      { ...base, type: 'user', message: { role: 'user', content: 'check the env' }, uuid: 'u1' },
      { ...base, type: 'assistant', message: { role: 'assistant', content: [{ type: 'tool_use', id: 'toolu_01R', name: 'Read', input: { file_path: `${dir}/.env.local` } }] }, uuid: 'u2' },
      { ...base, type: 'user', message: { role: 'user', content: [{ tool_use_id: 'toolu_01R', type: 'tool_result', content: `     1\tAPI_KEY=${key}\n` }] }, toolUseResult: { type: 'text', file: { filePath: `${dir}/.env.local`, content: `API_KEY=${key}\n` } }, uuid: 'u3' },
    ].map((l) => JSON.stringify(l)).join('\n') + '\n');
    const facts = await readSessionFile(file, 'claude-code');
    assert.equal(facts?.credentials?.length, 1, JSON.stringify(facts?.credentials));
    assert.equal(facts!.credentials![0]!.printedBy, `Read of ${dir}/.env.local`);
    const risks = secretRisks(sessionSecretFindings(facts!));
    assert.equal(risks.length, 1);
    assert.ok(risks[0]!.detail.startsWith(`Read of ${dir}/.env.local printed a Stripe live key`), risks[0]!.detail);
  });

  it('a credential in a command itself names that command, masked, and never keeps the value', async () => {
    const token = ['gh', 'p_', fake(305, 36)].join('');
    const dir = await makeTempDir('handoff-creds-');
    const file = path.join(dir, 's.jsonl');
    const base = { sessionId: 's3', cwd: dir };
    await fs.writeFile(file, `${JSON.stringify({ ...base, type: 'assistant', message: { role: 'assistant', content: [{ type: 'tool_use', id: 'toolu_01C', name: 'Bash', input: { command: `curl -H "Authorization: Bearer ${token}" https://api.github.com/user` } }] }, uuid: 'u1' })}\n`);
    const facts = await readSessionFile(file, 'claude-code');
    assert.equal(facts?.credentials?.length, 1, JSON.stringify(facts?.credentials));
    assert.equal(facts!.credentials![0]!.printedBy, 'the command `curl -H "Authorization: Bearer [REDACTED]" https://api.github.com/user`');
    assert.ok(!JSON.stringify(facts).includes(token.slice(4, 16)));
    const [risk] = secretRisks(sessionSecretFindings(facts!));
    assert.match(risk!.detail, /^A GitHub token is in the command `curl -H "Authorization: Bearer \[REDACTED\]" https:\/\/api\.github\.com\/user`, in the agent's transcript .*s\.jsonl line 1, which now holds a copy/);
  });

  it('the same value in a workbench file and the session is one risk listing both places', async () => {
    const r = make();
    const key = ['sk', 'live', fake(302, 30)].join('_');
    r.write('feedback_record.jsonl', `${JSON.stringify({ command: ['./deploy.sh'], exit_code: 0, stdout_tail: `using ${key}` })}\n`);
    const dir = await makeTempDir('handoff-creds-');
    const file = path.join(dir, 's.jsonl');
    const base = { sessionId: 's2', cwd: r.dir };
    await fs.writeFile(file, [
      { ...base, type: 'user', message: { role: 'user', content: `deploy with ${key}` }, uuid: 'u1' },
    ].map((l) => JSON.stringify(l)).join('\n') + '\n');
    const facts = await readSessionFile(file, 'claude-code');
    const out = await generateHandoff({ workspaceDir: r.dir, options: DEFAULT_OPTIONS, gitClient: createGitClient(r.dir), allowDirty: true, session: facts });
    assert.ok(out.kind !== 'refused', out.kind === 'refused' ? out.reason : '');
    const leaks = out.packet.open_risks.filter((x) => x.id.startsWith('leak:'));
    assert.equal(leaks.length, 1, JSON.stringify(leaks));
    assert.match(leaks[0]!.detail, /^A Stripe live key in feedback_record\.jsonl line 1 \(masked in this packet\)\. Also seen in a user message in the agent transcript .*s\.jsonl line 1\./);
    assert.match(leaks[0]!.detail, /now holds a copy/);
  });

  it('a feedback log whose only credential is in an old green record, outside the kept window, yields one risk', async () => {
    const r = make();
    const key = ['gh', 'p_', fake(303, 36)].join('');
    const lines = [JSON.stringify({ command: ['./sync.sh'], exit_code: 0, stdout_tail: `token ${key}`, started_at: 1764400000 })];
    for (let i = 1; i < 40; i++) lines.push(JSON.stringify({ command: ['pytest', '-q'], exit_code: 0, stdout_tail: 'ok', started_at: 1764400000 + i }));
    r.write('feedback_record.jsonl', `${lines.join('\n')}\n`);
    r.commit('log');
    const out = await generateHandoff({ workspaceDir: r.dir, options: { ...DEFAULT_OPTIONS, feedbackK: 5 }, gitClient: createGitClient(r.dir), allowDirty: true });
    assert.ok(out.kind !== 'refused', out.kind === 'refused' ? out.reason : '');
    assert.ok(!out.packet.commands_run.some((c) => JSON.stringify(c).includes('sync.sh')), 'the record is not kept');
    const leaks = out.packet.open_risks.filter((x) => x.id.startsWith('leak:'));
    assert.equal(leaks.length, 1, JSON.stringify(out.packet.open_risks));
    assert.match(leaks[0]!.detail, /^A GitHub token in feedback_record\.jsonl line 1 .*since commit/);
    assert.ok(!JSON.stringify(out.packet).includes(key.slice(4, 16)));
  });

  it('ids, model names and ordinary JSON do not pass the pre-filter; a tool call alone is remembered, not flagged', () => {
    const s = new CredentialScanner('claude-code');
    const passed: number[] = [];
    const line = (o: unknown, n: number): void => {
      const b = Buffer.from(JSON.stringify(o));
      if (mayHoldCredential(b)) passed.push(n);
      s.line(b, n);
    };
    line({ type: 'assistant', uuid: '7c9e6679-7425-40de-944b-e07fc1f90ae7', message: { id: 'msg_01rHyFvluw8LGcBD5rOG8YPf', model: 'claude-sonnet-4-5-20250929', content: [{ type: 'tool_use', id: 'toolu_01EOxIzADEYWeeW9LwYxjmsj', name: 'Bash', input: { command: 'git log -1' } }], usage: { input_tokens: 3, output_tokens: 174, cache_creation: { ephemeral_1h_input_tokens: 0, ephemeral_5m_input_tokens: 0 } } }, gitBranch: 'fix/sync-429-backoff', version: '2.1.198', requestId: 'req_011CC7fuFcHiNL2nxiJN0z8C' }, 1);
    line({ type: 'user', message: { content: [{ tool_use_id: 'toolu_01EOxIzADEYWeeW9LwYxjmsj', type: 'tool_result', content: 'On branch main\nnothing to commit, working tree clean' }] } }, 2);
    // A thinking block's signature and a pasted image: base64 the agent writes, skipped whole.
    line({ type: 'assistant', message: { content: [{ type: 'thinking', thinking: 'Checking the log.', signature: fake(307, 400, 'ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/') }] } }, 2);
    line({ type: 'user', message: { content: [{ type: 'image', source: { type: 'base64', media_type: 'image/png', data: fake(308, 4000, 'ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/') } }] } }, 2);
    assert.deepEqual(s.credentials(), []);
    assert.deepEqual(passed, [], 'neither line goes to the detector');
    const key = ['AK', 'IA', fake(304, 16, 'ABCDEFGHIJKLMNOPQRSTUVWXYZ234567')].join('');
    line({ type: 'user', message: { content: [{ tool_use_id: 'toolu_01EOxIzADEYWeeW9LwYxjmsj', type: 'tool_result', content: `aws_access_key_id = ${key}` }] } }, 3);
    const [c] = s.credentials();
    assert.equal(c?.printedBy, '`git log -1`');
    assert.deepEqual(c?.lines, [3]);
    assert.deepEqual(passed, [3]);
  });

  it('a .env printed base64-encoded, and a key the terminal wrapped, are each one credential of the session', async () => {
    const key = ['sk', 'live', fake(309, 40)].join('_');
    const other = ['sk', 'live', fake(310, 40)].join('_');
    const b64 = Buffer.from(`DB_HOST=db\nAPI_KEY=${key}\n`).toString('base64').replace(/(.{76})/g, '$1\n');
    const wrapped = `the provider settings the script printed: PROVIDER_API_KEY=${other.slice(0, 18)}\n${other.slice(18)}\nBATCH=200`;
    const s = new CredentialScanner('claude-code');
    s.line(Buffer.from(JSON.stringify({ type: 'user', message: { content: [{ tool_use_id: 'toolu_x', type: 'tool_result', content: b64 }] } })), 7);
    s.line(Buffer.from(JSON.stringify({ type: 'user', message: { content: [{ tool_use_id: 'toolu_y', type: 'tool_result', content: wrapped }] } })), 9);
    assert.deepEqual(s.credentials().map((c) => [c.kind, c.lines]), [['a Stripe live key (base64-encoded)', [7]], ['a Stripe live key (PROVIDER_API_KEY)', [9]]]);
  });

  it('a line too long to hold is scanned at its head and its tail', async () => {
    const key = ['xo', 'xb-', '123456789012-123456789012-', fake(306, 24)].join('');
    const dir = await makeTempDir('handoff-creds-');
    const file = path.join(dir, 's.jsonl');
    const big = 'y'.repeat(5 * 1024 * 1024);
    await fs.writeFile(file, `${JSON.stringify({ type: 'user', sessionId: 's4', cwd: dir, message: { role: 'user', content: `SLACK=${key} ${big} end` } })}\n`);
    const facts = await readSessionFile(file, 'claude-code');
    assert.deepEqual(facts?.credentials?.map((c) => [c.kind, c.lines]), [['a Slack token', [1]]]);
  });

  it('the file a command printed: cat, head, tail, base64 after cd; a file read; nothing for other commands', () => {
    assert.equal(sourceFileOf('`cd services/sync && cat .env`', '/w'), '/w/services/sync/.env');
    assert.equal(sourceFileOf('`head -n 5 config/.env.local | grep KEY`', '/w'), '/w/config/.env.local');
    assert.equal(sourceFileOf('`base64 .env`', '/w'), '/w/.env');
    assert.equal(sourceFileOf('Read of /w/.env.local', '/x'), '/w/.env.local');
    assert.equal(sourceFileOf('`git remote -v`', '/w'), null);
    assert.equal(sourceFileOf('a user message', '/w'), null);
    assert.equal(sourceFileOf('`cat .env`', null), null);
  });

  it('the pre-filter passes every shape of the redaction corpus inside a JSON line', () => {
    const missed = SECRETS.filter((c) => !mayHoldCredential(Buffer.from(JSON.stringify({ type: 'user', message: { content: [{ type: 'tool_result', content: c.text }] } })))).map((c) => c.name);
    assert.deepEqual(missed, []);
  });

  it('each free-text word passes the pre-filter on a line of plain words, in any of its searches; the line without it does not', () => {
    // The words of ./scan FREE_TEXT_WORDS: a password given in words, sudo, nmcli, an askpass, a push URL, CJK.
    const words = ['assword', 'ASSWORD', 'asswd', 'ASSWD', 'assphrase', 'ASSPHRASE', 'asscode', 'sudo', 'nmcli', 'askpass', 'iwconfig', 'day.app', 'ntfy', ' pw ', ' PW ', 'pin ', 'PIN ', '密码', '密碼', '口令', 'パスワード', '暗証番号', '비밀번호', '암호'];
    const plain = (w: string, before: string) => Buffer.from(JSON.stringify({ type: 'message', text: `${before} see the notes on ${w} for later` }));
    for (const before of ['we talked about it', 'ünïcode first, then']) {
      assert.deepEqual(words.filter((w) => !mayHoldCredential(plain(w, before))), [], before);
      assert.equal(mayHoldCredential(plain('that', before)), false, before);
    }
  });

  it('a password given in a message is found on a line with no id to pass the pre-filter with (Codex)', () => {
    const word = fake(25, 8, 'abcdefghijklmnop');
    const pw = `${fake(26, 6, 'abcdefghij')}${fake(27, 3, '0123456789')}`;
    const messages = [`the root password is ${word}`, `my sudo password is ${pw}`, `我的密码是 ${pw}`, `echo ${pw} | sudo -S ls`, `nmcli dev wifi connect Home password ${pw}`];
    messages.forEach((text, i) => {
      const line = JSON.stringify({ timestamp: '2025-01-01T12:00:00.000Z', type: 'response_item', payload: { type: 'message', role: 'user', content: [{ type: 'input_text', text }] } });
      assert.ok(mayHoldCredential(Buffer.from(line)), text);
      const scanner = new CredentialScanner('codex');
      scanner.line(Buffer.from(line), i + 1);
      assert.equal(scanner.credentials().length, 1, text);
    });
    // A line with none of these words still costs no detector run.
    assert.ok(!mayHoldCredential(Buffer.from(JSON.stringify({ type: 'response_item', payload: { text: 'the build passed in 3 s' } }))));
  });

  it('a credential is named by the variable or host that holds it, never by something that looks like a key itself', () => {
    assert.equal(credentialName('STRIPE_SECRET_KEY=sk_live_x', 'STRIPE_SECRET_KEY='.length), 'STRIPE_SECRET_KEY');
    assert.equal(credentialName('url: https://devnet.helius-rpc.com/?api-key=abc', 'url: https://devnet.helius-rpc.com/?api-key='.length), 'url, devnet.helius-rpc.com', 'the line\'s own variable first, then the host');
    // A mixed-case id with digits before the secret (a key id, an account token) is not shown as its name.
    const text = 'AbC9dEf8GhI7jKl6MnO5pQr4:s3cr3tP4ssw0rdValue';
    assert.equal(credentialName(text, text.indexOf(':') + 1), undefined);
  });
});
