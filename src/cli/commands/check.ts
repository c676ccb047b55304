import type { CheckResult } from '../../core/clean/types';
import { runCleanCheck } from '../../core/workflow/check';
import { createGitClient } from '../../git/gitClient';
import { DIR_FLAGS, JSON_FLAG, optionsOf, printDiagnostics, workspaceDirOf } from '../common';
import { SESSION_FLAGS, sessionForCli } from '../context';
import type { CliIO, CommandSpec } from '../types';
import { EXIT_OK, EXIT_REFUSED, EXIT_USAGE } from '../types';

function printCheck(io: CliIO, c: CheckResult): void {
  io.stdout(`${c.unknown ? '----' : c.passed ? 'PASS' : 'FAIL'}  ${c.title}: ${c.summary}\n`);
  // A passing check can still carry doubtful (warn) findings: they are shown, they do not fail it.
  for (const f of c.passed ? c.findings.filter((x) => x.severity === 'warn') : c.findings) {
    if (f.detail !== c.summary || f.severity === 'warn') io.stdout(`      - ${f.severity === 'warn' ? 'warn: ' : ''}${f.detail}\n`);
    io.stdout(`        fix: ${f.fix}\n`);
    if (f.silence) io.stdout(`        if it is wrong: ${f.silence}\n`);
  }
}

/** `handoff check`: the five clean-state checks; exit 1 when dirty, 2 without git. */
export const checkCommand: CommandSpec = {
  name: 'check',
  summary: 'run the five clean-state checks and write clean_state.json (exit 1 when dirty)',
  usage: 'check [--dir DIR] [--output-dir DIR] [--json] [--claude-config-dir DIR] [--codex-home DIR]',
  flags: [...DIR_FLAGS, JSON_FLAG, ...SESSION_FLAGS],
  async run({ flags, io }) {
    const workspaceDir = await workspaceDirOf(flags, io);
    const session = await sessionForCli(workspaceDir, flags, io.env);
    const result = await runCleanCheck(workspaceDir, optionsOf(flags), createGitClient(workspaceDir), session);
    printDiagnostics(io, result.diagnostics);
    if (!result.ok) {
      io.stderr(`handoff check: ${result.error.message}\n`);
      return EXIT_USAGE;
    }
    const { report } = result;
    if (flags['json']) {
      io.stdout(`${JSON.stringify({ clean: report.clean, file: result.file, checks: report.checks, findings: report.findings }, null, 2)}\n`);
    } else {
      report.checks.forEach((c) => printCheck(io, c));
      const n = report.findings.length;
      io.stdout(report.clean ? `\nclean: wrote ${result.file}\n` : `\ndirty: ${n} finding${n === 1 ? '' : 's'}; wrote ${result.file}\n`);
    }
    return report.clean ? EXIT_OK : EXIT_REFUSED;
  },
};
