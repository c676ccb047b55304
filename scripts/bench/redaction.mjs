// Benchmark: the redaction corpus (test/unit/redact/corpus.ts) through the one redaction.
// Prints recall on the credential shapes, the false-positive rate on the look-alikes, and the
// redaction throughput on log-like text; fails when recall is below 100 % or any look-alike changes.
import * as esbuild from 'esbuild';
import fs from 'node:fs';
import path from 'node:path';
import { createRequire } from 'node:module';
import { root, tempDir } from './lib.mjs';

const dir = tempDir('handoff-bench-redact-');
const entry = path.join(dir, 'entry.ts');
fs.writeFileSync(entry, [
  `export * from ${JSON.stringify(path.join(root, 'src/core/redact/index.ts'))};`,
  `export { SECRETS, LOOKALIKES, fake, exposed } from ${JSON.stringify(path.join(root, 'test/unit/redact/corpus.ts'))};`,
].join('\n'));
const out = path.join(dir, 'bundle.cjs');
await esbuild.build({ entryPoints: [entry], bundle: true, platform: 'node', format: 'cjs', outfile: out, logLevel: 'warning', absWorkingDir: root, nodePaths: [path.join(root, 'node_modules')] });
const { redact, SECRETS, LOOKALIKES, fake, exposed } = createRequire(import.meta.url)(out);
fs.rmSync(dir, { recursive: true, force: true });

// A leak is any 8 characters of the secret a reader can get at: in the text, across a line break the
// terminal put there, or in what its base64 lines decode to.
const leaks = (out, secret) => {
  const text = exposed(out);
  for (let i = 0; i + 8 <= secret.length; i++) if (text.includes(secret.slice(i, i + 8))) return true;
  return false;
};
const missed = SECRETS.filter((c) => leaks(redact(c.text), c.secret));
const changed = LOOKALIKES.filter((t) => redact(t) !== t);
const recall = (SECRETS.length - missed.length) / SECRETS.length;
const fpRate = changed.length / LOOKALIKES.length;
console.log(`recall: ${(recall * 100).toFixed(1)} % (${SECRETS.length - missed.length}/${SECRETS.length} credential shapes)`);
for (const c of missed) console.log(`  missed: ${c.name}`);
console.log(`false positives: ${(fpRate * 100).toFixed(1)} % (${changed.length}/${LOOKALIKES.length} look-alikes changed)`);
for (const t of changed) console.log(`  changed: ${t}`);

// Throughput on what redaction sees in practice: command lines, output tails, notes; one in fifty
// carries a secret.
const lines = [];
for (let i = 0; i < 5000; i++) {
  if (i % 50 === 0) lines.push(SECRETS[i % SECRETS.length].text);
  else if (i % 3 === 0) lines.push(`FAILED tests/test_refund.py::test_partial_${i} - AssertionError: expected 2000 got 1999.99\n${fake(i, 120, 'abcdefghij klmnopqrst uvwxyz.,:/_-0123456789')}`);
  else if (i % 3 === 1) lines.push(`pytest -k refund_${i} --maxfail=1 tests/`);
  else lines.push(LOOKALIKES[i % LOOKALIKES.length]);
}
const bytes = lines.reduce((n, l) => n + Buffer.byteLength(l), 0);
for (const l of lines.slice(0, 500)) redact(l);
const t = process.hrtime.bigint();
let rounds = 0;
while (Number(process.hrtime.bigint() - t) < 2e9) {
  // A different suffix each round: the redaction's cache of recent strings must not be what is timed.
  for (const l of lines) redact(`${l} r${rounds}`);
  rounds++;
}
const seconds = Number(process.hrtime.bigint() - t) / 1e9;
console.log(`redaction throughput: ${Math.round((rounds * lines.length) / seconds).toLocaleString('en-US')} strings/s, ${((rounds * bytes) / seconds / 1048576).toFixed(1)} MB/s`);
// Hostile shapes: one megabyte of a token-like run, of key words, of a repeated character. Redaction
// must stay linear (no regex backtracking blow-up) or a single odd log line would hang a command.
for (const [name, text] of [
  ['1 MB random token run', fake(1, 1 << 20)],
  ['1 MB of one letter', 'x'.repeat(1 << 20)],
  ['1 MB of key words', 'password token secret '.repeat(1 << 20 >> 5)],
  ['1 MB of URL-ish text', 'https://a:b'.repeat(1 << 20 >> 4)],
  // Every few bytes a command that takes a password: bounded look-ahead per command word, one hit each.
  ['1 MB of password commands', 'sshpass -p x mysql -pY curl -u a:b '.repeat((1 << 20) / 36)],
  ['1 MB of URL user@host', 'https://a@b/c@'.repeat(1 << 20 >> 4)],
  // Shell assignments on one line: each is judged by the text before it on its line, read back a bounded way.
  ['1 MB of assignments on one line', 'DB_PASSWORD=ABC_DEF '.repeat((1 << 20) / 20)],
  ['1 MB of single-word passwords', 'the password is sunshine. '.repeat((1 << 20) / 26)],
]) {
  const t0 = process.hrtime.bigint();
  redact(text);
  console.log(`worst case, ${name}: ${(Number(process.hrtime.bigint() - t0) / 1e6).toFixed(0)} ms`);
}
if (missed.length || changed.length) process.exit(1);
