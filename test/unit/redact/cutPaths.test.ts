import * as assert from 'node:assert/strict';
import { promises as fs } from 'node:fs';
import * as path from 'node:path';
import { runCli } from '../../../src/cli/run';
import { redact } from '../../../src/core/redact';
import { goalOf } from '../../../src/core/packet/build';
import { cutAtParagraph, wholeWords } from '../../../src/core/packet/judgement';
import { clip } from '../../../src/core/render/prompt';
import { shortCommand } from '../../../src/core/session/credentials';
import { cut, cutAtWord } from '../../../src/core/session/text';
import { makeRepo, tempRepos } from '../helpers/gitRepo';
import { claudeHome } from './transcript';
import { fake } from './corpus';

/**
 * Mask before cut: a text cut to a cap (an excerpt, a summary, a question, a command, closing or human
 * words) is redacted whole first, so no cut can leave part of a credential behind, nor make a cut one
 * read as a placeholder (`hunter2hun…`). The texts here are runs of credentials of several shapes with
 * varying gaps: wherever a cap falls, it falls inside one of them.
 */

const B64 = 'ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/';
const URLSAFE = 'ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789_-';
const j = (...parts: string[]): string => parts.join('');
const jwtPart = (o: object): string => Buffer.from(JSON.stringify(o)).toString('base64url');

/** The shapes the audit saw cut: each gives the text and the secret part that must never show. */
const SHAPES: ((seed: number) => { text: string; secret: string })[] = [
  (n) => ({ text: `DB_PASSWORD=${fake(n, 16)}`, secret: fake(n, 16) }),
  (n) => ({ text: `X-Goog-Token: ya29.${fake(n, 40, URLSAFE)}`, secret: fake(n, 40, URLSAFE) }),
  (n) => ({ text: `{"SessionToken": "${fake(n, 48, B64)}"}`, secret: fake(n, 48, B64) }),
  (n) => ({ text: j('sk_', 'live_', fake(n, 28)), secret: fake(n, 28) }),
  (n) => ({ text: j('gh', 'p_', fake(n, 36)), secret: fake(n, 36) }),
  (n) => {
    const t = j(jwtPart({ alg: 'HS256', typ: 'JWT' }), '.', jwtPart({ sub: fake(n, 10), iat: 1764400000 + n }), '.', fake(n + 1, 43, URLSAFE));
    // The header is the same for every token: the payload and the signature are the secret.
    return { text: t, secret: t.slice(t.indexOf('.') + 1) };
  },
  (n) => ({ text: `-----BEGIN RSA PRIVATE KEY----- ${fake(n, 80, B64)} -----END RSA PRIVATE KEY-----`, secret: fake(n, 80, B64) }),
];

/** A text of `count` credentials (shapes in turn, gaps of 1 to 13 characters): a cap falls inside one. */
function series(seed: number, count: number, sep = ' '): { text: string; secrets: string[] } {
  const parts: string[] = [];
  const secrets: string[] = [];
  for (let i = 0; i < count; i++) {
    const s = SHAPES[i % SHAPES.length]!(seed + i * 7);
    parts.push(`${'w'.repeat(1 + ((i * 5) % 13))}${sep}${s.text}`);
    secrets.push(s.secret);
  }
  return { text: parts.join(sep), secrets };
}

/** The 8-character pieces of any secret found in `text`. */
function leaked(text: string, secrets: readonly string[]): string[] {
  const out: string[] = [];
  for (const s of secrets) {
    for (let i = 0; i + 8 <= s.length; i++) {
      if (text.includes(s.slice(i, i + 8))) {
        out.push(s.slice(i, i + 8));
        break;
      }
    }
  }
  return out;
}

describe('mask before cut: every cap of session and workbench text', () => {
  it('the cut helpers redact the whole text first, wherever their cap falls', () => {
    const { text, secrets } = series(1, 60);
    const helpers: [string, (t: string, n: number) => string][] = [
      ['cut', cut],
      ['cutAtWord', (t, n) => cutAtWord(t, n).text],
      ['cutAtParagraph', (t, n) => cutAtParagraph(t, n).text],
      ['wholeWords', (t, n) => wholeWords(t, n).text],
      ['clip', clip],
      // Fixed caps: the text moves under them instead.
      ['goalOf', (t, n) => goalOf(`${'w'.repeat(n % 97)} ${t}`) ?? ''],
      ['shortCommand', (t, n) => shortCommand(`${'w'.repeat(n % 97)} ${t}`)],
    ];
    for (const [name, f] of helpers) {
      for (let n = 60; n < 1200; n += 37) {
        const out = f(text, n);
        assert.ok(out.length > 0 && out.length < text.length, `${name} ${n}: ${out.length}`);
        assert.deepEqual(leaked(out, secrets), [], `${name} cut at ${n}: ${out}`);
      }
    }
  });

  it('a value an earlier writer cut before it reached the redaction is masked: the ellipsis is no placeholder', () => {
    // DB_PASSWORD, X-Goog-Token, SessionToken and a one-line private key, cut at every length past their key.
    for (const shape of [SHAPES[0]!, SHAPES[1]!, SHAPES[2]!, SHAPES[6]!]) {
      const { text, secret } = shape(5);
      for (let n = text.indexOf(secret) + 8; n <= text.length; n++) {
        const out = redact(`${text.slice(0, n)}…`);
        assert.deepEqual(leaked(out, [secret]), [], out);
      }
    }
  });
});

describe('mask before cut: the outputs of a session whose texts are runs of credentials', () => {
  const make = tempRepos(() => makeRepo({ branch: 'feat/x', files: { 'README.md': '# app\n' } }));

  // Spaced, a cap cuts at a word; joined by commas, it cuts inside a credential.
  for (const sep of [' ', ',']) it(`packet JSON, handoff.md, restart prompt, SessionStart text and \`handoff secrets\` show no part of any (joined by ${JSON.stringify(sep)})`, async () => {
    const r = make();
    const { text, secrets } = series(3, 70, sep);
    // A one-line private key in a command: `handoff secrets` names the command, cut to a line.
    const key = fake(9, 90, B64);
    const command = `KEY="-----BEGIN OPENSSH PRIVATE KEY----- ${key} -----END OPENSSH PRIVATE KEY-----" ./deploy.sh`;
    const home = await claudeHome(r.dir, text, command);
    // The workbench says the same in the fields the packet cuts: summary, next action, questions, risks, a failure.
    r.write('agent_state.json', JSON.stringify({
      schema_version: 1, session_id: 'cut-1', branch: 'feat/x', summary: text, next_action: `Fix the deploy: ${text}`,
      decisions: [{ text, status: 'rejected' }], assumptions: [{ text }], blockers: [text], questions_for_human: [text],
      open_risks: [{ id: 'r1', severity: 'high', detail: text }],
    }));
    r.write('feedback_record.jsonl', `${JSON.stringify({ command: 'npm run deploy', exit_code: 1, error: text, stderr_tail: text, started_at: 1764400000 })}\n`);
    r.commit('session work');

    const env = { ...process.env, CLAUDE_CONFIG_DIR: home, CODEX_HOME: path.join(home, 'no-codex'), HANDOFF_HOOK_INLINE: '1' };
    const run = async (args: string[], stdin = ''): Promise<string> => {
      let out = '';
      await runCli(args, { stdout: (t) => (out += t), stderr: (t) => (out += t), cwd: r.dir, env, readStdin: async () => stdin });
      return out;
    };
    const outputs: Record<string, string> = {};
    outputs['generate --json'] = await run(['generate', '--allow-dirty', '--json', '--goal', text]);
    const written = JSON.parse(outputs['generate --json']) as { json: string; md: string };
    outputs['handoff.json'] = await fs.readFile(written.json, 'utf8');
    outputs['handoff.md'] = await fs.readFile(path.join(path.dirname(written.json), 'handoff.md'), 'utf8');
    outputs['prompt'] = await run(['prompt']);
    outputs['show'] = await run(['show']);
    outputs['check'] = await run(['check']);
    outputs['status'] = await run(['status']);
    const start = (source: string): string => JSON.stringify({ session_id: 'c0ffee-2', cwd: r.dir, hook_event_name: 'SessionStart', source });
    outputs['SessionStart startup'] = await run(['hook'], start('startup'));
    outputs['SessionStart compact'] = await run(['hook'], start('compact'));
    outputs['secrets'] = await run(['secrets', '--dir', r.dir]);
    outputs['secrets --json'] = await run(['secrets', '--dir', r.dir, '--json']);

    // The runs did what they are for: a packet quoting the session, a restart prompt, findings.
    const packet = JSON.parse(outputs['handoff.json']) as { human_words: unknown[]; closing: { text: string } | null; open_risks: { id: string }[] };
    assert.ok(packet.closing?.text.includes('[REDACTED]'), 'the closing words are kept, masked');
    assert.ok(packet.open_risks.some((x) => x.id.startsWith('leak:')), 'the credentials are block risks');
    assert.match(outputs['SessionStart startup'] ?? '', /^\{"hookSpecificOutput".*HANDOFF FROM /);
    assert.match(outputs['secrets'] ?? '', /private key/);

    const leaks: string[] = [];
    for (const [where, out] of Object.entries(outputs)) {
      const found = leaked(out, [...secrets, key]);
      if (found.length) leaks.push(`${where}: ${found.join(', ')}`);
    }
    assert.deepEqual(leaks, []);
  });
});
