import * as assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import * as path from 'node:path';
import { EXCERPT_MAX, isStackFrame, salientExcerpt, tailExcerpt } from '../../../src/core/packet/excerpt';
import { repoRoot } from '../helpers/fixtures';

const output = (name: string): string => readFileSync(path.join(repoRoot(), 'test', 'fixtures', 'outputs', name), 'utf8');

/** Lines a reader must never get instead of the cause: frames of runtimes, test harnesses and libraries. */
const FRAME_SIGNS = [/^\s*at /, /node:internal/, /node:async_hooks/, /^File "/, /^Traceback/, /goroutine \d+/, /testing\.tRunner/, /core::panicking/, /rust_begin_unwind/, /\/usr\/local\/lib\/python/, /\.go:\d+ \+0x/];

/**
 * Captured real outputs (test/fixtures/outputs): the excerpt names the failing test and carries its
 * assertion or error line. `name` and `cause` are what a reader must find; both are literal text of the
 * capture, so a runner whose output changes shape fails here rather than silently losing the cause.
 */
const CASES: { file: string; runner: string; name: RegExp; cause: RegExp }[] = [
  { file: 'pytest-assert.txt', runner: 'pytest', name: /test_partial/, cause: /assert 1999\.9999998 == 2000/ },
  { file: 'pytest-library-error.txt', runner: 'pytest (error raised in the standard library)', name: /test_gateway_reply/, cause: /JSONDecodeError: Expecting property name/ },
  { file: 'unittest.txt', runner: 'python unittest', name: /FAIL: test_partial/, cause: /AssertionError: 1000\.0 != 1001/ },
  { file: 'python-traceback.txt', runner: 'python script', name: /OperationalError/, cause: /duplicate column name: amount/ },
  { file: 'node-test-spec.txt', runner: 'node:test (spec)', name: /✖ partial refund in paise/, cause: /1000\.01 !== 1000/ },
  { file: 'node-test-tap.txt', runner: 'node:test (TAP)', name: /not ok 2 - partial refund in paise/, cause: /1000\.01 !== 1000/ },
  { file: 'mocha.txt', runner: 'mocha', name: /computes a partial refund in paise/, cause: /AssertionError.*strictly equal[\s\S]*1000\.01 !== 1000/ },
  { file: 'jest.txt', runner: 'jest', name: /● refund › computes a partial refund in paise/, cause: /Expected: 1000\nReceived: 1000\.01/ },
  { file: 'vitest.txt', runner: 'vitest', name: /× refund > computes a partial refund in paise/, cause: /expected 1000\.01 to be 1000/ },
  { file: 'go-test-assert.txt', runner: 'go test (assertion)', name: /--- FAIL: TestPartialRefund/, cause: /= 1001, want 1000/ },
  { file: 'go-test-panic.txt', runner: 'go test (panic)', name: /--- FAIL: TestGatewayReply/, cause: /panic: runtime error: invalid memory address/ },
  { file: 'cargo-test.txt', runner: 'cargo test', name: /tests::partial_refund_in_paise/, cause: /assertion `left == right` failed\nleft: 1001\nright: 1000/ },
  { file: 'tsc.txt', runner: 'tsc', name: /ts\/refund\.ts\(3,9\)/, cause: /error TS2322: Type 'number' is not assignable to type 'string'/ },
  { file: 'tsc-pretty.txt', runner: 'tsc --pretty (colour codes)', name: /ts\/refund\.ts:3:9/, cause: /error TS2322: Type 'number' is not assignable/ },
  { file: 'eslint.txt', runner: 'eslint', name: /src\/gateway\.js/, cause: /4:10 error 'fetchStatus' is not defined/ },
  { file: 'npm-missing-script.txt', runner: 'npm', name: /npm error/, cause: /Missing script: "deploy"/ },
  { file: 'make.txt', runner: 'make', name: /make: \*\*\* \[Makefile:3: migrate\] Error 127/, cause: /\.\/bin\/migrate: No such file or directory/ },
  { file: 'bash.txt', runner: 'bash', name: /refundctl/, cause: /command not found/ },
];

describe('salient excerpts of real runner output', () => {
  for (const c of CASES) {
    it(`${c.runner}: names the failing test and its cause, without stack frames`, () => {
      const raw = output(c.file);
      const ex = salientExcerpt(raw);
      assert.match(ex, c.name, ex);
      assert.match(ex, c.cause, ex);
      assert.ok(ex.length <= EXCERPT_MAX, `${ex.length} chars`);
      for (const line of ex.split('\n')) {
        assert.ok(!isStackFrame(line), `stack frame kept: ${line}`);
        for (const sign of FRAME_SIGNS) assert.ok(!sign.test(line), `frame-like line kept: ${line}`);
      }
      assert.ok(!/\u001b\[/.test(ex), 'colour codes removed');
    });
  }

  it('the old cut (the last 300 characters) of node:test and cargo holds frames or summaries, not the cause', () => {
    // Guards the premise of these tests: the captures really do bury the cause before their tail.
    assert.ok(!/1000\.01 !== 1000/.test(output('node-test-spec.txt').slice(-300)));
    assert.ok(!/left: 1001/.test(output('cargo-test.txt').slice(-300)));
  });

  it('keeps plain output that names no failure as its last lines', () => {
    const ex = salientExcerpt('building refund index\nwrote 120 rows\nretrying upstream in 5 s');
    assert.equal(ex, 'building refund index\nwrote 120 rows\nretrying upstream in 5 s');
  });

  it('redacts the whole text before cutting: a key whose label is far above the cut is still masked', () => {
    const pem = ['-----BEGIN RSA PRIVATE KEY-----', ...Array.from({ length: 30 }, (_, i) => `MIIEpAIBAAKCAQEA${'q'.repeat(40)}${i}`), '-----END RSA PRIVATE KEY-----'];
    const text = ['Error: could not parse config', ...pem, 'DB_PASSWORD=hunter2hunter2', 'error: gateway refused the key'].join('\n');
    const ex = salientExcerpt(text);
    assert.ok(!ex.includes('MIIEpAIBAAKCAQEA'), ex);
    assert.ok(!ex.includes('hunter2'), ex);
    assert.match(ex, /error: gateway refused the key/);
    const tail = tailExcerpt(text, 80);
    assert.ok(!tail.includes('MIIEpAIBAAKCAQEA') && !tail.includes('hunter2'), tail);
  });

  it('the tail of partial output keeps the last lines (where a command stopped), frames dropped', () => {
    const partial = ['applying 0007_refund_paise ... ok', 'applying 0008_refund_index ...', '    at Object.<anonymous> (node:internal/main:1:1)', 'This locks table refunds. Continue? [y/N]'].join('\n');
    const tail = tailExcerpt(partial, 120);
    assert.match(tail, /Continue\? \[y\/N\]$/);
    assert.match(tail, /0008_refund_index/);
    assert.ok(!/node:internal/.test(tail));
    const long = tailExcerpt(`${'x'.repeat(1000)}`, 50);
    assert.equal(long.length, 50);
    assert.ok(long.startsWith('…'));
  });

  it('an empty output gives an empty excerpt', () => {
    assert.equal(salientExcerpt(''), '');
    assert.equal(salientExcerpt('\n\n   \n'), '');
  });
});
