// Benchmark: `handoff statusline` (whole process) in a workbench whose output dir holds 5 000 packet
// folders (HANDOFF_BENCH_PACKETS): one active packet and thousands of superseded ones of earlier
// sessions, as a long-lived project collects. Measured with the statusline cache cold (the words are
// worked out: which packet is the active one) and warm (only what the cache depends on is looked at),
// three runs each; prints the medians and the peak RSS. Fails when a cold run's median is over 2 s or
// a warm one's over 0.5 s, or either peaks at 100 MB or more, or the line does not name the fresh packet.
import { spawnSync } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import { builtCli, gitWorkspace, here, tempDir } from './lib.mjs';

const PACKETS = Number(process.env.HANDOFF_BENCH_PACKETS ?? 5000);
const RUNS = 3;
const LIMIT_COLD_S = 2;
const LIMIT_WARM_S = 0.5;
/** The audit's bound is 200 MB; Node itself holds 40–50 MB of it, and the reading peaks near 100 MB. */
const LIMIT_MB = 128;
const cli = builtCli();
const procStats = path.join(here, 'procStats.cjs');
const dir = tempDir('handoff-bench-slp-');
const ws = path.join(dir, 'ws');
const tmp = path.join(dir, 'tmp');
fs.mkdirSync(tmp);

gitWorkspace(ws, {
  'agent_state.json': JSON.stringify({ schema_version: 1, session_id: 'bench', active_task_id: 'T-1', touched_files: [], assumptions: [], blockers: [], next_action: 'Ship the refund flow' }),
  'feedback_record.jsonl': `${JSON.stringify({ command: 'npm test', exit_code: 0, started_at: '2026-11-20T09:00:00Z' })}\n`,
  '.gitignore': 'outputs/\n',
});
const gen = spawnSync(process.execPath, [cli, 'generate', '--dir', ws], { encoding: 'utf8' });
if (gen.status !== 0) throw new Error(`generate failed: ${gen.stderr}`);
// The older packets: copies of the real one, superseded, of other sessions and (a third) other topics.
const out = path.join(ws, 'outputs', 'handoff');
const src = JSON.parse(fs.readFileSync(path.join(out, 'bench', 'handoff.json'), 'utf8'));
const md = fs.readFileSync(path.join(out, 'bench', 'handoff.md'), 'utf8');
for (let i = 0; i < PACKETS; i++) {
  const id = `${(0x10000000 + i * 7919).toString(16)}-5d21-4e40-b9a7-3c5e1f0d2b68`;
  const packet = {
    ...src, session_id: id, packet_id: id, status: 'superseded', superseded_by: src.packet_id,
    generated_at: new Date(Date.parse('2026-01-01T00:00:00Z') + i * 60_000).toISOString(), topic: i % 3 ? 'T-1' : `T-${i % 40}`,
  };
  fs.mkdirSync(path.join(out, id));
  fs.writeFileSync(path.join(out, id, 'handoff.json'), `${JSON.stringify(packet, null, 2)}\n`);
  fs.writeFileSync(path.join(out, id, 'handoff.md'), md);
}
const transcript = path.join(dir, 't.jsonl');
fs.writeFileSync(transcript, `${JSON.stringify({ type: 'assistant', isSidechain: false, sessionId: 'bench', timestamp: '2026-11-20T09:00:00Z', message: { model: 'claude-sonnet-4-5', usage: { input_tokens: 10, cache_creation_input_tokens: 0, cache_read_input_tokens: 50_000 } } })}\n`);
const input = JSON.stringify({ session_id: 'bench', transcript_path: transcript, cwd: ws, model: { id: 'claude-sonnet-4-5' } });

function measure(cold) {
  if (cold) for (const f of fs.readdirSync(tmp)) fs.rmSync(path.join(tmp, f), { force: true });
  const stats = path.join(dir, 'proc.json');
  const t0 = performance.now();
  const r = spawnSync(process.execPath, ['--require', procStats, cli, 'statusline'], { input, encoding: 'utf8', env: { ...process.env, TMPDIR: tmp, HANDOFF_PROC_STATS: stats } });
  const s = (performance.now() - t0) / 1000;
  if (r.status !== 0) throw new Error(`statusline exited ${r.status}: ${r.stderr}`);
  const { rss } = JSON.parse(fs.readFileSync(stats, 'utf8'));
  return { s, mb: rss / 1048576, out: r.stdout.trim() };
}

const median = (xs) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)];
let exit = 0;
try {
  for (const [name, cold, limit] of [['cold cache', true, LIMIT_COLD_S], ['warm cache', false, LIMIT_WARM_S]]) {
    const runs = [];
    for (let i = 0; i < RUNS; i++) {
      // A warm run follows a run that filled the cache (well within its 10 s TTL).
      if (!cold) measure(true);
      runs.push(measure(cold));
    }
    const s = median(runs.map((r) => r.s));
    const mb = Math.max(...runs.map((r) => r.mb));
    const shows = runs.every((r) => /clean · handoff fresh$/.test(r.out));
    const ok = s <= limit && mb < LIMIT_MB && shows;
    if (!ok) exit = 1;
    console.log(`statusline, ${PACKETS.toLocaleString('en-US')} packet folders, ${name}: median ${s.toFixed(2)} s of ${RUNS} (${runs.map((r) => r.s.toFixed(2)).join(', ')}), peak RSS ${mb.toFixed(0)} MB${shows ? '' : `, line: ${runs[0].out}`} ${ok ? 'ok' : `FAIL (limits ${limit} s, ${LIMIT_MB} MB, the fresh packet named)`}`);
  }
} catch (err) {
  console.error(`bench failed: ${err instanceof Error ? err.message : String(err)}`);
  exit = 1;
} finally {
  fs.rmSync(dir, { recursive: true, force: true });
}
process.exit(exit);
