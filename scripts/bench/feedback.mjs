// Benchmark: synthetic 1 000 000-record feedback logs through the built `handoff generate`.
// Two logs: a mostly green one (one failure in 97), and a failure-heavy one (one run in seven fails,
// across 50 test targets) where every passing run is checked against the open failures it may resolve.
// The packet reads such a log from its end (its last 16 MB; the lines before are hashed and counted), and
// `handoff secrets` scans every line of it for credentials. Prints records/second and peak RSS of both;
// fails when a peak RSS reaches 200 MB, or when a run is over the 2 s target and slower than the floor: a
// bare Node process that reads the same log and JSON.parses each line, timed in the same run, so a busy
// or slow machine moves both (the secrets scan may take 2× the floor: it looks at every byte).
import { spawnSync } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import { builtCli, tempDir } from './lib.mjs';

const RECORDS = Number(process.env.HANDOFF_BENCH_RECORDS ?? 1_000_000);
const LIMIT_MB = 200;
const LIMIT_GENERATE_RATIO = 1;
const LIMIT_SECRETS_RATIO = 2;
const TARGET_S = 2;
const cli = builtCli(2);

/** Streams the log to disk so the benchmark itself stays small too. */
async function writeLog(file, recordAt) {
  const out = fs.createWriteStream(file);
  for (let i = 0; i < RECORDS; i++) {
    // The first record holds a (made-up) key: before the packet's window, found by `handoff secrets`.
    const rec = i === 0 ? { ...recordAt(i), stderr_tail: `denied for ${['sk', 'live', 'b3nchK9q2Lm7Xw4Rt8Zp1Vy6'].join('_')}` } : recordAt(i);
    if (!out.write(`${JSON.stringify(rec)}\n`)) await new Promise((r) => out.once('drain', r));
  }
  await new Promise((r, j) => out.end((err) => (err ? j(err) : r())));
}

const cmds = [['npm', 'test'], ['npx', 'eslint', '.'], 'git status -s', ['pytest', '-k', 'refund'], ['make', 'build']];
function mostlyGreen(i) {
  const exit = i % 97 === 0 ? 1 : i % 1009 === 0 ? null : 0;
  return {
    command: cmds[i % cmds.length], exit_code: exit, agent_note: i % 10 === 0 ? `step ${i}` : '',
    started_at: 1764400000 + i, duration_ms: 100 + (i % 50),
    stdout_tail: exit === 0 ? 'ok' : `FAILED case_${i}: expected 2000 got 1999.99`, stderr_tail: '',
    ...(exit === null ? { error: 'timeout after 30.0s' } : {}),
  };
}
/** One run in seven fails, over 50 test targets (and a lint now and then). */
function failureHeavy(i) {
  const exit = i % 7 === 0 ? 1 : 0;
  const command = i % 11 === 0 ? ['npx', 'eslint', `src/m${i % 50}.ts`] : ['pytest', `tests/test_t${i % 50}.py`, '-q'];
  return {
    command, exit_code: exit, agent_note: '', started_at: 1764400000 + i, duration_ms: 100 + (i % 50),
    stdout_tail: exit === 0 ? '3 passed' : `FAILED tests/test_t${i % 50}.py::test_case_${i} - assert 2000 == 1999.99`, stderr_tail: '',
  };
}

async function run(name, recordAt) {
  const dir = tempDir('handoff-bench-');
  fs.writeFileSync(path.join(dir, 'agent_state.json'), JSON.stringify({
    session_id: 'bench', active_task_id: 'T-1', touched_files: ['src/a.ts'], next_action: 'Re-run the failing suite',
  }));
  const log = path.join(dir, 'feedback_record.jsonl');
  let t = process.hrtime.bigint();
  await writeLog(log, recordAt);
  const sizeMb = fs.statSync(log).size / 1048576;
  console.log(`${name}: wrote ${RECORDS.toLocaleString('en-US')} records (${sizeMb.toFixed(0)} MB) in ${(Number(process.hrtime.bigint() - t) / 1e9).toFixed(1)} s`);

  // The child reports its own peak RSS on exit through a preloaded hook (no rusage of children in Node).
  const rssFile = path.join(dir, 'rss.txt');
  const preload = path.join(dir, 'rss-hook.cjs');
  fs.writeFileSync(preload, `process.on('exit', () => require('node:fs').writeFileSync(${JSON.stringify(rssFile)}, String(process.resourceUsage().maxRSS)));\n`);
  // The floor: read the log and parse every line, nothing else.
  const floorScript = `const fs=require('node:fs');let rest='';let n=0;const fd=fs.openSync(${JSON.stringify(log)},'r');const b=Buffer.alloc(262144);for(let k;(k=fs.readSync(fd,b,0,b.length,null))>0;){const s=rest+b.toString('latin1',0,k);let i=0;for(let j;(j=s.indexOf('\\n',i))!==-1;i=j+1){JSON.parse(s.slice(i,j));n++;}rest=s.slice(i);}if(n<1)process.exit(3);`;
  t = process.hrtime.bigint();
  const f = spawnSync(process.execPath, ['-e', floorScript], { encoding: 'utf8' });
  const floorS = Number(process.hrtime.bigint() - t) / 1e9;
  if (f.status !== 0) {
    console.error(`bench: the floor (parse every line) exited ${f.status}: ${f.stderr.trim().split('\n')[0]}`);
    return false;
  }
  console.log(`  the floor (parse every line): ${floorS.toFixed(2)} s`);
  let ok = true;
  for (const [what, args, maxRatio] of [['generate', ['generate', '--dir', dir, '--json'], LIMIT_GENERATE_RATIO], ['secrets', ['secrets', '--dir', dir, '--json'], LIMIT_SECRETS_RATIO]]) {
    t = process.hrtime.bigint();
    const r = spawnSync(process.execPath, ['--require', preload, cli, ...args], { encoding: 'utf8' });
    const seconds = Number(process.hrtime.bigint() - t) / 1e9;
    if (r.status !== 0) {
      console.error(`bench: handoff ${what} exited ${r.status}: ${r.stderr.trim().split('\n')[0]}`);
      return false;
    }
    const peakMb = Number(fs.readFileSync(rssFile, 'utf8')) / 1024;
    const ratio = seconds / floorS;
    console.log(`  ${what}: ${seconds.toFixed(2)} s, ${Math.round(RECORDS / seconds).toLocaleString('en-US')} records/s, ×${ratio.toFixed(2)} the floor; target ${TARGET_S} s: ${seconds <= TARGET_S ? 'met' : 'NOT met'}; peak RSS ${peakMb.toFixed(1)} MB (limit ${LIMIT_MB} MB)`);
    if (what === 'generate') {
      const packet = JSON.parse(fs.readFileSync(JSON.parse(r.stdout).json, 'utf8'));
      const resolved = packet.failed_attempts.filter((f) => f.resolved_by !== undefined).length;
      console.log(`    packet: ${packet.commands_run.length} commands kept, ${packet.commands_omitted.toLocaleString('en-US')} left out, ${packet.failed_attempts.length} failed attempts (${resolved} resolved by a later run)`);
    } else {
      const found = JSON.parse(r.stdout).places.filter((p) => p.file.endsWith('feedback_record.jsonl')).length;
      if (found !== 1) {
        console.error(`bench: ${name}: handoff secrets found ${found} places in the log, expected the one key at its first line`);
        ok = false;
      }
    }
    if (peakMb >= LIMIT_MB) {
      console.error(`bench: ${name}: ${what} peak RSS ${peakMb.toFixed(1)} MB is over the ${LIMIT_MB} MB limit`);
      ok = false;
    }
    if (seconds > TARGET_S && ratio > maxRatio) {
      console.error(`bench: ${name}: ${what} took ${seconds.toFixed(2)} s, over the ${TARGET_S} s target and ×${ratio.toFixed(2)} the floor's ${floorS.toFixed(2)} s (limit ×${maxRatio})`);
      ok = false;
    }
  }
  fs.rmSync(dir, { recursive: true, force: true });
  return ok;
}

const green = await run('mostly green log', mostlyGreen);
const heavy = await run('failure-heavy log (1 in 7 failed, 50 test targets)', failureHeavy);
process.exit(green && heavy ? 0 : 1);
