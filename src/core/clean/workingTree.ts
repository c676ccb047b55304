import type { CheckResult, CleanFinding } from './types';
import { findingPaths, isOwnPath, listPaths, type CleanInputs } from './inputs';

const OPERATION_FIX: Record<string, { fix: string; commands: string[] }> = {
  merge: { fix: 'Finish the merge (`git commit`) or abort it (`git merge --abort`).', commands: ['git commit', 'git merge --abort'] },
  rebase: { fix: 'Finish the rebase (`git rebase --continue`) or abort it (`git rebase --abort`).', commands: ['git rebase --continue', 'git rebase --abort'] },
  'cherry-pick': {
    fix: 'Finish the cherry-pick (`git cherry-pick --continue`) or abort it (`git cherry-pick --abort`).',
    commands: ['git cherry-pick --continue', 'git cherry-pick --abort'],
  },
  revert: { fix: 'Finish the revert (`git revert --continue`) or abort it (`git revert --abort`).', commands: ['git revert --continue', 'git revert --abort'] },
  bisect: { fix: 'End the bisect with `git bisect reset`.', commands: ['git bisect reset'] },
};

/**
 * Working tree: every change committed or stashed with a message, and no merge, rebase,
 * cherry-pick, revert or bisect half done. The tool's own outputs do not count.
 */
export function checkWorkingTree(input: Pick<CleanInputs, 'facts' | 'ownPaths'>): CheckResult {
  const { facts } = input;
  const findings: CleanFinding[] = [];
  if (facts.operation) {
    const op = OPERATION_FIX[facts.operation];
    findings.push({
      check: 'working-tree',
      kind: 'operation-in-progress',
      detail: `A ${facts.operation} is in progress.`,
      fix: op?.fix ?? 'Finish or abort the operation in progress.',
      ...(op ? { commands: [...op.commands] } : {}),
    });
  }
  const changed = facts.status.filter((e) => !isOwnPath(e.path, input.ownPaths));
  const untracked = changed.filter((e) => e.kind === 'untracked').map((e) => e.path);
  const uncommitted = changed.filter((e) => e.kind !== 'untracked').map((e) => e.path);
  if (uncommitted.length) {
    findings.push({
      check: 'working-tree',
      kind: 'uncommitted-changes',
      detail: `${uncommitted.length} uncommitted change${uncommitted.length === 1 ? '' : 's'}: ${listPaths(uncommitted)}.`,
      paths: findingPaths(uncommitted),
      fix: 'Commit the changes, or stash them with a message: `git stash push -m "<why>"`.',
      commands: ['git stash push -m "<why>"'],
    });
  }
  if (untracked.length) {
    findings.push({
      check: 'working-tree',
      kind: 'untracked-files',
      detail: `${untracked.length} untracked file${untracked.length === 1 ? '' : 's'}: ${listPaths(untracked)}.`,
      paths: findingPaths(untracked),
      fix: 'Commit them, delete them, or add them to .gitignore.',
    });
  }
  // A stash without a message ("WIP on <branch>: …") is work nobody will know to come back for.
  const anonymous = facts.stashes.filter((s) => facts.branch !== null && s.message.startsWith(`WIP on ${facts.branch}:`));
  if (anonymous.length) {
    findings.push({
      check: 'working-tree',
      kind: 'stash-without-message',
      detail: `${anonymous.length} stash${anonymous.length === 1 ? '' : 'es'} on ${facts.branch} without a message (${anonymous.map((s) => s.ref).join(', ')}).`,
      fix: 'Pop it and stash again with a message: `git stash pop && git stash push -m "<why>"`.',
      commands: ['git stash pop && git stash push -m "<why>"'],
    });
  }
  const stashNote = facts.stashes.length ? ` (${facts.stashes.length} stashed)` : '';
  return {
    check: 'working-tree',
    title: 'Working tree',
    passed: findings.length === 0,
    summary: findings.length === 0 ? `Everything is committed${stashNote}.` : (findings[0] as CleanFinding).detail,
    findings,
  };
}
