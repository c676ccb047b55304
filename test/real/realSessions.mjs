// The real-sessions tier: runs the built CLI on every session of the development corpus
// (`../shared/real-sessions/`, or HANDOFF_REAL_SESSIONS) the way a user's machine would hold it — the
// file where its agent writes it, its working directory rewritten to a fresh temporary repository,
// a fresh HOME, CLAUDE_CONFIG_DIR and CODEX_HOME — and checks the packet and the restart prompt against
// the corpus's `expect.json`. Nothing of the corpus is copied into the repository: every copy lives in
// a temporary folder that is removed afterwards.
// Usage: node test/real/realSessions.mjs [--only name] [--keep]   (prints `real: N passed, N failed`)
import fs from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { findPacket, placeSession, runCli } from './place.mjs';

const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..', '..');
const corpus = process.env.HANDOFF_REAL_SESSIONS ?? path.resolve(root, '..', 'shared', 'real-sessions');
const cli = path.join(root, 'dist', 'cli.js');
const args = process.argv.slice(2);
const only = args.includes('--only') ? args[args.indexOf('--only') + 1] : null;
const keep = args.includes('--keep');
const verbose = args.includes('--verbose');

if (!fs.existsSync(path.join(corpus, 'expect.json'))) {
  console.log(`real sessions: no corpus at ${corpus} (set HANDOFF_REAL_SESSIONS to its folder)`);
  console.log('real: 0 passed, 1 failed');
  process.exit(1);
}
if (!fs.existsSync(cli)) {
  console.log('real sessions: dist/cli.js is missing: run `node esbuild.mjs` first');
  console.log('real: 0 passed, 1 failed');
  process.exit(1);
}

const expect = JSON.parse(fs.readFileSync(path.join(corpus, 'expect.json'), 'utf8'));

const re = (s, flags) => new RegExp(s, flags);

function check(key, spec) {
  const problems = [];
  const { base, repo, env } = placeSession(corpus, key);
  let nextAction = '';
  let prompt = '';
  try {
    const gen = runCli(cli, env, repo, 'generate', '--dir', repo, '--allow-dirty');
    if (gen.status !== 0) problems.push(`generate exited ${gen.status}: ${(gen.stderr || gen.stdout).trim().slice(0, 600)}`);
    const file = findPacket(path.join(repo, 'outputs', 'handoff'));
    const packetText = file ? fs.readFileSync(file, 'utf8') : '';
    if (!file) problems.push('no handoff.json was written');
    let packet = null;
    try { packet = packetText ? JSON.parse(packetText) : null; } catch (e) { problems.push(`handoff.json is not JSON: ${e.message}`); }
    nextAction = typeof packet?.next_action === 'string' ? packet.next_action : (packet?.next_action?.text ?? '');
    const p = runCli(cli, env, repo, 'prompt', '--dir', repo);
    if (p.status !== 0) problems.push(`prompt exited ${p.status}: ${(p.stderr || p.stdout).trim().slice(0, 300)}`);
    prompt = p.stdout;
    const any = spec.any ?? [];
    if (any.length && !any.some((r) => re(r, 'i').test(nextAction))) problems.push(`next action matches none of: ${any.map((r) => `/${r}/`).join(' ')}`);
    for (const r of spec.not ?? []) if (re(r, 'i').test(nextAction)) problems.push(`next action matches what it must not: /${r}/`);
    for (const r of spec.packet_all ?? []) if (!re(r, '').test(packetText)) problems.push(`packet lacks /${r.length > 80 ? `${r.slice(0, 20)}…` : r}/`);
    for (const r of spec.prompt_any ?? []) if (!re(r, 'i').test(prompt)) problems.push(`prompt lacks /${r}/`);
    for (const r of spec.prompt_not ?? []) if (re(r, 'i').test(prompt)) problems.push(`prompt matches what it must not: /${r}/`);
  } finally {
    if (!keep) fs.rmSync(base, { recursive: true, force: true });
    else console.log(`  kept ${base}`);
  }
  return { problems, nextAction, prompt };
}

let passed = 0;
let failed = 0;
const started = Date.now();
for (const [key, spec] of Object.entries(expect)) {
  if (key.startsWith('_') || (only && !key.includes(only))) continue;
  let r;
  try {
    r = check(key, spec);
  } catch (e) {
    r = { problems: [`could not run: ${e.message}`], nextAction: '' };
  }
  if (r.problems.length === 0) {
    passed++;
    console.log(`  ✓ ${key}`);
    if (verbose) console.log(`      next action: ${r.nextAction}`);
  } else {
    failed++;
    console.log(`  ✗ ${key}`);
    console.log(`      next action: ${r.nextAction.replace(/\s+/g, ' ').slice(0, 500)}`);
    for (const p of r.problems) console.log(`      - ${p}`);
  }
}
console.log(`real sessions: ${((Date.now() - started) / 1000).toFixed(1)} s`);
console.log(`real: ${passed} passed, ${failed} failed`);
process.exit(failed ? 1 : 0);
