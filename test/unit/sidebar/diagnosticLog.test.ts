import assert from 'node:assert/strict';
import { diagnosticsToLog } from '../../../src/ui/state/diagnosticLog';

const partial = { file: 'feedback_record.jsonl', line: 13, message: 'partial last line (no newline, not valid JSON) skipped' };
const badJson = { file: 'review_report.json', message: 'not valid JSON' };

describe('input problems in the log', () => {
  it('logs a partial last line once while it stays, even when other problems come and go', () => {
    let logged = new Set<string>();
    const seen: string[] = [];
    const refresh = (...d: (typeof partial | typeof badJson)[]) => {
      const r = diagnosticsToLog(logged, d);
      seen.push(...r.lines);
      logged = r.now;
    };
    refresh(partial);
    refresh(partial);
    refresh(partial, badJson);
    refresh(partial);
    refresh(partial);
    assert.deepEqual(seen, ['feedback_record.jsonl:13: partial last line (no newline, not valid JSON) skipped', 'review_report.json: not valid JSON']);
  });

  it('logs it again once it went away and came back (a new file state)', () => {
    let r = diagnosticsToLog(new Set(), [partial]);
    r = diagnosticsToLog(r.now, []);
    r = diagnosticsToLog(r.now, [partial]);
    assert.equal(r.lines.length, 1);
    assert.equal(diagnosticsToLog(r.now, [{ ...partial, line: 14 }]).lines.length, 1, 'the next partial line is another state');
  });
});
