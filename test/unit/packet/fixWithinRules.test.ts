import * as assert from 'node:assert/strict';
import type { WorkbenchSnapshot } from '../../../src/core/artifacts/snapshot';
import { fixWithinRules } from '../../../src/core/packet/risks';

/** A snapshot holding only what the rule reads: the human's messages and the reasons given for declined commands. */
function said(humanMessages: { text: string; line: number }[], rejectionReasons: { command: string; reason: string; line: number | null }[] = []): WorkbenchSnapshot {
  return { session: { humanMessages, rejectionReasons } } as unknown as WorkbenchSnapshot;
}

describe('a clean-state fix never contradicts what the user said', () => {
  const STASH = 'Commit them, or `git stash push -m "wip"` to set them aside.';

  it('leaves a fix that puts nothing aside as it is, whatever the user said', () => {
    const fix = 'Commit them, delete them, or add them to .gitignore.';
    assert.equal(fixWithinRules(fix, said([{ text: 'never stash or reset anything', line: 3 }])), fix);
  });

  it('leaves the fix when the user never spoke of the command, or only of a word that merely contains it', () => {
    assert.equal(fixWithinRules(STASH, said([{ text: 'run the tests first', line: 2 }])), STASH);
    assert.equal(fixWithinRules(STASH, said([{ text: 'the restash script is broken', line: 2 }])), STASH);
    assert.equal(fixWithinRules(STASH, said([])), STASH);
    assert.equal(fixWithinRules(STASH, {} as WorkbenchSnapshot), STASH);
  });

  it('names the rule instead, quoting the newest message that speaks of it, in any case and language around it', () => {
    const out = fixWithinRules(STASH, said([
      { text: 'Stash nothing, please', line: 4 },
      { text: 'unrelated', line: 30 },
      { text: '不要 stash 我的改动,\n  直接提交', line: 12 },
    ]));
    assert.equal(out, 'commit the changes or ask the user first — no `git stash`: the user spoke of it (L12): "不要 stash 我的改动, 直接提交".');
  });

  it('takes the reason the user gave when declining a command too, and names every command of the fix it spoke of', () => {
    const fix = 'Run `git checkout -- src/a.ts` or `git reset --hard` to drop them.';
    const out = fixWithinRules(fix, said([{ text: 'hello', line: 1 }], [{ command: 'git reset --hard', reason: 'do not "reset" my work', line: 9 }]));
    assert.equal(out, 'commit the changes or ask the user first — no `git checkout` / `git reset`: the user spoke of it (L9): "do not \'reset\' my work".');
    // A reason with no line reads as line 0.
    assert.match(fixWithinRules(fix, said([], [{ command: 'x', reason: 'no checkout', line: null }])), /\(L0\): "no checkout"/);
  });

  it('quotes at most 200 characters of a long message', () => {
    const long = `please do not stash ${'x'.repeat(300)}`;
    const out = fixWithinRules(STASH, said([{ text: long, line: 5 }]));
    const quote = /"([^"]*)"\.$/.exec(out)?.[1] ?? '';
    assert.equal(quote.length, 200);
    assert.ok(quote.endsWith('…'));
    assert.equal(quote.slice(0, 199), long.slice(0, 199));
    const exact = `stash ${'y'.repeat(194)}`;
    assert.equal(exact.length, 200);
    assert.ok(fixWithinRules(STASH, said([{ text: exact, line: 5 }])).endsWith(`"${exact}".`), 'exactly 200 stays whole');
  });
});
