import * as assert from 'node:assert/strict';
import type * as RedactModule from '../../../src/core/redact';
import { detectSecrets, joinRedacted, MASK, redact, redactArgv, redactDeep, redactDocument, redactedJson } from '../../../src/core/redact';
import { fake } from './corpus';

// Fake, format-valid credentials assembled at run time (no literal here is one).
const B64 = 'ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789';
const gh = (seed = 4): string => ['gh', 'p_', fake(seed, 36)].join('');
/** Only the maintained upstream rules know these shapes (a Groq key, a Figma token). */
const groq = (seed = 5): string => ['gs', 'k_', fake(seed, 52)].join('');
const figma = (seed = 6): string => ['fi', 'gd_', fake(seed, 44)].join('');
const stripe = (seed = 1): string => ['sk_', 'live_', fake(seed, 24)].join('');
const azureKey = (seed = 23): string => [fake(seed, 86, B64), '=='].join('');

const labels = (text: string): string[] => detectSecrets(text).map((h) => h.label);
const masked = (text: string): string[] => detectSecrets(text).map((h) => text.slice(h.start, h.end));

describe('detectSecrets: how the detections of both rule sets are merged', () => {
  it('reports every secret once, in text order, whatever rule found it first', () => {
    const token = gh();
    const text = `password=hunter2hunter then ${token} and ${groq()}`;
    assert.deepEqual(masked(text), ['hunter2hunter', token, groq()]);
    assert.deepEqual(labels(text), ['a password', 'a GitHub token', 'a Groq API key']);
    assert.equal(redact(text), `password=${MASK} then ${MASK} and ${MASK}`);
  });

  it('a secret only the upstream rules know is found and masked, also after other texts', () => {
    // A long text whose token-like run comes late, then a short one: each is scanned from its start.
    detectSecrets(`${'word '.repeat(40)}abc1def2ghi3jkl4mno5`);
    assert.deepEqual(labels(`figma ${figma()} end`), ['a Figma token']);
    assert.equal(redact(`groq ${groq()} end`), `groq ${MASK} end`);
  });

  it('a token glued to a session id is still found', () => {
    const id = '7c9e6679-7425-40de-944b-e07fc1f90ae7';
    assert.equal(redact(`run ${groq()}-${id}`), `run ${MASK}-${id}`);
    assert.equal(redact(`run ${id}-${groq()}`), `run ${id}-${MASK}`);
  });

  it('overlapping detections become one span covering all of them, named by the provider rule', () => {
    const token = gh();
    // Each generic rule reads a longer value than the provider token it starts with.
    const cases: [text: string, secret: string][] = [
      [`GITHUB_TOKEN=${token}/x1`, `${token}/x1`], // key = value
      [`using token ${token}-extra1 now`, `${token}-extra1`], // a keyword before a random value
      [`sent Bearer ${token}-tail1 upstream`, `${token}-tail1`], // an auth scheme
      [`Authorization: ${token}/x`, `${token}/x`], // an Authorization header
      [`https://deploy:${token}-x1@git.example.com/r`, `${token}-x1`], // a password in a URL
    ];
    for (const [text, secret] of cases) {
      const found = detectSecrets(text).map((h) => [text.slice(h.start, h.end), h.rule, h.label]);
      assert.deepEqual(found, [[secret, 'github', 'a GitHub token']], text);
      assert.equal(redact(text), text.replace(secret, MASK), text);
    }
  });

  it('a generic rule reading the same or a shorter span does not rename a detection', () => {
    const key = stripe();
    // The provider rule reports first here; a generic rule finds the same key after it.
    for (const text of [`token ${key}`, `Bearer ${key}`, `api key is ${key}`]) {
      assert.deepEqual(detectSecrets(text).map((h) => [h.rule, h.label]), [['stripe', 'a Stripe live key']], text);
    }
    // Two generic rules: the key names the value the keyword rule also reads (shorter, up to the `!`).
    const text = `password = ${fake(77, 32)}!x`;
    assert.deepEqual(detectSecrets(text).map((h) => [text.slice(h.start, h.end), h.rule, h.label]), [[`${fake(77, 32)}!x`, 'key-value', 'a password']]);
  });

  it('a secret only the upstream rules know keeps its name when it is also a password in a URL', () => {
    const key = groq();
    const text = `https://deploy:${key}@git.example.com/r`;
    assert.deepEqual(detectSecrets(text).map((h) => [text.slice(h.start, h.end), h.label]), [[key, 'a Groq API key']]);
    assert.equal(redact(text), `https://deploy:${MASK}@git.example.com/r`);
  });

  it('two secrets glued together stay two secrets, each with its own name', () => {
    const key = azureKey();
    const token = gh();
    const text = `AccountKey=${key}${token}`;
    assert.deepEqual(masked(text), [key, token]);
    assert.deepEqual(labels(text), ['an Azure storage account key', 'a GitHub token']);
    assert.equal(redact(text), `AccountKey=${MASK}${MASK}`);
  });

  it('narrows each connection string to its password and names it a database password', () => {
    const text = 'postgres://a:s3cr3tpw@db1.example.com/app and mysql://b:0th3rpw@db2.example.com/x';
    assert.deepEqual(masked(text), ['s3cr3tpw', '0th3rpw']);
    assert.deepEqual(labels(text), ['a database password', 'a database password']);
    assert.equal(redact(text), `postgres://a:${MASK}@db1.example.com/app and mysql://b:${MASK}@db2.example.com/x`);
  });

  it('a connection string keeps the names of other secrets inside it', () => {
    const text = 'mongodb://admin:s3cr3tpw@db.example.com/app?token=abc123';
    assert.deepEqual(detectSecrets(text).map((h) => [text.slice(h.start, h.end), h.label]), [
      ['s3cr3tpw', 'a database password'],
      ['abc123', 'a token'],
    ]);
  });

  it('a connection string whose password the URL rule cannot read is masked whole, even next to a mask', () => {
    const url = "postgres://app:pa'ss9@db.internal/app";
    assert.equal(redact(`connect ${url}`), `connect ${MASK}`);
    assert.equal(redact(`${MASK} then ${url}`), `${MASK} then ${MASK}`);
    assert.equal(redact(redact(`connect ${url}`)), `connect ${MASK}`, 'idempotent');
  });

  it('a connection string the URL rule cannot read, before one it can: both are masked', () => {
    const text = "postgres://app:pa'ss9@db.internal/app then postgres://b:s3cr3tpw@db2.example.com/x";
    assert.equal(redact(text), `${MASK} then postgres://b:${MASK}@db2.example.com/x`);
  });

  it('a masked connection string is not reported again', () => {
    const once = redact('postgres://app:s3cr3tpw@db.internal:5432/app');
    assert.equal(once, `postgres://app:${MASK}@db.internal:5432/app`);
    assert.deepEqual(detectSecrets(once), []);
  });

  it('finds a key-value secret in a text as short as six characters', () => {
    assert.equal(redact('pass=x'), `pass=${MASK}`);
    assert.deepEqual(labels('pass=x'), ['a password']);
    assert.deepEqual(detectSecrets(''), []);
    assert.equal(redact(''), '');
  });
});

/**
 * Loads a fresh copy of the redaction module, runs `use` on it and tells whether the upstream rule
 * preset was loaded by it. The module cache is put back as it was.
 */
function loadsUpstream(use: (r: typeof RedactModule) => void): boolean {
  const index = require.resolve('../../../src/core/redact');
  const library = require.resolve('../../../src/core/redact/library');
  const saved = [require.cache[index], require.cache[library]] as const;
  delete require.cache[index];
  delete require.cache[library];
  try {
    // eslint-disable-next-line @typescript-eslint/no-require-imports
    use(require(index) as typeof RedactModule);
    return require.cache[library] !== undefined;
  } finally {
    if (saved[0]) require.cache[index] = saved[0];
    if (saved[1]) require.cache[library] = saved[1];
  }
}

describe('the upstream rule preset is loaded only for text that could hold what it finds', () => {
  it('ordinary text (commands, paths, model ids, session ids, numbers, key = value) does not load it', () => {
    const ordinary = [
      'npm run build -- --max-warnings 0',
      'src/core/redact/index.ts:42 tests/unit/token_refresh.test.ts',
      'model claude-sonnet-4-5-20250929 answered in 1200ms',
      'session 7c9e6679-7425-40de-944b-e07fc1f90ae7 resumed',
      'request 123E4567-E89B-12D3-A456-426614174000 failed',
      'mysql --password hunter2 -u root',
      'archived to backup.2024.tar.gz and build_artifacts_2024_final',
      'a://b',
      'ABCDEFGHIJKLMNOPQRSTUVWXYZ abcdefghijklmnop 0123456789012345678',
    ];
    assert.equal(loadsUpstream((r) => ordinary.forEach((t) => r.redact(t))), false);
    assert.equal(loadsUpstream((r) => r.redactArgv(['psql', '--password', 'hunter2', '-h', 'db.internal'])), false);
  });

  it('a URL, a PEM header or a token-like run loads it', () => {
    assert.equal(loadsUpstream((r) => r.redact('see https://example.com/docs')), true);
    assert.equal(loadsUpstream((r) => r.redact('-----BEGIN CERTIFICATE-----')), true);
    assert.equal(loadsUpstream((r) => r.redact(`groq ${groq()} end`)), true);
    assert.equal(loadsUpstream((r) => r.redact('id ABCDEFGH-abcdefgh1-XYZ')), true);
  });
});

describe('redactArgv: detection on the command line, masking element by element', () => {
  it('a flag in one element announces the value in the next; --flag=value stays one element', () => {
    assert.deepEqual(redactArgv(['deploy', '--token', 'abc123', '--force']), ['deploy', '--token', MASK, '--force']);
    assert.deepEqual(redactArgv(['deploy', '--token=abc123', '--force']), ['deploy', `--token=${MASK}`, '--force']);
  });

  it('keeps the text around a secret inside its element, and masks each secret of an element', () => {
    assert.deepEqual(redactArgv(['run', 'token=abc123;x', 'password=p1 secret=s2']), ['run', `token=${MASK};x`, `password=${MASK} secret=${MASK}`]);
  });

  it('a secret spread over several elements masks each of them, and only them', () => {
    const body = fake(44, 64, B64);
    const argv = ['echo', '-----BEGIN', 'RSA', 'PRIVATE', 'KEY-----', body, '-----END', 'RSA', 'PRIVATE', 'KEY-----'];
    assert.deepEqual(redactArgv([...argv, 'done']), ['echo', '-----BEGIN', 'RSA', 'PRIVATE', 'KEY-----', MASK, MASK, MASK, MASK, MASK, 'done']);
  });

  it('an unterminated quoted secret runs to the end of the line; an empty last element stays empty', () => {
    assert.deepEqual(redactArgv(['--password', '"abc', '']), ['--password', `"${MASK}`, '']);
  });

  it('returns a new array of the same elements when nothing is found', () => {
    const argv = ['ls', '-la', ''];
    const out = redactArgv(argv);
    assert.deepEqual(out, argv);
    assert.notEqual(out, argv);
    assert.deepEqual(redactArgv([]), []);
  });
});

describe('redactDeep: every string of a structure', () => {
  it('keeps non-string leaves as they are, null and undefined included', () => {
    const v = { n: 0, t: true, f: false, z: null, u: undefined, list: ['--token', 7, 'abc123'], nested: [[null, 'password=p4ss']] };
    assert.deepEqual(redactDeep(v), { n: 0, t: true, f: false, z: null, u: undefined, list: ['--token', 7, 'abc123'], nested: [[null, `password=${MASK}`]] });
    assert.equal(redactDeep(null), null);
    assert.equal(redactDeep(42), 42);
    assert.equal(redactDeep(undefined), undefined);
  });

  it('an array of strings is read as one command line; a single string is redacted alone', () => {
    assert.deepEqual(redactDeep({ argv: ['mysql', '--password', 'hunter2'] }), { argv: ['mysql', '--password', MASK] });
    assert.deepEqual(redactDeep(['password=p4ss']), [`password=${MASK}`]);
    assert.deepEqual(redactDeep([]), []);
  });

  it('masks secrets in keys and values at any depth and returns a new value', () => {
    const token = gh();
    const input = { outer: { [`k ${token}`]: { deep: [{ v: `Bearer ${token}` }] } } };
    const out = redactDeep(input);
    assert.deepEqual(out, { outer: { [`k ${MASK}`]: { deep: [{ v: `Bearer ${MASK}` }] } } });
    assert.notEqual(out, input);
    assert.equal(input.outer[`k ${token}`]?.deep[0]?.v, `Bearer ${token}`, 'the input is left alone');
  });
});

describe('redactedJson', () => {
  it('prints compact JSON by default, indented when asked, and the suffix after it', () => {
    const value = { cmd: 'deploy --token=abc123', n: [1] };
    assert.equal(redactedJson(value), `{"cmd":"deploy --token=${MASK}","n":[1]}`);
    assert.equal(redactedJson(value, 2, '\n'), `{\n  "cmd": "deploy --token=${MASK}",\n  "n": [\n    1\n  ]\n}\n`);
  });

  it('redacts the suffix too', () => {
    assert.equal(redactedJson([], undefined, ' password=hunter2hunter'), `[] password=${MASK}`);
  });
});

describe('redactDocument', () => {
  it('a JSON document stays valid JSON, value by value, where masking the text would break it', () => {
    const token = gh();
    const value = { log: 'password=abc"x', key: `k ${token}`, n: 1 };
    for (const text of [JSON.stringify(value), `\n  ${JSON.stringify(value)}`, JSON.stringify([value])]) {
      const out = redactDocument(text);
      const back = JSON.parse(out) as unknown;
      const one = (Array.isArray(back) ? back[0] : back) as Record<string, unknown>;
      assert.equal(one.log, `password=${MASK}"x`, out);
      assert.equal(one.key, `k ${MASK}`, out);
      assert.equal(one.n, 1, out);
      assert.ok(!out.includes(token), out);
    }
  });

  it('keeps the layout: compact or indented by two, with or without a final newline', () => {
    const token = gh();
    const value = { summary: `pushed with ${token}`, list: [1, 2], nested: { ok: true } };
    const redacted = { summary: `pushed with ${MASK}`, list: [1, 2], nested: { ok: true } };
    for (const [indent, tail] of [[undefined, ''], [undefined, '\n'], [2, ''], [2, '\n']] as const) {
      const text = JSON.stringify(value, null, indent) + tail;
      assert.equal(redactDocument(text), JSON.stringify(redacted, null, indent) + tail, JSON.stringify(text));
    }
    for (const doc of [[{ a: token }], [[token]], [7, token], [`x ${token}`], [true, token], [-1, token], [null, token]]) {
      const text = `${JSON.stringify(doc, null, 2)}\n`;
      assert.equal(redactDocument(text), `${JSON.stringify(redactDeep(doc), null, 2)}\n`, text);
    }
  });

  it('keeps an indentation other than two: four spaces, a tab', () => {
    const token = gh();
    const value = { summary: `pushed with ${token}`, steps: [{ ok: true }] };
    for (const indent of [4, '\t']) {
      const text = `${JSON.stringify(value, null, indent)}\n`;
      assert.equal(redactDocument(text), text.replace(token, MASK), JSON.stringify(text));
    }
  });

  it('a document laid out otherwise comes back as valid compact JSON', () => {
    const token = gh();
    const text = `{"summary": "pushed with ${token}",\n  "list": [\n    1\n  ]}`;
    assert.equal(redactDocument(text), `{"summary":"pushed with ${MASK}","list":[1]}`);
  });

  it('an already-redacted document comes back byte for byte', () => {
    const text = `${JSON.stringify({ a: MASK, b: [`password=${MASK}`, 3] }, null, 2)}\n`;
    assert.equal(redactDocument(text), text);
  });

  it('any other text, JSON scalars and broken JSON included, is redacted as text and otherwise kept', () => {
    for (const text of ['  42  \n', 'null', ' "quoted" ', 'plain words\n', '{ not json', '[1, 2', '  {"a": 1} trailing']) {
      assert.equal(redactDocument(text), text, JSON.stringify(text));
    }
    assert.equal(redactDocument('{ broken, password=hunter2hunter\n'), `{ broken, password=${MASK}\n`);
  });
});

describe('joinRedacted', () => {
  it('joins with nothing by default, or the separator given', () => {
    assert.equal(joinRedacted(['a', 'b', 'c']), 'abc');
    assert.equal(joinRedacted(['a', 'b'], ', '), 'a, b');
  });

  it('finds a secret that straddles two parts', () => {
    const token = gh();
    assert.equal(joinRedacted(['pass', 'word=hunter2hunter']), `password=${MASK}`);
    assert.equal(joinRedacted([`push ${token.slice(0, 10)}`, token.slice(10)]), `push ${MASK}`);
    assert.equal(joinRedacted(['--token', 'abc123'], ' '), `--token ${MASK}`);
  });
});
