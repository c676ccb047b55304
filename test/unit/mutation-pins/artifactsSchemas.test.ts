import * as assert from 'node:assert/strict';
import { AgentStateSchema, VerificationReportSchema } from '../../../src/core/artifacts/schemas';

describe('the workbench artifact schemas', () => {
  it('gives an agent state without lists empty lists', () => {
    const s = AgentStateSchema.parse({ summary: 'started' });
    assert.deepEqual(
      [s.touched_files, s.assumptions, s.blockers, s.decisions, s.open_risks, s.questions_for_human],
      [[], [], [], [], [], []],
    );
  });

  it('takes notes as text or as an object whose common text fields are strings', () => {
    const ok = AgentStateSchema.parse({ assumptions: ['plain', { text: 'a', by: 'agent' }], blockers: [{ detail: 'b' }], questions_for_human: [{ description: 'c' }] });
    assert.deepEqual(ok.assumptions, ['plain', { text: 'a', by: 'agent' }]);
    for (const field of ['text', 'detail', 'description']) {
      const r = AgentStateSchema.safeParse({ assumptions: [{ [field]: 5 }] });
      assert.equal(r.success, false, `${field}: 5 was accepted`);
    }
  });

  it('fills a verification finding without severity as a warning with empty text', () => {
    const v = VerificationReportSchema.parse({ passed: false, findings: [{ code: 'lint' }, { severity: 'error' }] });
    assert.deepEqual(v.findings, [
      { code: 'lint', severity: 'warn', detail: '' },
      { code: '', severity: 'error', detail: '' },
    ]);
  });
});
