// Compressed Codex rollout benchmark: a 500 MB rollout read for the packet from its plain `.jsonl` and
// from its `.jsonl.zst` (zstd level 3, one frame without a content size, as Codex writes it), and the
// meter's reading of the compressed file (decoded whole: it cannot be read from its end).
// Targets: the compressed read within 1.5× the plain read's time, and both within the session
// reader's memory budget (peak RSS < 200 MB); the meter's reading within that budget too. Each read
// runs in its own child process so its peak memory is its own. Exits non-zero when a target is missed.
// The compressed copy is made by Node's zlib (22.15+) or else the `zstd` CLI; without either it is skipped.
import * as esbuild from 'esbuild';
import { spawnSync } from 'node:child_process';
import { once } from 'node:events';
import fs from 'node:fs';
import { createRequire } from 'node:module';
import os from 'node:os';
import path from 'node:path';
import zlib from 'node:zlib';
import { root, tempDir } from './lib.mjs';

const BIG = Number(process.env.HANDOFF_BENCH_BIG_MB ?? 500) * 1024 * 1024;
const TARGET_RATIO = 1.5;
const TARGET_RSS_MB = 200;
const CWD = '/home/dev/bench';
const THREAD = '019f8a3c-5d21-7e40-b9a7-3c5e1f0d2b68';

/** Child mode: one read, printed as JSON figures. */
async function child(bundle, what, file) {
  const require = createRequire(import.meta.url);
  const { SessionReader, codexRolloutReader } = require(bundle);
  const cpu0 = process.cpuUsage();
  const t0 = performance.now();
  let out;
  if (what === 'meter') {
    const r = await codexRolloutReader(file).read();
    out = { known: r.known, used: r.known ? r.usedTokens : null };
  } else {
    const f = await new SessionReader(file, 'codex').read();
    out = { commands: f.commandCount, files: f.filesTouched.length, requests: f.userRequests.length };
  }
  const ms = performance.now() - t0;
  const cpu = process.cpuUsage(cpu0);
  process.stdout.write(JSON.stringify({ ...out, ms, cpuMs: (cpu.user + cpu.system) / 1000, rss: process.resourceUsage().maxRSS / 1024 }));
}

// A deterministic generator, so the text compresses like real output (not like one repeated line).
let seed = 42;
const rand = () => ((seed = (seed * 1103515245 + 12345) >>> 0) / 2 ** 32);
const WORDS = 'the of parser test file src build error value return const function import export module async await line column token expected received'.split(' ');
const words = (n) => Array.from({ length: n }, () => WORDS[Math.floor(rand() * WORDS.length)]).join(' ');
const b64 = (n) => Buffer.from(Array.from({ length: n }, () => Math.floor(rand() * 256))).toString('base64');
let ts = Date.parse('2026-11-20T09:00:00.000Z');
const rec = (type, payload) => JSON.stringify({ timestamp: new Date((ts += 700)).toISOString(), type, payload });

/** One turn: a request, reasoning, a command and its output, an edit, an answer, token usage. */
function turn(n) {
  const call = `call_${n.toString(36)}x`;
  const out = [];
  if (n % 20 === 0) out.push(rec('event_msg', { type: 'user_message', message: `Please continue with part ${n}: ${words(20)}` }));
  out.push(rec('turn_context', { cwd: CWD, model: 'gpt-5.5', approval_policy: 'on-request' }));
  out.push(rec('response_item', { type: 'reasoning', summary: [{ type: 'summary_text', text: words(12) }], encrypted_content: b64(600) }));
  const cmd = n % 5 === 0 ? 'npm test' : `rg -n "item${n % 100}" src`;
  out.push(rec('response_item', { type: 'function_call', name: 'exec_command', arguments: JSON.stringify({ cmd, workdir: CWD }), call_id: call }));
  const exit = n % 7 === 0 ? 1 : 0;
  const lines = Array.from({ length: 40 }, (_, i) => `src/file${(n + i) % 50}.ts:${i + 1}: ${words(8)}`).join('\n');
  out.push(rec('response_item', { type: 'function_call_output', call_id: call, output: `Chunk ID: ${n}\nWall time: 0.4 seconds\nProcess exited with code ${exit}\nOutput:\n${lines}` }));
  if (n % 4 === 0) {
    const p = `patch_${n}`;
    out.push(rec('response_item', { type: 'custom_tool_call', name: 'apply_patch', call_id: p, input: `*** Begin Patch\n*** Update File: src/file${n % 50}.ts\n@@\n-${words(6)}\n+${words(6)}\n*** End Patch\n` }));
    out.push(rec('response_item', { type: 'custom_tool_call_output', call_id: p, output: `Exit code: 0\nOutput:\nSuccess. Updated the following files:\nM src/file${n % 50}.ts\n` }));
  }
  out.push(rec('event_msg', { type: 'agent_message', message: words(30) }));
  out.push(rec('event_msg', { type: 'token_count', info: { last_token_usage: { total_tokens: 20_000 + (n % 1000) }, model_context_window: 258_400 } }));
  return out;
}

async function writeRollout(file, bytes) {
  const out = fs.createWriteStream(file);
  out.write(`${JSON.stringify({ timestamp: '2026-11-20T09:00:00.000Z', type: 'session_meta', payload: { id: THREAD, cwd: CWD, cli_version: '0.145.0' } })}\n`);
  let written = 0;
  for (let n = 1; written < bytes; n++) {
    const text = `${turn(n).join('\n')}\n`;
    written += Buffer.byteLength(text);
    if (!out.write(text)) await once(out, 'drain');
  }
  out.end();
  await once(out, 'finish');
}

/** `.zst` beside the file (level 3, streamed: no content size), or false when nothing here can compress. */
async function compress(file) {
  if (typeof zlib.createZstdCompress === 'function') {
    const z = zlib.createZstdCompress({ params: { [zlib.constants.ZSTD_c_compressionLevel]: 3 } });
    const done = once(fs.createReadStream(file).pipe(z).pipe(fs.createWriteStream(`${file}.zst`)), 'finish');
    await done;
    return true;
  }
  const r = spawnSync('sh', ['-c', 'zstd -q -3 --no-check -c < "$1" > "$1.zst"', 'sh', file]);
  return r.status === 0;
}

function run(bundle, what, file) {
  const r = spawnSync(process.execPath, [new URL(import.meta.url).pathname, '--child', bundle, what, file], { encoding: 'utf8', maxBuffer: 1 << 20 });
  if (r.status !== 0) throw new Error(`child failed: ${r.stderr}`);
  return JSON.parse(r.stdout);
}

if (process.argv[2] === '--child') {
  await child(process.argv[3], process.argv[4], process.argv[5]);
} else {
  const dir = tempDir('handoff-bench-zst-');
  try {
    const entry = path.join(dir, 'entry.ts');
    fs.writeFileSync(entry, `export { SessionReader } from ${JSON.stringify(path.join(root, 'src/core/session/reader'))};\nexport { codexRolloutReader } from ${JSON.stringify(path.join(root, 'src/core/context/codex'))};\n`);
    const bundle = path.join(dir, 'reader.cjs');
    await esbuild.build({ entryPoints: [entry], bundle: true, platform: 'node', format: 'cjs', outfile: bundle, logLevel: 'warning' });
    const file = path.join(dir, `rollout-2026-11-20T09-00-00-${THREAD}.jsonl`);
    await writeRollout(file, BIG);
    if (!(await compress(file))) {
      console.log('SKIPPED: no zstd compressor here (Node < 22.15 and no zstd CLI) to make the compressed copy');
      process.exit(0);
    }
    const zst = `${file}.zst`;
    const mb = fs.statSync(file).size / 1048576;
    const zmb = fs.statSync(zst).size / 1048576;
    const plain = run(bundle, 'session', file);
    const packed = run(bundle, 'session', zst);
    const meter = run(bundle, 'meter', zst);
    console.log(`packet read of a ${mb.toFixed(0)} MB Codex rollout: plain ${plain.ms.toFixed(0)} ms (CPU ${plain.cpuMs.toFixed(0)} ms), peak RSS ${plain.rss.toFixed(0)} MB`);
    console.log(`  compressed (${zmb.toFixed(0)} MB .zst): ${packed.ms.toFixed(0)} ms (CPU ${packed.cpuMs.toFixed(0)} ms), peak RSS ${packed.rss.toFixed(0)} MB — ${(packed.ms / plain.ms).toFixed(2)}× the plain read`);
    console.log(`  ${plain.commands} commands, ${plain.files} edited files, ${plain.requests} requests (compressed: ${packed.commands}, ${packed.files}, ${packed.requests})`);
    console.log(`meter reading of the .zst (decoded whole): ${meter.ms.toFixed(0)} ms, peak RSS ${meter.rss.toFixed(0)} MB, ${meter.used} tokens`);
    console.log(`  (load average ${os.loadavg()[0].toFixed(1)} on ${os.cpus().length} cores)`);
    // On an overloaded machine wall time measures the queue: the ratio is then judged on CPU time.
    const busy = os.loadavg()[0] > os.cpus().length;
    const ratio = busy ? packed.cpuMs / plain.cpuMs : packed.ms / plain.ms;
    const basis = busy ? 'CPU time (machine overloaded)' : 'wall time';
    const misses = [];
    if (ratio > TARGET_RATIO) misses.push(`compressed read ${ratio.toFixed(2)}× the plain one > ${TARGET_RATIO}× (${basis})`);
    for (const [name, f] of [['plain read', plain], ['compressed read', packed], ['meter', meter]]) if (f.rss >= TARGET_RSS_MB) misses.push(`${name} peak RSS ${f.rss.toFixed(0)} MB ≥ ${TARGET_RSS_MB} MB`);
    if (packed.commands !== plain.commands || packed.files !== plain.files || packed.requests !== plain.requests) misses.push('the compressed read gave other facts');
    if (!meter.known) misses.push('the meter found no reading in the compressed rollout');
    console.log(misses.length ? `MISSED: ${misses.join('; ')}` : `targets met on ${basis} (≤ ${TARGET_RATIO}× the plain read, < ${TARGET_RSS_MB} MB)`);
    process.exitCode = misses.length ? 1 : 0;
  } finally {
    fs.rmSync(dir, { recursive: true, force: true });
  }
}
