// `npm run test:mutation`: StrykerJS over src/core, the unit tier as the judge, then a per-file table.
// Extra arguments go to `stryker run`, e.g. `npm run test:mutation -- --mutate src/core/packet/risks.ts`;
// `--table` and `--survivors` read the last report instead of running.
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
let REPORT = 'reports/mutation/mutation.json';

/** The reports of the last whole run and of each folder run (`--folder`), oldest first. */
function allReports() {
  const dir = 'reports/mutation';
  const found = fs.existsSync(REPORT) ? [REPORT] : [];
  if (fs.existsSync(dir)) {
    for (const e of fs.readdirSync(dir, { withFileTypes: true })) {
      const f = path.join(dir, e.name, 'mutation.json');
      if (e.isDirectory() && fs.existsSync(f)) found.push(f);
    }
  }
  return found.sort((a, b) => fs.statSync(a).mtimeMs - fs.statSync(b).mtimeMs);
}

// `--table [report.json …]`: print the table of earlier runs again (several reports are merged, a later
// one winning for a file both hold), without running anything.
const args = process.argv.slice(2);
if (args[0] === '--table') {
  const files = args.length > 1 ? args.slice(1) : allReports();
  if (files.length === 0) {
    console.error('test:mutation: no report yet; run `npm run test:mutation` first.');
    process.exit(2);
  }
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

// `--survivors [report.json] [path-part]`: every mutant no test noticed (survived or not covered), with
// its line and what it changed, for the files whose path contains `path-part`.
if (args[0] === '--survivors') {
  const reports = args[1]?.endsWith('.json') ? [args[1]] : allReports();
  const part = args[1]?.endsWith('.json') ? (args[2] ?? '') : (args[1] ?? '');
  if (reports.length === 0 || !reports.every((f) => fs.existsSync(f))) {
    console.error('test:mutation: no report yet; run `npm run test:mutation` first.');
    process.exit(2);
  }
  const files = {};
  for (const f of reports) Object.assign(files, JSON.parse(fs.readFileSync(f, 'utf8')).files);
  for (const [name, { source, mutants }] of Object.entries(files).sort(([a], [b]) => a.localeCompare(b))) {
    if (!name.includes(part)) continue;
    const lines = source.split('\n');
    const left = mutants.filter((m) => m.status === 'Survived' || m.status === 'NoCoverage').sort((a, b) => a.location.start.line - b.location.start.line);
    if (left.length === 0) continue;
    console.log(`\n${name}: ${left.length} not detected`);
    for (const m of left) {
      const { start } = m.location;
      const code = (lines[start.line - 1] ?? '').trim().slice(0, 110);
      const repl = String(m.replacement ?? '').replace(/\s+/g, ' ').slice(0, 70);
      console.log(`  ${start.line}:${start.column} ${m.status === 'NoCoverage' ? 'no coverage' : 'survived'} ${m.mutatorName} → ${repl}\n      ${code}`);
    }
  }
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

// `--folder NAME` (a folder of src/core, e.g. packet): mutates that folder only, judged by its own unit
// tests (test/unit/NAME) and the pinning tests — a lower bound, minutes instead of hours, since a mutant
// in module-level code (a table, an expression) otherwise runs the whole tier. Reports and incremental
// results go to reports/mutation/NAME/, so folders are measured one by one and `--table` merges them.
let runArgs = args;
const folderAt = args.indexOf('--folder');
if (folderAt !== -1) {
  const name = args[folderAt + 1];
  if (!name || !fs.existsSync(path.join('src', 'core', name))) {
    console.error(`test:mutation: --folder needs a folder of src/core (got ${name ?? 'nothing'}).`);
    process.exit(2);
  }
  const config = JSON.parse(fs.readFileSync('stryker.config.json', 'utf8'));
  const out = `reports/mutation/${name}`;
  // `--tests a,b`: only these files of test/unit/NAME (without .test.ts) besides the pins, e.g. to leave
  // out an end-to-end test that runs the whole command line for every mutant.
  const testsAt = args.indexOf('--tests');
  const only = testsAt === -1 ? null : (args[testsAt + 1] ?? '').split(',').filter(Boolean);
  const tests = !fs.existsSync(path.join('test', 'unit', name)) ? []
    : only ? only.map((t) => `out/test/unit/${name}/${t}.test.js`) : [`out/test/unit/${name}/**/*.test.js`];
  // `--no-pins`: the folder's own tests only — for a folder of module-level tables (the redaction rules),
  // whose every mutant otherwise runs all the pins too.
  const pins = args.includes('--no-pins') ? [] : ['out/test/unit/mutation-pins/**/*.test.js'];
  Object.assign(config, {
    mutate: [`src/core/${name}/**/*.ts`],
    mochaOptions: { ...config.mochaOptions, spec: [...pins, ...tests] },
    incrementalFile: `${out}/stryker-incremental.json`,
    htmlReporter: { fileName: `${out}/mutation.html` },
    jsonReporter: { fileName: `${out}/mutation.json` },
  });
  fs.mkdirSync(out, { recursive: true });
  const file = `${out}/stryker.config.json`;
  fs.writeFileSync(file, JSON.stringify(config, null, 2));
  REPORT = `${out}/mutation.json`;
  const testsAt2 = args.indexOf('--tests');
  runArgs = [file, ...args.filter((a, i) => a !== '--no-pins' && ![folderAt, folderAt + 1, ...(testsAt2 === -1 ? [] : [testsAt2, testsAt2 + 1])].includes(i))];
}

// Every mutant that survived last time is tested again: Stryker's incremental mode keeps the verdict of a
// module-level mutant (a table, a regular expression) even when tests added since would kill it. Killed
// verdicts stay reused — a change to the code or to the test that killed them re-tests them anyway.
retestSurvivors(REPORT.replace(/mutation\.json$/, 'stryker-incremental.json'));

const before = fs.existsSync(REPORT) ? fs.statSync(REPORT).mtimeMs : 0;
let status;
try {
  const r = spawnSync(npx, ['stryker', 'run', ...runArgs], { stdio: 'inherit', env });
  status = r.status ?? 1;
} finally {
  fs.rmSync(tmp, { recursive: true, force: true });
}
if (status !== 0 || !fs.existsSync(REPORT) || fs.statSync(REPORT).mtimeMs === before) {
  console.error(`test:mutation: stryker did not finish (exit ${status}); no new report.`);
  process.exit(status || 1);
}
printTable(JSON.parse(fs.readFileSync(REPORT, 'utf8')), REPORT);

/** Drops the survived and uncovered mutants from an incremental file, so that the next run tests them. */
function retestSurvivors(file) {
  if (!fs.existsSync(file)) return;
  const incremental = JSON.parse(fs.readFileSync(file, 'utf8'));
  let dropped = 0;
  for (const entry of Object.values(incremental.files ?? {})) {
    const kept = entry.mutants.filter((m) => m.status !== 'Survived' && m.status !== 'NoCoverage');
    dropped += entry.mutants.length - kept.length;
    entry.mutants = kept;
  }
  if (dropped > 0) fs.writeFileSync(file, JSON.stringify(incremental));
}

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
