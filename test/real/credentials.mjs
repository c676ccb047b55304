// The credential tier: runs the built CLI's `handoff secrets --json` on every session of the development
// corpus (`../shared/real-sessions/`, or HANDOFF_REAL_SESSIONS), each placed the way a user's machine holds
// it (./place.mjs), and compares the credentials it flags to rotate (`severity: block`) with the corpus's
// `credentials.json` labels, by session and line: REAL (a live credential), FALSE (with its reason class)
// and MISSED (a real one the labels know the tool did not flag). Prints precision, recall, the false
// alarms by class and the possible credentials reported only as a warning, for the whole corpus and for
// each of two fixed halves (by the sha1 of the session's name: one held out); fails unless recall is
// 100 % and precision at least 95 % on the whole corpus. Nothing of the corpus is copied into the repository.
// Usage: node test/real/credentials.mjs [--only name] [--verbose]   (prints `credentials: N passed, N failed`)
import { createHash } from 'node:crypto';
import fs from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { placeSession, runCli } from './place.mjs';

const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..', '..');
const corpus = process.env.HANDOFF_REAL_SESSIONS ?? path.resolve(root, '..', 'shared', 'real-sessions');
const cli = path.join(root, 'dist', 'cli.js');
const args = process.argv.slice(2);
const only = args.includes('--only') ? args[args.indexOf('--only') + 1] : null;
const verbose = args.includes('--verbose');
const MIN_PRECISION = 0.95;

const labelsFile = path.join(corpus, 'credentials.json');
if (!fs.existsSync(labelsFile)) {
  console.log(`credentials: no labels at ${labelsFile} (set HANDOFF_REAL_SESSIONS to the corpus folder)`);
  console.log('credentials: 0 passed, 1 failed');
  process.exit(1);
}
if (!fs.existsSync(cli)) {
  console.log('credentials: dist/cli.js is missing: run `node esbuild.mjs` first');
  console.log('credentials: 0 passed, 1 failed');
  process.exit(1);
}
const labels = JSON.parse(fs.readFileSync(labelsFile, 'utf8'));
const expect = JSON.parse(fs.readFileSync(path.join(corpus, 'expect.json'), 'utf8'));
const sessions = [...new Set([...Object.keys(expect), ...Object.keys(labels)])].filter((k) => !k.startsWith('_') && (!only || k.includes(only)));

/** The kind without the name in brackets: `a token (RAILWAY_TOKEN)` → `a token`. */
const kindHead = (k) => k.replace(/\s*\(.*$/, '');

/** The places `handoff secrets --json` reports for one session, each with the line the labels use. */
function findingsOf(key) {
  const { base, repo, env } = placeSession(corpus, key);
  try {
    const r = runCli(cli, env, repo, 'secrets', '--dir', repo, '--json');
    if (!r.stdout.trim()) throw new Error(`secrets exited ${r.status}: ${r.stderr.trim().slice(0, 300)}`);
    const out = JSON.parse(r.stdout);
    const cline = key.startsWith('cline/');
    const seen = new Set();
    const found = [];
    for (const p of out.places ?? []) {
      if (!p.session || seen.has(p.fingerprint)) continue;
      seen.add(p.fingerprint);
      // Cline labels name the message (its 0-based index in ui_messages.json); the others the file's line.
      found.push({ kind: p.kind, severity: p.severity ?? 'block', line: cline ? (p.messages?.[0] ?? p.line) : p.line });
    }
    return found;
  } finally {
    fs.rmSync(base, { recursive: true, force: true });
  }
}

/** Matches the flagged findings of a session with its labels: each label at most once, same line, the same kind first. */
function compare(key, found) {
  const entries = (labels[key] ?? []).map((e) => ({ ...e, used: false }));
  const flagged = found.filter((f) => f.severity === 'block');
  const result = { tp: 0, fp: [], missed: [], warned: found.length - flagged.length };
  for (const f of flagged) {
    const onLine = entries.filter((e) => !e.used && e.line === f.line && e.label !== 'MISSED');
    const e = onLine.find((x) => x.kind === f.kind) ?? onLine.find((x) => kindHead(x.kind) === kindHead(f.kind)) ?? onLine.find((x) => x.label === 'REAL') ?? onLine[0];
    if (e) e.used = true;
    if (e?.label === 'REAL') result.tp++;
    else result.fp.push({ line: f.line, kind: f.kind, class: e ? e.class ?? 'unclassified' : 'not in the labels' });
  }
  for (const e of entries) {
    if (e.label === 'REAL' && !e.used) result.missed.push({ line: e.line, kind: e.kind });
    if (e.label === 'MISSED') {
      const hit = flagged.some((f) => f.line === e.line);
      if (hit) result.tp++;
      else result.missed.push({ line: e.line, kind: e.kind });
    }
  }
  return result;
}

/**
 * A fixed half of the corpus held out: the sessions whose name's sha1 starts with 8–f. The rules were
 * tuned on the whole corpus; the figures of each half let a reader see whether they hold on both.
 */
const halfOf = (key) => (parseInt(createHash('sha1').update(key).digest('hex')[0], 16) < 8 ? 'sha1 0-7' : 'sha1 8-f (held out)');
const halves = {};

let tp = 0;
let warned = 0;
const fps = [];
const missed = [];
const errors = [];
const started = Date.now();
for (const key of sessions) {
  let r;
  try {
    r = compare(key, findingsOf(key));
  } catch (e) {
    errors.push(`${key}: ${e.message}`);
    continue;
  }
  tp += r.tp;
  warned += r.warned;
  const half = (halves[halfOf(key)] ??= { sessions: 0, tp: 0, fp: 0, missed: 0, warned: 0 });
  half.sessions++;
  half.tp += r.tp;
  half.fp += r.fp.length;
  half.missed += r.missed.length;
  half.warned += r.warned;
  for (const f of r.fp) fps.push({ key, ...f });
  for (const m of r.missed) missed.push({ key, ...m });
  if (verbose || r.fp.length || r.missed.length) console.log(`  ${r.fp.length || r.missed.length ? '✗' : '✓'} ${key}: ${r.tp} real flagged, ${r.fp.length} false alarm${r.fp.length === 1 ? '' : 's'}, ${r.missed.length} missed, ${r.warned} warned only`);
}
const ratio = (n, d) => (d ? n / d : 1);
const pct = (x) => `${(x * 100).toFixed(1)} %`;
const precision = ratio(tp, tp + fps.length);
const recall = ratio(tp, tp + missed.length);
const classes = {};
for (const f of fps) classes[f.class] = (classes[f.class] ?? 0) + 1;
console.log(`credentials: ${sessions.length} sessions in ${((Date.now() - started) / 1000).toFixed(1)} s`);
console.log(`  flagged to rotate: ${tp + fps.length} (${tp} real, ${fps.length} false alarms); possible credentials warned only: ${warned}`);
console.log(`  precision ${pct(precision)}, recall ${pct(recall)}`);
for (const [name, h] of Object.entries(halves).sort(([a], [b]) => a.localeCompare(b))) {
  console.log(`  ${name}: ${h.sessions} sessions, ${h.tp + h.fp} flagged (${h.tp} real, ${h.fp} false alarms), ${h.missed} missed, ${h.warned} warned only; precision ${pct(ratio(h.tp, h.tp + h.fp))}, recall ${pct(ratio(h.tp, h.tp + h.missed))}`);
}
for (const [c, n] of Object.entries(classes).sort((a, b) => b[1] - a[1])) console.log(`  false alarms, ${c}: ${n}`);
for (const f of fps) console.log(`    false alarm: ${f.key} line ${f.line}: ${f.kind} (${f.class})`);
for (const m of missed) console.log(`    missed: ${m.key} line ${m.line}: ${m.kind}`);
for (const e of errors) console.log(`    could not run: ${e}`);
const checks = [
  ['recall is 100 %', missed.length === 0],
  [`precision is at least ${MIN_PRECISION * 100} %`, precision >= MIN_PRECISION],
  ['every session ran', errors.length === 0],
];
for (const [name, ok] of checks) console.log(`  ${ok ? '✓' : '✗'} ${name}`);
const passed = checks.filter(([, ok]) => ok).length;
console.log(`credentials: ${passed} passed, ${checks.length - passed} failed`);
process.exit(passed === checks.length ? 0 : 1);
