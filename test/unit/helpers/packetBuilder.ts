import type { Packet } from '../../../src/core/packet/schema';

/**
 * A valid packet with small, recognisable values; override any field. For UI tests that need a
 * packet without running the generator (the generator has its own tests on the real fixture).
 */
export function buildTestPacket(overrides: Partial<Packet> = {}): Packet {
  return {
    schema_version: 1,
    packet_id: 'sess-1',
    session_id: 'sess-1',
    topic: 'T-1',
    repo: 'demo',
    branch: 'main',
    head_commit: '0123456789abcdef0123456789abcdef01234567',
    last_known_good_commit: null,
    status: 'active',
    superseded_by: null,
    generated_at: '2026-01-01T00:00:00.000Z',
    summary: 'Refund flow half done.',
    changed_files: [{ path: 'src/a.ts', kind: 'modified' }],
    commands_run: [
      { index: 0, command: 'npm test', exit_code: 1, outcome: 'failed', started_at: null, duration_ms: null, note: 'red' },
    ],
    commands_omitted: 0,
    failed_attempts: [
      { index: 0, command: 'npm test', outcome: 'failed', exit_code: 1, note: 'red', excerpt: 'expected 1', uncertain: false },
    ],
    open_risks: [{ id: 'verify:X1', severity: 'block', detail: 'Tests fail', source: 'verification_report.json' }],
    next_action: 'Fix the failing refund test',
    next_action_source: 'agent_state',
    sources: {},
    next_goal: null,
    verdict_pointer: { verification: null, review: null },
    decisions: [],
    assumptions_to_validate: [],
    questions_for_human: [],
    next_session_prereqs: [],
    clean_state: null,
    context: null,
    inputs: [],
    ...overrides,
  };
}
