import * as assert from 'node:assert/strict';
import { detectSecrets, MASK, redact, redactDocument } from '../../../src/core/redact';
import type { Packet } from '../../../src/core/packet/schema';
import { code, renderMarkdown } from '../../../src/core/render/markdown';
import { renderRestartPrompt } from '../../../src/core/render/prompt';
import { buildTestPacket } from '../helpers/packetBuilder';
import { fake, fragmentsIn } from './corpus';

/** A seeded source of random draws (mulberry32), so a failure names the seed that shows it. */
function rng(seed: number): { int(n: number): number; pick<T>(xs: readonly T[]): T; str(n: number, alphabet?: string): string } {
  let a = seed >>> 0;
  const next = (): number => {
    a = (a + 0x6d2b79f5) >>> 0;
    let t = a;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
  const ALNUM = 'abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789';
  return {
    int: (n) => Math.floor(next() * n),
    pick: (xs) => xs[Math.floor(next() * xs.length)]!,
    str(n, alphabet = ALNUM) {
      let s = '';
      while (s.length < n) s += alphabet[Math.floor(next() * alphabet.length)];
      // A random token mixes letters and digits; a short draw might not.
      return /\d/.test(s) || !/\d/.test(alphabet) ? s : `${s.slice(0, -1)}7`;
    },
  };
}
type Rng = ReturnType<typeof rng>;

const HEX = '0123456789abcdef';
const UP = 'ABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789';
const LETTERS = 'abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ';
const URLSAFE = 'ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789_-';
const B64 = 'ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/';
const j = (...p: string[]): string => p.join('');

/** A fresh, format-valid value for each provider rule (prefixes split so no literal is a credential). */
const PROVIDERS: Record<string, (r: Rng) => string> = {
  stripe: (r) => j(r.pick(['sk', 'rk']), '_', r.pick(['live', 'test']), '_', r.str(24 + r.int(76))),
  'stripe-webhook': (r) => j('wh', 'sec_', r.str(32)),
  openai: (r) => j('sk', '-', r.pick(['proj-', 'svcacct-', 'ant-api03-', 'or-v1-', '']), r.str(40 + r.int(60), URLSAFE.replace('-', ''))),
  github: (r) => j('gh', r.pick(['p', 'o', 'u', 's', 'r']), '_', r.str(36)),
  'github-pat': (r) => j('github', '_pat_', r.str(22), '_', r.str(59)),
  gitlab: (r) => j('gl', r.pick(['pat', 'ptt', 'dt']), '-', r.str(20 + r.int(10))),
  'slack-token': (r) => j('xo', r.pick(['xb', 'xp', 'xa']), '-', r.str(12, '0123456789'), '-', r.str(12, '0123456789'), '-', r.str(24)),
  'slack-webhook': (r) => j('https://hooks.', 'slack.com/services/T', r.str(8, UP), '/B', r.str(10, UP), '/', r.str(24)),
  'discord-webhook': (r) => j('https://discord.com/api/', 'webhooks/', r.str(18, '0123456789'), '/', r.str(68, URLSAFE)),
  'discord-bot': (r) => j(r.pick(['M', 'N', 'O']), r.str(23), '.', r.str(6), '.', r.str(38)),
  'telegram-bot': (r) => j(r.str(10, '0123456789'), ':A', 'A', r.str(33, URLSAFE)),
  'aws-access-key': (r) => j(r.pick(['AK', 'AS']), 'IA', r.str(16, 'ABCDEFGHIJKLMNOPQRSTUVWXYZ234567')),
  'google-api-key': (r) => j('AI', 'za', r.str(35, URLSAFE)),
  huggingface: (r) => j('hf', '_', r.str(34, LETTERS)),
  npm: (r) => j('np', 'm_', r.str(36)),
  pypi: (r) => j('py', 'pi-', 'AgEIcHlwaS5vcmc', r.str(70, URLSAFE)),
  sendgrid: (r) => j('S', 'G.', r.str(22, URLSAFE), '.', r.str(43, URLSAFE)),
  twilio: (r) => j('S', 'K', r.str(32, HEX)),
  jwt: (r) => j(Buffer.from(JSON.stringify({ alg: 'HS256', typ: 'JWT' })).toString('base64url'), '.', Buffer.from(JSON.stringify({ sub: r.str(10) })).toString('base64url'), '.', r.str(43, URLSAFE)),
  'azure-storage-key': (r) => j('AccountKey=', r.str(86, B64), '=='),
  'azure-sas': (r) => j('https://a.blob.core.windows.net/c?sv=1&sig=', r.str(43, LETTERS + '0123456789'), '%3D'),
  digitalocean: (r) => j('do', r.pick(['p', 'o', 'r']), '_v1_', r.str(64, HEX)),
  shopify: (r) => j('shp', r.pick(['at', 'ca', 'pa', 'ss']), '_', r.str(32, HEX)),
  mailgun: (r) => j('ke', 'y-', r.str(32, HEX)),
  mailchimp: (r) => j(r.str(32, HEX), '-us', String(1 + r.int(20))),
  square: (r) => j('sq0', r.pick(['atp', 'csp']), '-', r.str(22 + r.int(20))),
  newrelic: (r) => j('NR', r.pick(['AK', 'JS', 'II']), '-', r.str(27, UP)),
  postman: (r) => j('PM', 'AK-', r.str(24, HEX), '-', r.str(34, HEX)),
  databricks: (r) => j('da', 'pi', r.str(32, HEX)),
  vault: (r) => j('hv', 's.', r.str(90, URLSAFE)),
  linear: (r) => j('lin', '_api_', r.str(40)),
  doppler: (r) => j('dp', '.', r.pick(['pt', 'st', 'sa']), '.', r.str(43)),
  age: (r) => j('AGE-SECRET', '-KEY-1', r.str(58, 'QPZRY9X8GF2TVDW0S3JN54KHCE6MUA7L')),
  grafana: (r) => j('gl', 'sa_', r.str(32), '_', r.str(8, HEX)),
  sentry: (r) => j('sntr', 'ys_', r.str(60, B64)),
  'gcp-oauth': (r) => j('GOC', 'SPX-', r.str(28, URLSAFE)),
  atlassian: (r) => j('ATA', 'TT3', r.str(183, URLSAFE)),
};

/** The places a value sits in logs, commands and JSON; each keeps a marker after it that must survive. */
const CONTEXTS: ((v: string) => string)[] = [
  (v) => `${v} END`,
  (v) => `using "${v}" END`,
  (v) => `'${v}' END`,
  (v) => `\`${v}\` END`,
  (v) => `{"value": "${v}", "next": "END"}`,
  (v) => `line one\n${v}\nEND`,
  (v) => `(${v}) END`,
];

/** The part of a drawn value that is the credential (a URL's or key=value's secret part). */
const secretOf = (v: string): string => v.replace(/^AccountKey=/, '').replace(/^https:\/\/[^?]*\?sv=1&sig=/, '').replace(/^https:\/\/hooks\.slack\.com\//, '').replace(/^https:\/\/discord\.com\/api\/webhooks\//, '');

describe('every provider rule, many random draws', () => {
  for (const [rule, draw] of Object.entries(PROVIDERS)) {
    it(`${rule}: 60 random values in seven places are masked whole, nothing after them eaten, idempotent`, () => {
      const r = rng(rule.length * 7919 + rule.charCodeAt(0));
      for (let i = 0; i < 60; i++) {
        const v = draw(r);
        const ctx = CONTEXTS[i % CONTEXTS.length]!;
        const text = ctx(v);
        const out = redact(text);
        const secret = secretOf(v);
        assert.deepEqual(fragmentsIn(out, secret), [], `${rule} draw ${i}: ${out}`);
        assert.ok(out.includes('END'), `${rule} draw ${i}: the text after it is kept: ${out}`);
        assert.equal(redact(out), out, `${rule} draw ${i}: idempotent`);
        assert.deepEqual(detectSecrets(out), [], `${rule} draw ${i}: nothing left`);
      }
    });
  }
});

describe('masking never eats the text around a credential', () => {
  const ak = (): string => j('AK', 'IA', fake(501, 16, 'ABCDEFGHIJKLMNOPQRSTUVWXYZ234567'));

  it('a masked value followed by a backtick, a quote or a space ends there when masked again', () => {
    const md = `- #14 \`aws s3 ls --access-key ${MASK}\` — exit 1\n- #15 \`npm run lint -- src/part26.ts\` — stopped (exit 137)`;
    assert.equal(redact(md), md);
    assert.equal(redact(`x --token ${MASK}" and "more"`), `x --token ${MASK}" and "more"`);
    assert.equal(redact(`export TOKEN=${MASK}' && PROGRAM=x run'`), `export TOKEN=${MASK}' && PROGRAM=x run'`);
  });

  it('the first mask of the failed-attempt bug: the key masked, both items and their numbers kept', () => {
    const text = `#14 \`aws s3 ls --access-key ${ak()}\` failed\n#15 \`npm run lint -- src/part26.ts\` stopped (exit 137)`;
    assert.equal(redact(text), `#14 \`aws s3 ls --access-key ${MASK}\` failed\n#15 \`npm run lint -- src/part26.ts\` stopped (exit 137)`);
  });

  it('a value in a quoted shell string ends at the space before the next assignment', () => {
    const key = fake(502, 24);
    assert.equal(redact(`bash -c 'API_TOKEN=${key} PROGRAM=$p ./run; done'`), `bash -c 'API_TOKEN=${MASK} PROGRAM=$p ./run; done'`);
  });

  it('a quote left open never carries the mask onto the next line', () => {
    assert.equal(redact('password: "abc123\nnext: kept'), `password: "${MASK}\nnext: kept`);
    assert.equal(redact('{\\"token\\": \\"abc123\nnext line'), `{\\"token\\": \\"${MASK}\nnext line`);
  });

  it('JSON keys are never masked: a quoted word before a colon is the next key', () => {
    const doc = '{"id": "secrets", "detail": "a block risk names it", "token": "x", "passwords": 2}';
    const out = redact(doc);
    assert.ok(out.includes('"detail": "a block risk names it"'), out);
    assert.ok(out.includes('"id": "secrets"'), out);
    const pretty = JSON.stringify({ probes: [{ id: 'secrets', title: 'Masked secrets are flagged as a risk', status: 'pass', detail: 'a block risk names the leaked credential', fix: 'Rotate it' }] }, null, 2);
    assert.equal(redact(pretty), pretty);
    assert.equal(redactDocument(pretty), pretty);
  });

  it('placeholders are neither masked nor flagged', () => {
    for (const p of [
      j('sk', '-ai-v1-your-key-here'),
      j('sk', '-...'),
      j('sk', '_live_', 'x'.repeat(24)),
      j('sk', '_live_', '0'.repeat(24)),
      j('gh', 'p_', 'X'.repeat(36)),
      'API_KEY=your-api-key-here',
      'token: <token>',
      'password=${DB_PASSWORD}',
      j('AK', 'IA', 'XXXXXXXXXXXXXXXX'),
      'OPENAI_API_KEY=sk-xxxxxxxxxxxxxxxxxxxxxxxx',
      'password=aaaaaaaaaaaa',
    ]) {
      assert.equal(redact(p), p, p);
      assert.deepEqual(detectSecrets(p), [], p);
    }
  });

  it('prose after a label is not a value', () => {
    for (const p of ['if token: return', 'if not token: raise ValueError("missing")', 'Token: missing path untested', 'Secret: handled by the vault team', 'password: see the wiki page']) {
      assert.equal(redact(p), p, p);
    }
    assert.equal(redact('password: hunter2'), `password: ${MASK}`);
  });

  it('a base64-encoded .env is masked run by run, each line kept, and flagged as encoded', () => {
    const key = j('sk', '_live_', fake(503, 40));
    const env = `PROVIDER_BASE_URL=https://api.payments.example/v1\nPROVIDER_API_KEY=${key}\nSYNC_BATCH_SIZE=200\n`;
    const b64 = Buffer.from(env).toString('base64').replace(/(.{76})/g, '$1\n');
    const text = `$ base64 .env\n${b64}\n$ echo done`;
    const out = redact(text);
    assert.ok(!Buffer.from(out.replace(/[^A-Za-z0-9+/=]/g, ''), 'base64').toString('latin1').includes(key.slice(8, 20)));
    assert.ok(out.startsWith('$ base64 .env\n') && out.endsWith('\n$ echo done'), out);
    assert.equal(out.split('\n').length, text.split('\n').length, 'lines kept');
    const hit = detectSecrets(text).find((h) => h.rule === 'base64');
    assert.match(hit?.label ?? '', /Stripe live key \(base64-encoded\)|base64-encoded/);
    // Whatever the length of its last line, the block is masked to its end.
    for (let pad = 0; pad < 40; pad++) {
      const k = j('sk', '_live_', fake(700 + pad, 30 + pad));
      const enc = Buffer.from(`API_KEY=${k}\n`).toString('base64').replace(/(.{76})/g, '$1\n');
      const masked = redact(`${enc}\n$ next`);
      assert.deepEqual(fragmentsIn(masked, k), [], masked);
      assert.ok(masked.endsWith('\n$ next'));
    }
    // Base64 of harmless text is left alone.
    const plain = Buffer.from('just some harmless configuration text here').toString('base64');
    assert.equal(redact(plain), plain);
  });

  it('a key the terminal wrapped across two lines is masked in both pieces; the next setting is not', () => {
    for (let i = 0; i < 30; i++) {
      const key = j('sk', '_live_', fake(600 + i, 40));
      const cut = 8 + (i % 30);
      const text = `the provider settings printed by the script: PROVIDER_API_KEY=${key.slice(0, cut)}\n${key.slice(cut)}\nSYNC_BATCH_SIZE=200`;
      const out = redact(text);
      assert.deepEqual(fragmentsIn(out, key), [], out);
      assert.ok(out.endsWith('\nSYNC_BATCH_SIZE=200'), out);
    }
  });
});

describe('rendered packets: every item under its own number with its own command, only the credential masked', () => {
  const CMD: ((r: Rng, v: string) => string)[] = [
    (_r, v) => `aws s3 ls --access-key ${v}`,
    (_r, v) => `curl -H "Authorization: Bearer ${v}" https://api.example/v1`,
    (_r, v) => `export API_TOKEN='${v}' && npm run lint`,
    (_r, v) => `git push https://${v}@github.com/o/r.git`,
    (_r, v) => `deploy --token=${v} --force`,
    (r) => `npm run lint -- src/part${r.int(90)}.ts`,
    (_r, v) => `echo ${v} | base64`,
  ];

  for (let seed = 1; seed <= 25; seed++) {
    it(`random packet ${seed}`, () => {
      const r = rng(seed * 104729);
      const rules = Object.keys(PROVIDERS).filter((k) => !['slack-webhook', 'discord-webhook', 'azure-sas', 'azure-storage-key'].includes(k));
      const secrets: string[] = [];
      const value = (): string => {
        const v = PROVIDERS[r.pick(rules)]!(r);
        secrets.push(v);
        return v;
      };
      const n = 3 + r.int(5);
      const failed: Packet['failed_attempts'] = [];
      for (let i = 0; i < n; i++) {
        const uncertain = r.int(3) === 0;
        failed.push({
          index: 10 + i,
          command: redact(r.pick(CMD)(r, value())),
          outcome: 'failed',
          exit_code: uncertain ? 137 : 1,
          note: redact(`note ${i}: saw ${value()} in the log`),
          excerpt: redact(`Error at step ${i}\nGITHUB_TOKEN=${value()}\n\`tail\` ok`),
          uncertain,
        });
      }
      const risks: Packet['open_risks'] = [];
      for (let i = 0; i < 1 + r.int(4); i++) risks.push({ id: `risk:${i}`, severity: r.pick(['block', 'warn', 'info'] as const), detail: redact(`risk ${i} mentions \`${value()}\` here`), source: 'x.json' });
      const p = buildTestPacket({
        failed_attempts: failed,
        open_risks: risks,
        summary: redact(`summary with ${value()}`),
        next_action: redact(`run \`deploy --token ${value()}\``),
        decisions: [{ text: redact(`rejected: hard-coding API_KEY=${value()}`), status: 'rejected' }, { text: redact(`kept ${value()} out of the repo`), status: 'made' }],
        questions_for_human: [redact(`rotate "${value()}" now?`)],
        assumptions_to_validate: [{ text: redact(`the key ${value()} is a test key`), verified: false }],
        commands_run: failed.map((f) => ({ index: f.index, command: f.command, exit_code: f.exit_code, outcome: 'failed' as const, started_at: null, duration_ms: null, note: f.note })),
      });
      const md = redact(renderMarkdown(p));
      const prompt = renderRestartPrompt(p);
      for (const out of [md, prompt]) {
        for (const s of secrets) assert.deepEqual(fragmentsIn(out, secretOf(s).slice(-24)), [], `seed ${seed}: leaked in\n${out}`);
        for (const f of failed) {
          const lines = out.split('\n').filter((l) => l.includes(`#${f.index} `));
          // The prompt lists the newest ones and says how many older ones the JSON holds.
          if (!lines.length && out === prompt && /older ones? in handoff\.json/.test(out)) continue;
          assert.ok(lines.length >= 1, `seed ${seed}: #${f.index} is missing`);
          for (const l of lines) assert.ok(l.includes(`#${f.index} ${code(f.command)}`), `seed ${seed}: #${f.index} lost its command: ${l}`);
        }
        for (const risk of risks) assert.ok(out.includes(risk.detail), `seed ${seed}: risk ${risk.id} changed`);
        for (const t of [...p.decisions.filter((d) => d.status === 'rejected').map((d) => d.text), ...p.questions_for_human, ...p.assumptions_to_validate.map((a) => a.text)]) {
          // Markdown escapes its markup characters (`\\[REDACTED\\]`): compared unescaped.
          const plain = out.replace(/\\([\\`*[\]<>|])/g, '$1');
          assert.ok(plain.includes(t), `seed ${seed}: "${t}" changed`);
        }
      }
      // The masked packet text comes back from a second redaction unchanged: nothing more is masked.
      assert.equal(redact(md), md);
    });
  }
});
