import * as assert from 'node:assert/strict';
import { isStackFrame, salientExcerpt, tailExcerpt } from '../../../src/core/packet/excerpt';

/**
 * What an excerpt does with one line of runner output, seen through the exported functions:
 * - `frame`: a runtime or library stack frame (never kept);
 * - `noise`: a separator, banner, progress or pass line (never kept, not even in the tail);
 * - `cause`: a line that names the cause (kept by the salient excerpt, which then drops plain lines);
 * - `plain`: anything else (kept only when nothing names a cause).
 */
type Kind = 'frame' | 'noise' | 'cause' | 'plain';
const FILLER = 'building refund index';
const WIDE = 100_000;

function kind(line: string): Kind {
  if (isStackFrame(line)) return 'frame';
  if (tailExcerpt(line, WIDE) === '') return 'noise';
  return salientExcerpt(`${FILLER}\n${line}`, WIDE).startsWith(FILLER) ? 'plain' : 'cause';
}

/** Realistic lines of each runner's output, with what the excerpt must make of them. */
const LINES: Record<string, [string, Kind][]> = {
  'JS and JVM stack frames': [
    ['    at Object.<anonymous> (/home/dev/refund-js/test/refund.test.js:6:10)', 'frame'],
    ['at  Test.run (node:internal/test_runner/test:796:25)', 'frame'],
    ['at com.acme.refund.RefundTest.partial(RefundTest.java:42)', 'frame'],
    ['at /home/dev/refund-js/node_modules/mocha/lib/runner.js:512:5', 'frame'],
    ['at node:internal/main/run_main_module:28:49', 'frame'],
    ['at async Promise.all (index 12)', 'frame'],
    ['at JSON.parse (<anonymous>)', 'frame'],
    ['at Module._compile (node:internal/modules/cjs/loader:1364:14) {', 'frame'],
    ['at refund (src/refund.js:3:4) while settling', 'plain'],
    ['called at parse (src/refund.js:3:4)', 'plain'],
  ],
  'node:test TAP stacks': [
    ['Test.run (node:internal/test_runner/test:796:25)', 'frame'],
    ['async Test.processPendingSubtests (node:internal/test_runner/test:526:7)', 'frame'],
    ['async  Test.run (node:internal/test_runner/test:796:25)', 'frame'],
    ['Server.handler [as onRequest] (/srv/refund/app.js:10:5)', 'frame'],
    ['TestContext.<anonymous> (C:\\work\\refund.test.js:6:10)', 'frame'],
    ['TestContext.<anonymous> (file:///home/dev/refund.test.mjs:6:10)', 'frame'],
    ['Test.run (node:internal/test_runner/test:796:25) retried', 'plain'],
    ['see TestContext.<anonymous> (/home/dev/refund.test.js:6:10)', 'plain'],
    ['stack: |-', 'frame'],
    ['stack: |', 'frame'],
    ['error stack: |-', 'plain'],
    ['stack: |- truncated', 'plain'],
  ],
  'Python tracebacks': [
    ['Traceback (most recent call last):', 'frame'],
    ['File "/usr/local/lib/python3.11/json/decoder.py", line 337, in decode', 'frame'],
    ['while reading File "config.yml", line 4', 'plain'],
    ['/usr/local/lib/python3.11/json/__init__.py:346: in loads', 'frame'],
    ['tests/test_gateway.py:14: in parse_reply', 'frame'],
    ['during setup, tests/test_gateway.py:14: in parse_reply', 'plain'],
    ['/usr/lib/python3.11/json/decoder.py:353: JSONDecodeError', 'frame'],
    ['in /usr/lib/python3.11/json/decoder.py:353: JSONDecodeError', 'plain'],
    ['/home/dev/refund/refund.c:12: error: refund undeclared', 'cause'],
    ['see Traceback (most recent call last):', 'plain'],
    ['Traceback (most recent call last): (truncated)', 'plain'],
  ],
  'Rust backtraces': [
    ['0: __rustc::rust_begin_unwind', 'frame'],
    ['12: core::panicking::panic_fmt', 'frame'],
    ['4: refund::tests::partial_refund_in_paise', 'frame'],
    ['7: <fn() -> core::result::Result<(), alloc::string::String> as core::ops::function::FnOnce<()>>::call_once', 'frame'],
    ['at line 10: std::vector out of range', 'plain'],
    ['at /rustc/59807616e1fa2540724bfbac14d7976d7e4a3860/library/std/src/panicking.rs:689:5', 'frame'],
    ['at ./src/lib.rs:9:36', 'frame'],
    ["thread 'main' panicked at /rustc/59807616e1fa/library/core/src/str/mod.rs:68:5:", 'cause'],
    ['stack backtrace:', 'frame'],
    ['full stack backtrace:', 'plain'],
    ['stack backtrace: unavailable', 'plain'],
    ['note: run with `RUST_BACKTRACE=1` environment variable to display a backtrace', 'frame'],
    ['= note: run with `RUST_BACKTRACE=1` to see more', 'plain'],
  ],
  'Go panics': [
    ['goroutine 17 [running]:', 'frame'],
    ['panic in goroutine 7 [running]:', 'plain'],
    ['/usr/local/go/src/testing/testing.go:1632 +0x230', 'frame'],
    ['/home/dev/refund-go/refund.go:21', 'frame'],
    ['FAIL: see /home/dev/refund-go/refund.go:21', 'cause'],
    ['/home/dev/refund-go/refund_test.go:14: got 1001, want 1000', 'cause'],
    ['created by testing.(*T).Run in goroutine 1', 'frame'],
    ['goroutine created by testing.(*T).Run', 'plain'],
    ['testing.tRunner(0xc0000a2ea0, 0x5546c8)', 'frame'],
    ['testing.tRunner(0xc0000a2ea0,0x5546c8)', 'frame'],
    ['testing.tRunner.func1()', 'frame'],
    ['testing.tRunner.func1.2({0x51f0a0, 0x6a1e30})', 'frame'],
    ['example.com/refund.parseReply(...)', 'frame'],
    ['example.com/refund.TestGatewayReply(0xc0000a2ea0?)', 'frame'],
    ['assert refund.total()', 'cause'],
    ['refund.parseReply(...) returned nil', 'plain'],
  ],
  'separators, banners and progress': [
    ['=====', 'noise'],
    ['--', 'plain'],
    ['==== FAILURES ====', 'noise'],
    ['⎯⎯⎯⎯ Failed Tests 2 ⎯⎯⎯⎯', 'noise'],
    ['==== 2 failed ==== in 0.3s', 'cause'],
    ['=== RUN   TestPartialRefund', 'noise'],
    ['=== CONT  TestGatewayReply', 'noise'],
    ['=== diff: 1000.01 !== 1000', 'cause'],
    ['= 1 failed ===', 'cause'],
    ['=== 1 failed =', 'cause'],
    ['expected separator ===', 'cause'],
    ['E   === diff ===', 'cause'],
    ['collected 3 items', 'noise'],
    ['rootdir: /home/dev/refund-service', 'noise'],
    ['Error: 3 plugins failed to load', 'cause'],
    ['Compiling refund v0.1.0 (/home/dev/refund-rs)', 'noise'],
    ['error: Running `target/debug/refund` failed', 'cause'],
    ['running 12 tests', 'noise'],
    ['running 1 test', 'noise'],
    ['running 3 tests (2 filtered out)', 'plain'],
    ['error: rerunning 3 tests', 'cause'],
    ['test tests::full_refund ... ok', 'noise'],
    ['test tests::slow ... ignored, needs a database', 'plain'],
    ['pretest refund ... ok', 'plain'],
    ['✔ refund route returns the total', 'noise'],
    ['ok 12 - refund route returns the total', 'noise'],
    ['PASS test/refund.test.js', 'noise'],
    ['AssertionError: expected status PASS', 'cause'],
    ['TAP version 13', 'noise'],
    ['TAP version 13 (node 20)', 'plain'],
    ['Error: unsupported TAP version 14', 'cause'],
    ['# tests 3', 'noise'],
    ['not ok 2 - partial refund # todo', 'cause'],
    ['ℹ tests 3', 'noise'],
    ['AssertionError: ℹ tests 3', 'cause'],
    ['failures:', 'noise'],
    ['✖ failing tests:', 'noise'],
    ['error: 3 test failures:', 'cause'],
    ['failures: tests::gateway_reply', 'plain'],
    ['test at test/refund.test.js:12:10', 'noise'],
    ['test at test/refund.test.js:12:10 (retried)', 'plain'],
    ['not ok 2 test at test/refund.test.js:12:10', 'cause'],
    ['npm error', 'noise'],
    ['Error: npm ERR!', 'cause'],
    ['> refund@1.0.0 test', 'noise'],
    ['npm error > refund@1.0.0 deploy', 'cause'],
  ],
  'code frames': [
    ['12 | const refund = partial(2000)', 'noise'],
    ['5|   const refund = partial(2000)', 'noise'],
    ['> 12 | expect(refund).toBe(1000)', 'noise'],
    ['>  9 | expect(refund).toBe(1000)', 'noise'],
    ['Expected: 3 | undefined', 'cause'],
    ['|     ^', 'noise'],
    ['|     ^ Unexpected token (1:4)', 'noise'],
    ['| ^', 'noise'],
    ['Expected pattern: /^refund|^ref/', 'cause'],
  ],
  'causes': [
    ['FAILED tests/test_refund.py::test_partial - assert 1999.9 == 2000', 'cause'],
    ['+ grep -c \'not ok\' out.tap', 'plain'],
    ['+ echo \'___ section ___\'', 'plain'],
    ['+ echo ___ section ___', 'plain'],
    ['___ test_partial ___ [100%]', 'plain'],
    ['--- FAIL: TestPartialRefund (0.00s)', 'cause'],
    ['+ grep -- \'--- FAIL:\' go.log', 'plain'],
    ['× refund > computes a partial refund', 'cause'],
    ['upgraded refund 1.2 → 1.3', 'plain'],
    ['1) refund', 'cause'],
    ['12) computes a partial refund', 'cause'],
    ['step (3) done', 'plain'],
    ['test tests::partial_refund_in_paise ... FAILED', 'cause'],
    ['+ echo test tests::x ... FAILED', 'plain'],
    ['test tests::slow ... FAILED after retry', 'plain'],
    ['---- tests::partial_refund_in_paise stdout ----', 'cause'],
    ['+ echo ---- tests::x stdout ----', 'plain'],
    ['---- tests::x stdout ---- 2 lines', 'plain'],
    ["thread 'tests::partial' (19438) panicked at src/lib.rs:9:36:", 'cause'],
    ['+ grep "thread \'main\' panicked at" run.log', 'plain'],
    ['panic: runtime error: invalid memory address', 'cause'],
    ['+ grep \'panic: \' go.log', 'plain'],
    ['E   +  where 1999.99 = partial(2000)', 'cause'],
    ['E +  where 1999.99 = partial(2000)', 'cause'],
    ['CREATE TABLE refunds', 'plain'],
    ['>       obj, end = self.scan_once(s, idx)', 'cause'],
    ['> obj, end = self.scan_once(s, idx)', 'cause'],
    ['+ cat a.txt > b.txt', 'plain'],
    ['json.decoder.JSONDecodeError: Expecting property name', 'cause'],
    ['ValueError: bad refund', 'cause'],
    ['TypeError[ERR_INVALID_ARG_TYPE]: The path argument must be of type string', 'cause'],
    ['TypeError [ERR_INVALID_ARG_TYPE]: The path argument must be of type string', 'cause'],
    ['left: 1001', 'cause'],
    ['margin-left: 4px', 'plain'],
    ['error: linking with `cc` failed: exit status: 1', 'cause'],
    ['error[E0308]: mismatched types', 'cause'],
    ['src/refund.ts(3,9): error TS2322: Type number is not assignable', 'cause'],
    ['npm error code ELIFECYCLE', 'cause'],
    ['+ grep \'npm error\' build.log', 'plain'],
    ['fatal: not a git repository', 'cause'],
    ['log levels: debug, info, fatal: none enabled', 'plain'],
    ['make: *** [Makefile:3: migrate] Error 127', 'cause'],
    ['cmake: version 3.28.1', 'plain'],
    ['12:5  error  \'fetchStatus\' is not defined  no-undef', 'cause'],
    ['2024-05-01 12:30 warning disk at 80%', 'plain'],
    ['12 failed, 30 passed', 'cause'],
    ['Found 1 error in src/refund.ts', 'cause'],
    ['found 1 problem', 'cause'],
    ['summary: failure=1 skipped=0', 'cause'],
    ['test result: FAILED. 1 passed; 2 failed', 'cause'],
    ['+ grep \'test result: FAILED\' target/log', 'plain'],
    ['FAILED (failures=1)', 'cause'],
    ['+ grep \'FAILED (\' log', 'plain'],
  ],
};

describe('what an excerpt makes of each line of runner output', () => {
  for (const [group, rows] of Object.entries(LINES)) {
    it(group, () => {
      const wrong = rows.filter(([line, want]) => kind(line) !== want).map(([line, want]) => `${line}: ${kind(line)}, want ${want}`);
      assert.deepEqual(wrong, []);
    });
  }
});

describe('how an excerpt tidies, joins and cuts the lines it keeps', () => {
  it('drops durations at the end of a line, whatever their unit, and keeps them elsewhere', () => {
    const out = ['✕ refund computes (12 ms)', '✕ b (1.25 ms)', '✕ c (12ms)', '--- FAIL: TestPartialRefund (0.00s)', '× d 12ms', '× e 1.25ms', '✕ f (5 ms) retried', 'FAIL x > 3ms budget exceeded'];
    assert.equal(salientExcerpt(out.join('\n'), WIDE),
      ['✕ refund computes', '✕ b', '✕ c', '--- FAIL: TestPartialRefund', '× d', '× e', '✕ f (5 ms) retried', 'FAIL x > 3ms budget exceeded'].join('\n'));
  });

  it("names pytest's failure header `____ test ____` as FAILED test, and only a whole header", () => {
    assert.equal(salientExcerpt('____________ test_partial ____________\nE   assert 1999.99 == 2000', WIDE), 'FAILED test_partial\nE assert 1999.99 == 2000');
    assert.equal(salientExcerpt('___ test_x ___ AssertionError: bad', WIDE), '___ test_x ___ AssertionError: bad');
    assert.equal(salientExcerpt('E   assert x == ___ y ___', WIDE), 'E assert x == ___ y ___');
  });

  it('cuts a line longer than 200 characters to 199 and an ellipsis; a line of 200 stays whole', () => {
    const long = `E ${'x'.repeat(300)}`;
    assert.equal(salientExcerpt(long, WIDE), `${long.slice(0, 199)}…`);
    const exact = `E ${'y'.repeat(198)}`;
    assert.equal(salientExcerpt(exact, WIDE), exact);
  });

  it('splits lines at CRLF and at a lone CR (progress bars redraw with it)', () => {
    assert.equal(salientExcerpt('downloading\r\nError: a\rprogress 100%\rError: b', WIDE), 'Error: a\nError: b');
  });

  it('removes colour codes and terminal hyperlinks before reading a line', () => {
    const link = '\u001b]8;;file:///home/dev/src/refund.ts\u0007src/refund.ts\u001b]8;;\u0007';
    assert.equal(salientExcerpt(`${link}: error TS2322: Type number is not assignable`, WIDE), 'src/refund.ts: error TS2322: Type number is not assignable');
    assert.ok(isStackFrame('\u001b[2m    at refund (/home/dev/refund.js:1:2)\u001b[22m'));
    assert.ok(!isStackFrame(''));
  });

  it("drops a Python frame's own code line, and only that indented line", () => {
    const tb = ['Traceback (most recent call last):', '  File "/app/migrate.py", line 12, in <module>', '    main()', '  File "/app/migrate.py", line 8, in main',
      '    if total > limit:', 'sqlite3.OperationalError: duplicate column name: amount'].join('\n');
    assert.equal(tailExcerpt(tb, WIDE), 'sqlite3.OperationalError: duplicate column name: amount');
    assert.equal(tailExcerpt('  File "a.py", line 1, in f\n    f()\n    more indented output', WIDE), 'more indented output');
    assert.equal(tailExcerpt('  File "a.py", line 1, in f\nValueError:  bad refund', WIDE), 'ValueError: bad refund');
    assert.equal(tailExcerpt('  File "a.py", line 1, in f\n ValueError: bad refund', WIDE), 'ValueError: bad refund');
    assert.equal(tailExcerpt('tests/test_gateway.py:4: in parse_reply\n    return json.loads(raw)\nE   json.decoder.JSONDecodeError: x', WIDE), 'E json.decoder.JSONDecodeError: x');
    assert.equal(tailExcerpt('tests/test_gateway.py:14: in parse_reply\n    E   assert 1 == 2', WIDE), 'E assert 1 == 2');
    assert.equal(tailExcerpt('tests/test_gateway.py:14: in parse_reply\n    >   assert 1 == 2', WIDE), '> assert 1 == 2');
    assert.equal(tailExcerpt('    indented output first\nthen more', WIDE), 'indented output first\nthen more');
  });

  it("eslint: a file name right above a `line:col  error` row is kept with it; other lines are not", () => {
    assert.equal(salientExcerpt('/home/dev/refund-js/src/gateway.js\n  12:10  error  \'fetchStatus\' is not defined  no-undef', WIDE),
      "/home/dev/refund-js/src/gateway.js\n12:10 error 'fetchStatus' is not defined no-undef");
    for (const above of ['building refund index', 'lint of src/gateway.js', 'src/gateway.js was linted']) {
      assert.equal(salientExcerpt(`${above}\n  4:10  error  'x' is not defined  no-undef`, WIDE), "4:10 error 'x' is not defined no-undef", above);
    }
    assert.equal(salientExcerpt('src/gateway.js\nat 4:10  error  x\nError: y', WIDE), 'Error: y');
  });

  it("mocha: the test's own title under `1) suite` is kept, when it ends in a colon", () => {
    const mocha = ['  refund', '    ✔ returns the total', '  1 passing (29ms)', '  2 failing', '', '  1) refund', '       computes a partial refund in paise:', '',
      '      AssertionError [ERR_ASSERTION]: Expected values to be strictly equal:'].join('\n');
    assert.equal(salientExcerpt(mocha, WIDE), '2 failing\n1) refund\ncomputes a partial refund in paise:\nAssertionError [ERR_ASSERTION]: Expected values to be strictly equal:');
    assert.equal(salientExcerpt('12) refund\n   computes a partial refund:', WIDE), '12) refund\ncomputes a partial refund:');
    assert.equal(salientExcerpt('1) refund\n   computes: a partial refund\nError: x', WIDE), '1) refund\nError: x');
    assert.equal(salientExcerpt('step (3) done\n   computes a partial refund:\nError: x', WIDE), 'Error: x');
  });

  it('keeps a line once, even when a runner prints it again with another marker', () => {
    assert.equal(salientExcerpt('Error: x\nError: x', WIDE), 'Error: x');
    assert.equal(salientExcerpt('1000.01 !== 1000\n✖ 1000.01 !== 1000\n  › 1000.01 !== 1000', WIDE), '1000.01 !== 1000');
    assert.equal(salientExcerpt('expected: 1000\nexpected 1000', WIDE), 'expected: 1000\nexpected 1000');
  });

  it('fills the budget exactly, skipping a line too long for what is left but not the shorter ones after it', () => {
    assert.equal(salientExcerpt('Error: aaaa\nError: bbbb', 23), 'Error: aaaa\nError: bbbb');
    assert.equal(salientExcerpt('Error: aaaa\nError: bbbb', 22), 'Error: aaaa');
    assert.equal(salientExcerpt(`Error: a\nError: ${'z'.repeat(50)}\nError: c`, 30), 'Error: a\nError: c');
  });

  it('the tail takes whole last lines within the budget, and cuts only a last line that alone is too long', () => {
    assert.equal(tailExcerpt('aaaa\nbbbb\ncccc', 13), 'bbbb\ncccc');
    assert.equal(tailExcerpt('aaaa\nbbbb\ncccc', 9), 'bbbb\ncccc');
    assert.equal(tailExcerpt('aaaa\nbbbb\ncccc', 8), 'cccc');
    assert.equal(tailExcerpt('aaaaaaaaaa\nbbbb', 8), 'bbbb');
    assert.equal(tailExcerpt('aaaaaaaaaa', 8), '…aaaaaaa');
  });

  it("go: panic's own frame `panic({…})` is a frame", () => {
    assert.equal(kind('panic({0x51f0a0?, 0x6a1e30?})'), 'frame');
  });
});
