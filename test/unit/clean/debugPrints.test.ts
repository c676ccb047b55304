import * as assert from 'node:assert/strict';
import { classifyDebugLine, compilePatterns, findCommentedOutBlocks, findDebugPrints } from '../../../src/core/clean/codeSmells';
import { checkTempArtifacts } from '../../../src/core/clean/tempArtifacts';
import type { AddedLine } from '../../../src/core/gitPort';
import { DEFAULT_OPTIONS } from '../../../src/core/options';
import { runCleanCheck } from '../../../src/core/workflow/check';
import { createGitClient } from '../../../src/git/gitClient';
import { makeRepo, tempRepos } from '../helpers/gitRepo';
import { handoff } from '../helpers/workbenchRepo';

const { patterns } = compilePatterns(DEFAULT_OPTIONS.debugPatterns);
const hits = (lines: AddedLine[], programFiles: string[] = []) => findDebugPrints(lines, patterns, programFiles).map((h) => `${h.path}:${h.severity}`);
const line = (path: string, text: string, n = 1): AddedLine => ({ path, line: n, text });

describe('debug prints: no false alarms for program output', () => {
  it('looks like debugging → block: debugger statements, debug markers, bare variable dumps, console.log in library code', () => {
    for (const [text, file] of [
      ['import pdb; pdb.set_trace()', 'payments/refund.py'],
      ['    breakpoint()', 'payments/refund.py'],
      ['debugger;', 'src/app.ts'],
      ['    dbg!(&total);', 'src/lib.rs'],
      ['print("DEBUG total", total)', 'payments/refund.py'],
      ['print("here")', 'payments/refund.py'],
      ['print(f"{total=}")', 'payments/refund.py'],
      ['print(total)', 'payments/refund.py'],
      ['print(order.amount, fee)', 'payments/refund.py'],
      ['console.log(order);', 'src/refund.ts'],
      ["console.log('refund computed', amount);", 'src/refund.ts'],
      ['fmt.Println(total)', 'refund.go'],
    ]) assert.equal(classifyDebugLine(text!, file!, false), 'block', text);
  });

  it('a debugger statement with a comment after it is still found and blocks', () => {
    const lines = [line('src/app.ts', 'debugger; // eslint-disable-line no-debugger', 1), line('src/app.ts', '  debugger /* step into refund */', 2)];
    assert.deepEqual(hits(lines, ['src/app.ts']), ['src/app.ts:block', 'src/app.ts:block']);
    assert.deepEqual(hits([line('src/app.ts', 'debugger = true; // flag', 1)]), []);
  });

  it('doubtful → warn: a plain message printed from library code', () => {
    assert.equal(classifyDebugLine('print("Refund saved for order", order_id)', 'payments/refund.py', false), 'warn');
    assert.equal(classifyDebugLine('fmt.Printf("refunded %d paise\\n", n)', 'refund.go', false), 'warn');
  });

  it('a command-line program prints its output: under scripts/, bin/, cli/, or known as a program (shebang, __main__, bin)', () => {
    const lines = [
      line('scripts/migrate.py', 'print(f"applied {n} migrations")'),
      line('bin/refundctl', 'print(result)'),
      line('cli/report.ts', "console.log(JSON.stringify(report, null, 2));"),
      line('tools/export.py', 'print(rows)'),
      line('src/main.ts', 'console.log(summary)'),
    ];
    assert.deepEqual(hits(lines, ['tools/export.py', 'src/main.ts']), []);
    // The same lines outside a program are findings.
    assert.deepEqual(hits(lines.map((l) => ({ ...l, path: `lib/${l.path.split('/').pop()}.py` }))).length, 5);
  });

  it('in a program only a debugger statement blocks; a debug marker there is doubtful', () => {
    assert.deepEqual(hits([line('scripts/migrate.py', 'import pdb; pdb.set_trace()'), line('scripts/seed.py', 'print("DEBUG rows", rows)')]), ['scripts/migrate.py:block', 'scripts/seed.py:warn']);
  });

  it('a line marked handoff-ignore is never a finding, nor a commented-out block holding the marker', () => {
    assert.deepEqual(hits([line('lib/a.py', 'print(total)  # handoff-ignore')]), []);
    const block = [1, 2, 3].map((n) => line('lib/a.py', `# total = compute(x${n})  handoff-ignore`, n));
    assert.deepEqual(findCommentedOutBlocks(block), []);
  });

  it('only doubtful prints: the check passes, with a warn finding that says how to silence it', () => {
    const r = checkTempArtifacts({ files: [], addedLines: [line('lib/report.py', 'print("Report written to", path)')], options: DEFAULT_OPTIONS, ownPaths: [] });
    assert.equal(r.passed, true);
    assert.equal(r.findings.length, 1);
    assert.equal(r.findings[0]!.severity, 'warn');
    assert.match(r.findings[0]!.silence!, /handoff-ignore/);
    assert.match(r.findings[0]!.silence!, /sessionHandoff\.clean\.debugPatterns/);
  });

  it('every temp-artifact finding says how to silence it', () => {
    const r = checkTempArtifacts({
      files: ['notes.tmp'],
      addedLines: [line('lib/a.py', 'print(x)', 1), ...[2, 3, 4].map((n) => line('lib/a.py', `# y = f(${n});`, n))],
      options: DEFAULT_OPTIONS,
      ownPaths: [],
    });
    assert.equal(r.passed, false);
    assert.equal(r.findings.length, 3);
    for (const f of r.findings) assert.ok(f.silence && /setting|handoff-ignore/.test(f.silence), f.detail);
  });
});

describe('debug prints in a real repository', () => {
  const make = tempRepos(() => {
    const r = makeRepo({
      files: {
        'package.json': JSON.stringify({ name: 'refund', bin: { refundctl: './tools/refundctl.js' } }),
        'tools/refundctl.js': 'module.exports = {};\n',
        'tools/export.py': 'def main():\n    pass\n',
        'tools/seed': '#!/usr/bin/env python3\nimport sys\n',
        'lib/refund.js': 'module.exports = {};\n',
      },
    });
    r.git('checkout', '-q', '-b', 'feat/x');
    return r;
  });

  it('prints of the package bin, a shebang script and a __main__ script are not findings; console.log in library code blocks', async () => {
    const r = make();
    r.write('tools/refundctl.js', 'module.exports = {};\nconsole.log(JSON.stringify(status));\n');
    r.write('tools/export.py', 'def main():\n    print(rows)\n\nif __name__ == "__main__":\n    main()\n');
    r.write('tools/seed', '#!/usr/bin/env python3\nimport sys\nprint(f"seeded {n} rows")\n');
    r.commit('cli output');
    const clean = await runCleanCheck(r.dir, DEFAULT_OPTIONS, createGitClient(r.dir));
    assert.ok(clean.ok);
    if (!clean.ok) return;
    assert.equal(clean.report.checks.find((c) => c.check === 'temp-artifacts')!.passed, true, JSON.stringify(clean.report.findings));
    assert.deepEqual(clean.report.findings.filter((x) => x.check === 'temp-artifacts'), []);

    r.write('lib/refund.js', 'module.exports = {};\nconsole.log(total);\n');
    r.commit('debugging');
    const dirty = await runCleanCheck(r.dir, DEFAULT_OPTIONS, createGitClient(r.dir));
    assert.ok(dirty.ok);
    if (!dirty.ok) return;
    const f = dirty.report.findings.find((x) => x.check === 'temp-artifacts');
    assert.equal(f?.severity, 'block');
    assert.deepEqual(f?.paths, ['lib/refund.js']);
  });

  it('handoff check: a doubtful print is shown as a warning with how to silence it, and the workbench stays clean', () => {
    const r = make();
    r.write('lib/refund.js', 'module.exports = {};\nprocess.stdout.write("x");\n');
    r.write('lib/report.py', 'def report(path):\n    print("Report written to", path)\n');
    r.commit('report output');
    const res = handoff(['check', '--dir', r.dir]);
    const temp = res.stdout.split('\n').filter((l) => /Temp artifacts|warn:|if it is wrong/.test(l)).join('\n');
    assert.match(temp, /^PASS {2}Temp artifacts/m, res.stdout);
    assert.match(temp, /- warn: 1 print added this session that may be debugging/);
    assert.match(temp, /if it is wrong: .*handoff-ignore/);
  });
});
