import type { CheckResult, CleanFinding } from './types';
import type { CleanInputs } from './inputs';
import { shellQuote } from '../setup/shell';
import { branchNameProblem } from './branchName';

/**
 * Branch: HEAD attached, and on the branch the session says it works on (agent_state.json
 * `branch`), or else the branch of the active packet.
 */
export function checkBranch(input: Pick<CleanInputs, 'facts' | 'snapshot' | 'activePacketBranch'>): CheckResult {
  const base = { check: 'branch' as const, title: 'Branch' };
  const { facts } = input;
  const findings: CleanFinding[] = [];
  if (facts.detached) {
    findings.push({
      check: 'branch',
      kind: 'detached-head',
      detail: `HEAD is detached at ${facts.head?.slice(0, 7) ?? 'an unknown commit'}.`,
      fix: 'Check out a branch (`git switch <branch>`, or `git switch -c <new-branch>` to keep these commits).',
      commands: ['git switch <branch>', 'git switch -c <new-branch>'],
    });
  }
  const fromState = input.snapshot.agentState?.branch;
  const expected = fromState || input.activePacketBranch || null;
  // A branch that did not come from agent_state.json came from the agent session (the merge).
  const session = input.snapshot.session;
  const fromSession = fromState && session && input.snapshot.origins?.['branch'] === session.label;
  const source = fromSession ? `the ${session.displayName}` : fromState ? 'agent_state.json' : 'the active handoff packet';
  // The expected branch comes from agent-written text: a command is offered only for a plain branch name.
  const problem = expected ? branchNameProblem(expected) : null;
  // A refused name is shown quoted, every character outside printable ASCII as a \u escape.
  const shown = expected && problem ? JSON.stringify(expected).replace(/[^\x20-\x7e]/g, (c) => `\\u${c.charCodeAt(0).toString(16).padStart(4, '0')}`) : expected;
  const switchTo = expected && !problem ? `git switch ${shellQuote(expected)}` : null;
  const refused = `${source} names ${shown} as the branch, which is not a valid branch name (${problem}): no command is offered; switch to the right branch yourself.`;
  if (expected && facts.branch && facts.branch !== expected) {
    findings.push({
      check: 'branch',
      kind: 'wrong-branch',
      detail: `On branch ${facts.branch}, but ${source} expects ${shown}.`,
      fix: !switchTo
        ? refused
        : fromSession
          ? `Switch to ${expected} (\`${switchTo}\`), the branch the agent worked on.`
          : `Switch to ${expected} (\`${switchTo}\`), or update ${source === 'agent_state.json' ? 'agent_state.json `branch`' : 'the packet by generating a new one'}.`,
      commands: switchTo ? [switchTo] : [],
    });
  } else if (expected && facts.detached) {
    Object.assign(findings[0] as CleanFinding, switchTo ? { fix: `Switch back to ${expected} (\`${switchTo}\`).`, commands: [switchTo] } : { fix: refused, commands: [] });
  }
  const summary =
    findings.length > 0
      ? (findings[0] as CleanFinding).detail
      : `On ${facts.branch ?? 'the initial branch'}${expected ? `, as ${source} expects` : ''}.`;
  return { ...base, passed: findings.length === 0, summary, findings };
}
