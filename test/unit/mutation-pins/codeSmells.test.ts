import * as assert from 'node:assert/strict';
import { classifyDebugLine, compilePatterns, findCommentedOutBlocks, findDebugPrints, isProgramSource } from '../../../src/core/clean/codeSmells';
import type { AddedLine } from '../../../src/core/gitPort';
import { DEFAULT_OPTIONS } from '../../../src/core/options';

const { patterns } = compilePatterns(DEFAULT_OPTIONS.debugPatterns);
const line = (path: string, text: string, n = 1): AddedLine => ({ path, line: n, text });
/** Consecutive added lines of one file, numbered from `from`. */
const lines = (path: string, texts: readonly string[], from = 10): AddedLine[] => texts.map((text, i) => line(path, text, from + i));
const severities = (added: AddedLine[], programFiles?: string[]) => findDebugPrints(added, patterns, programFiles).map((h) => `${h.path}:${h.severity}`);
const blockStarts = (added: AddedLine[], minRun?: number) => findCommentedOutBlocks(added, minRun).map((h) => `${h.path}:${h.line}`);
/** Whether three comment lines in a row, each holding `body`, are taken for commented-out code. */
const readsAsCode = (body: string, marker = '#', path = 'lib/refund.py') => blockStarts(lines(path, [1, 2, 3].map(() => `${marker} ${body}`))).length > 0;

describe('code smells: debug prints', () => {
  describe('which files are code', () => {
    it('prose and data files are skipped, whatever their prints look like', () => {
      const added = [
        line('.github/workflows/ci.yml', '      - run: python -c "print(total)"'),
        line('deploy/values.yaml', '# print(total)'),
        line('docs/index.htm', '<pre>console.log(order)</pre>'),
        line('docs/index.html', '<pre>console.log(order)</pre>'),
        line('README.md', '    print(total)'),
      ];
      assert.deepEqual(severities(added), []);
    });

    it('a code file whose name merely contains a data extension is still code', () => {
      assert.deepEqual(severities([line('src/audit.logger.ts', 'console.log(event);'), line('lib/csvtools.py', 'print(rows)')]), ['src/audit.logger.ts:block', 'lib/csvtools.py:block']);
    });

    it('console.log with a message blocks in every JavaScript and TypeScript flavour, not in a snapshot of one', () => {
      const text = "console.log('refund computed', amount);";
      for (const file of ['lib/a.js', 'lib/a.cjs', 'lib/a.mjs', 'src/a.ts', 'src/a.mts', 'src/a.cts', 'src/a.jsx', 'src/a.tsx']) {
        assert.equal(classifyDebugLine(text, file, false), 'block', file);
      }
      assert.equal(classifyDebugLine(text, 'src/__snapshots__/refund.test.js.snap', false), 'warn');
    });

    it('in JavaScript only console.log (and console.debug) is sure; another print there is doubtful', () => {
      assert.equal(classifyDebugLine('print("Receipt for", orderId);', 'lib/receipt.js', false), 'warn');
      assert.equal(classifyDebugLine("console.log ('refund computed', amount)", 'lib/refund.js', false), 'block');
    });
  });

  describe('which files are command-line programs', () => {
    it('script/ (singular, as Rails has it) and a top-level __main__.py are programs; a leftover __main__.py.orig is not', () => {
      const added = [line('script/deploy.rb', 'pp result'), line('__main__.py', 'print(rows)'), line('pkg/__main__.py', 'print(rows)'), line('pkg/__main__.py.orig', 'print(rows)')];
      assert.deepEqual(severities(added), ['pkg/__main__.py.orig:block']);
    });

    it('a Python __main__ guard makes a program however it is spaced; a mention of it in a comment does not', () => {
      for (const guard of [
        "if __name__ == '__main__':",
        'if __name__=="__main__":',
        'if  __name__ == "__main__" :',
        '    if __name__ == "__main__":',
        'if\t__name__ ==\t"__main__":',
      ]) {
        assert.equal(isProgramSource(`import sys\n\ndef main():\n    pass\n\n${guard}\n    main()\n`), true, guard);
      }
      assert.equal(isProgramSource('def refund(order):\n    """Library code: do not add an if __name__ == "__main__": block here."""\n'), false);
      assert.equal(isProgramSource('def refund(order):\n    return order.total\n'), false);
    });
  });

  describe('debugger statements block anywhere, even in a program', () => {
    it('however they are spaced or indented', () => {
      for (const [text, file] of [
        ['debugger', 'src/refund.ts'],
        ['debugger;', 'src/refund.ts'],
        ['    debugger;', 'src/refund.ts'],
        ['debugger ;', 'src/refund.ts'],
        ['debugger;   ', 'src/refund.ts'],
        ['binding.pry', 'app/models/refund.rb'],
        ['    binding.pry', 'app/models/refund.rb'],
        ['  byebug', 'app/models/refund.rb'],
        ['console.trace("refund path")', 'src/refund.ts'],
        ['console.trace ("refund path")', 'src/refund.ts'],
      ]) {
        assert.equal(classifyDebugLine(text!, file!, true), 'block', text);
      }
    });

    it('a line that only names the debugger is not a debugger statement', () => {
      assert.equal(classifyDebugLine('print("waiting for a client on", port)  # attach the debugger', 'dev/serve.py', false), 'warn');
      assert.equal(classifyDebugLine('debugger_port = 5678; print("listening on", debugger_port)', 'dev/serve.py', false), 'warn');
      assert.equal(classifyDebugLine("gem 'byebug', group: :development", 'Gemfile', false), 'warn');
    });
  });

  describe('a print of bare names is a variable dump', () => {
    it('in every language, however it is spaced', () => {
      for (const [text, file] of [
        ['fmt.Print(total)', 'refund.go'],
        ['fmt.Printf(total)', 'refund.go'],
        ['System.out.println(total);', 'Refund.java'],
        ['System.err.println(total);  ', 'Refund.java'],
        ['pp order', 'app/models/refund.rb'],
        ['print (total)', 'lib/refund.py'],
        ['print( total )', 'lib/refund.py'],
        ['print(total , fee)', 'lib/refund.py'],
        ['print(total,fee)', 'lib/refund.py'],
        ['print(total) ;', 'lib/refund.py'],
        ['print(f"{order.amount_due=}")', 'lib/refund.py'],
      ]) {
        assert.equal(classifyDebugLine(text!, file!, false), 'block', text);
      }
    });

    it('a name printed with a message is doubtful', () => {
      assert.equal(classifyDebugLine('print(count, "orders refunded")', 'lib/refund.py', false), 'warn');
      assert.equal(classifyDebugLine('print(total, 100)', 'lib/refund.py', false), 'warn');
    });
  });
});

describe('code smells: commented-out code', () => {
  it('code that is not commented out is not commented-out code', () => {
    assert.deepEqual(blockStarts(lines('lib/refund.py', ['total = sum(items)', 'fee = total * rate', 'return total - fee'])), []);
    assert.deepEqual(blockStarts(lines('src/refund.ts', ['const total = sum(items);', 'const fee = total * rate;', 'return total - fee;'])), []);
  });

  it('code lines keeping the old code in a trailing comment are not commented-out code', () => {
    assert.deepEqual(blockStarts(lines('lib/refund.py', ['fee = 0  # fee = compute_fee(order)', 'tax = 0  # tax = compute_tax(order)', 'total = price  # total = price + fee + tax'])), []);
  });

  it('finds blocks however they are indented and however many markers they use', () => {
    assert.deepEqual(blockStarts(lines('src/refund.ts', ['    // const total = sum(items)', '    // let fee = total * rate', '    // return total - fee'])), ['src/refund.ts:10']);
    assert.deepEqual(blockStarts(lines('lib/refund.py', ['    # total = sum(items)', '    # fee = total * rate', '    # return total - fee'])), ['lib/refund.py:10']);
    assert.deepEqual(blockStarts(lines('lib/refund.py', ['## total = sum(items)', '## fee = total * rate', '## return total - fee'])), ['lib/refund.py:10']);
    assert.deepEqual(blockStarts(lines('lib/refund.coffee', ['# total = sum items', '# fee = total * rate', '# return total - fee'])), ['lib/refund.coffee:10']);
  });

  it('doc comments, preprocessor lines and data files are not commented-out code', () => {
    assert.deepEqual(blockStarts(lines('src/lib.rs', ['/// let total = refund(&order);', '/// assert_eq!(total, 100);', '/// println!("{total}");'])), []);
    assert.deepEqual(blockStarts(lines('Sources/Refund.m', ['#import <Foundation/Foundation.h>', '#import "Refund.h"', '#import "Order.h"'])), []);
    assert.deepEqual(blockStarts(lines('include/refund.h', ['#if defined(__linux__)', '#elif defined(_WIN32)', '#else'])), []);
    assert.deepEqual(blockStarts(lines('deploy/values.yaml', ['# replicas = 3', '# image = refund', '# port = 8080'])), []);
  });

  it('a shebang does not start a block', () => {
    assert.deepEqual(blockStarts(lines('tools/seed', ['#!/usr/bin/env python3', '# rows = load(path)', '# seed(rows)'], 1)), []);
  });

  it('an empty comment line or a prose line breaks a run', () => {
    assert.deepEqual(blockStarts(lines('lib/refund.py', ['# total = sum(items)', '#', '# fee = total * rate', '# return total - fee'])), []);
    assert.deepEqual(blockStarts(lines('lib/refund.py', ['# total = sum(items)', '# then the fee', '# fee = total * rate', '# return total - fee'])), []);
  });

  it('a run is consecutive lines of one file: adjacent numbers in another file do not continue it', () => {
    assert.deepEqual(blockStarts([...lines('lib/a.py', ['# total = sum(items)', '# fee = total * rate'], 1), line('lib/b.py', '# return total - fee', 3)]), []);
    assert.deepEqual(blockStarts([...lines('lib/a.py', ['# total = sum(items)', '# fee = total * rate'], 1), line('lib/a.py', '# return total - fee', 4)]), []);
  });

  it('reports each block at its first line, saying how long it is; minRun sets the shortest block', () => {
    const added = [
      ...lines('lib/a.py', ['# total = sum(items)', '# fee = total * rate', '# return total - fee', '# log(total)'], 5),
      ...lines('lib/a.py', ['# x = 1', '# y = 2'], 20),
    ];
    const hits = findCommentedOutBlocks(added);
    assert.deepEqual(hits.map((h) => `${h.path}:${h.line}`), ['lib/a.py:5']);
    assert.match(hits[0]!.text, /^4 commented-out lines$/);
    assert.deepEqual(blockStarts(added, 2), ['lib/a.py:5', 'lib/a.py:20']);
  });

  describe('what reads as code', () => {
    it('statements, calls and block edges', () => {
      for (const body of [
        'from payments import refund',
        'with open(path) as f:',
        'total = base + fee',
        'total=base+fee',
        'total += fee',
        'self.store = Redis if cached else Memory',
        'compute(total),',
        'save(order)',
        '}, 500)',
        'setTimeout(() => {',
      ]) {
        assert.equal(readsAsCode(body), true, body);
      }
    });

    it('prose does not, even with code words or punctuation in it', () => {
      for (const body of [
        'Refunds return the fee to the buyer',
        'Refunds are idempotent; retries are safe',
        'Refunds (partial or full) are allowed',
        'Keeps the invariant total = fee + net',
        'Safe to call twice, like close()',
        'refund() is idempotent, so retries are safe',
        'Refund steps:',
        'Run these steps for each refund:',
        'with a lock held: only one refund runs',
        'fee = Platform commission on the order',
        'fee=Platform commission on the order',
        'fee   = Platform commission on the order',
        'fee =  Platform commission on the order',
      ]) {
        assert.equal(readsAsCode(body), false, body);
      }
    });
  });
});
