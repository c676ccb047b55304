// Context meter benchmark: taking a reading from a 500 MB transcript must cost about as much as from a
// 50 KB one (the reader scans back from the end), and far less than parsing the big file in full.
// Exits non-zero when the 500 MB reading's median exceeds 5× the 50 KB one (floor 1 ms).
import * as esbuild from 'esbuild';
import { once } from 'node:events';
import fs from 'node:fs';
import { createRequire } from 'node:module';
import path from 'node:path';
import readline from 'node:readline';
import { root, tempDir } from './lib.mjs';

const RUNS = 15;
const BIG = Number(process.env.HANDOFF_BENCH_BIG_MB ?? 500) * 1024 * 1024;
const SMALL = 50 * 1024;

const dir = tempDir('handoff-bench-ctx-');
const require = createRequire(import.meta.url);

// Bundle the real reader from src/ so the benchmark measures the shipped code.
const bundle = path.join(dir, 'claude.cjs');
await esbuild.build({ entryPoints: [path.join(root, 'src/core/context/claude.ts')], bundle: true, platform: 'node', format: 'cjs', outfile: bundle, logLevel: 'warning' });
const { claudeTranscriptReader, claudeParser } = require(bundle);

let n = 0;
function line() {
  n++;
  const base = { parentUuid: `u${n - 1}`, isSidechain: false, cwd: '/home/dev/bench', sessionId: 'bench', uuid: `u${n}`, timestamp: '2026-11-20T09:00:00.000Z' };
  if (n % 3 === 0) {
    return JSON.stringify({ ...base, type: 'assistant', message: { model: 'claude-sonnet-4-5', id: `msg_${n}`, role: 'assistant', content: [{ type: 'text', text: 'a'.repeat(800) }], usage: { input_tokens: 3, cache_creation_input_tokens: 1000, cache_read_input_tokens: n % 150_000, output_tokens: 50 } } });
  }
  // Tool results dominate real transcripts: long user lines.
  return JSON.stringify({ ...base, type: 'user', message: { role: 'user', content: [{ type: 'tool_result', tool_use_id: `t${n}`, content: 'x'.repeat(2500) }] } });
}

async function writeTranscript(file, bytes) {
  const out = fs.createWriteStream(file);
  let written = 0;
  while (written < bytes) {
    const l = `${line()}\n`;
    written += Buffer.byteLength(l);
    if (!out.write(l)) await once(out, 'drain');
  }
  // A few non-decisive lines after the last call, as while a tool runs.
  for (let i = 0; i < 3; i++) out.write(`${JSON.stringify({ type: 'user', isSidechain: false, message: { role: 'user', content: 'y'.repeat(2500) } })}\n`);
  out.end();
  await once(out, 'finish');
  // Flush to disk first: background writeback of hundreds of MB would otherwise slow the timed reads.
  const fd = fs.openSync(file, 'r+');
  fs.fsyncSync(fd);
  fs.closeSync(fd);
  return fs.statSync(file).size;
}

function median(xs) {
  const s = [...xs].sort((a, b) => a - b);
  return s[Math.floor(s.length / 2)];
}

async function readOnce(file) {
  globalThis.gc?.();
  const t0 = performance.now();
  const reader = claudeTranscriptReader(file);
  const result = await reader.read();
  const ms = performance.now() - t0;
  if (!result.known) throw new Error(`no reading from ${file}: ${result.reason}`);
  return { ms, bytes: reader.stats.bytesRead, used: result.usedTokens };
}

/** Alternates the two files so that load on the machine hits both alike; medians of each. */
async function timeReadings(small, big) {
  const s = [];
  const b = [];
  for (let i = 0; i < RUNS; i++) {
    s.push(await readOnce(small));
    b.push(await readOnce(big));
  }
  const summary = (xs) => ({ ms: median(xs.map((x) => x.ms)), bytes: xs[0].bytes, used: xs[0].used });
  return [summary(s), summary(b)];
}

async function timeFullParse(file) {
  const parser = claudeParser();
  let state = parser.initial();
  const t0 = performance.now();
  const rl = readline.createInterface({ input: fs.createReadStream(file), crlfDelay: Infinity });
  for await (const l of rl) if (l) state = parser.apply(state, l);
  const r = parser.result(state, file);
  return { ms: performance.now() - t0, used: r.known ? r.usedTokens : undefined };
}

const fmt = (ms) => `${ms.toFixed(2)} ms`;
const mb = (b) => `${(b / 1024 / 1024).toFixed(1)} MB`;
let exit = 0;
try {
  const small = path.join(dir, 'small.jsonl');
  const big = path.join(dir, 'big.jsonl');
  const smallSize = await writeTranscript(small, SMALL - 8 * 1024); // the trailing lines bring it to ≈ 50 KB
  const t0 = performance.now();
  const bigSize = await writeTranscript(big, BIG);
  console.log(`wrote ${mb(bigSize)} synthetic transcript in ${fmt(performance.now() - t0)}`);

  const [s, b] = await timeReadings(small, big);
  const full = await timeFullParse(big);
  if (full.used !== b.used) throw new Error(`tail reading (${b.used}) disagrees with the full parse (${full.used})`);

  console.log(`reading, ${(smallSize / 1024).toFixed(0)} KB transcript: median ${fmt(s.ms)} of ${RUNS} (read ${s.bytes} bytes)`);
  console.log(`reading, ${mb(bigSize)} transcript: median ${fmt(b.ms)} of ${RUNS} (read ${b.bytes} bytes)`);
  console.log(`full parse, ${mb(bigSize)} transcript: ${fmt(full.ms)}`);
  const limit = 5 * Math.max(s.ms, 1);
  const ok = b.ms <= limit;
  console.log(`${ok ? 'ok' : 'FAIL'}: big reading ${fmt(b.ms)} ${ok ? '≤' : '>'} 5 × max(small, 1 ms) = ${fmt(limit)}; ${(full.ms / Math.max(b.ms, 0.001)).toFixed(0)}× faster than a full parse`);
  if (!ok) exit = 1;
} catch (err) {
  console.error(`bench failed: ${err instanceof Error ? err.message : String(err)}`);
  exit = 1;
} finally {
  fs.rmSync(dir, { recursive: true, force: true });
}
process.exit(exit);
