// `npm run test:mutation`: StrykerJS over src/core, the unit tier as the judge, then a per-file table.
// Extra arguments go to `stryker run`, e.g. `npm run test:mutation -- --mutate src/core/packet/risks.ts`.
// Incremental: results of unchanged code and tests are reused from reports/mutation/, so a re-run after a
// small change only tests what it touched. The HTML report is reports/mutation/mutation.html.
import { spawnSync } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';

const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..');
process.chdir(root);
const npx = process.platform === 'win32' ? 'npx.cmd' : 'npx';
const REPORT = 'reports/mutation/mutation.json';

// `--table [report.json …]`: print the table of earlier runs again (several reports are merged, a later
// one winning for a file both hold), without running anything.
const args = process.argv.slice(2);
if (args[0] === '--table') {
  const files = args.length > 1 ? args.slice(1) : [REPORT];
  const merged = { files: {} };
  for (const file of files) {
    if (!fs.existsSync(file)) {
      console.error(`test:mutation: no report at ${file}; run \`npm run test:mutation\` first.`);
      process.exit(2);
    }
    Object.assign(merged.files, JSON.parse(fs.readFileSync(file, 'utf8')).files);
  }
  printTable(merged, files.join(', '));
  process.exit(0);
}

// Stryker runs the tests in a copy of the repository under .stryker-tmp/, where the fixtures' usual
// place next to the repository (../shared/fixtures) does not resolve: name it absolutely.
const env = { ...process.env };
if (!env.HANDOFF_FIXTURES) {
  const fixtures = path.resolve(root, '..', 'shared', 'fixtures');
  if (!fs.existsSync(fixtures)) {
    console.error(`test:mutation: the test fixtures are not at ${fixtures}; set HANDOFF_FIXTURES to their folder.`);
    process.exit(2);
  }
  env.HANDOFF_FIXTURES = fixtures;
}
// The unit tests make many temporary folders and repositories: one parent that goes away afterwards.
const tmp = fs.mkdtempSync(path.join(os.tmpdir(), 'handoff-mutation-'));
env.TMPDIR = tmp;

const before = fs.existsSync(REPORT) ? fs.statSync(REPORT).mtimeMs : 0;
let status;
try {
  const r = spawnSync(npx, ['stryker', 'run', ...args], { stdio: 'inherit', env });
  status = r.status ?? 1;
} finally {
  fs.rmSync(tmp, { recursive: true, force: true });
}
if (status !== 0 || !fs.existsSync(REPORT) || fs.statSync(REPORT).mtimeMs === before) {
  console.error(`test:mutation: stryker did not finish (exit ${status}); no new report.`);
  process.exit(status || 1);
}
printTable(JSON.parse(fs.readFileSync(REPORT, 'utf8')), REPORT);

/** Mutation score as Stryker counts it: detected (killed, timeout) over valid (detected, survived, no coverage). */
function printTable(report, file) {
  const rows = [];
  const total = { killed: 0, timeout: 0, survived: 0, noCoverage: 0 };
  for (const [file, { mutants }] of Object.entries(report.files).sort(([a], [b]) => a.localeCompare(b))) {
    const n = { killed: 0, timeout: 0, survived: 0, noCoverage: 0 };
    for (const m of mutants) {
      const key = { Killed: 'killed', Timeout: 'timeout', Survived: 'survived', NoCoverage: 'noCoverage' }[m.status];
      if (key) { n[key]++; total[key]++; }
    }
    rows.push([file, n]);
  }
  const score = (n) => {
    const valid = n.killed + n.timeout + n.survived + n.noCoverage;
    return valid ? ((100 * (n.killed + n.timeout)) / valid).toFixed(1) : 'n/a';
  };
  const line = (cells) => `| ${cells.join(' | ')} |`;
  console.log('\nMutation score per file (killed + timeout over killed + timeout + survived + no coverage):\n');
  console.log(line(['file', 'score %', 'killed', 'timeout', 'survived', 'no cov.']));
  console.log(line(['---', '---:', '---:', '---:', '---:', '---:']));
  for (const [file, n] of rows) console.log(line([file, score(n), n.killed, n.timeout, n.survived, n.noCoverage]));
  console.log(line(['**all**', `**${score(total)}**`, total.killed, total.timeout, total.survived, total.noCoverage]));
  console.log(`\nFrom ${file}; mutant by mutant: the mutation.html beside it.`);
}
