import * as path from 'node:path';
import { readIfExists } from '../../core/fsx';
import { redact } from '../../core/redact';
import { applyPlans, removeLeftovers, writeRefusal } from '../../core/setup/apply';
import { planClaudeRemove, planClaudeSetup } from '../../core/setup/claude';
import { planCodexFullRemove, planCodexHooksSetup, planCodexSetup } from '../../core/setup/codex';
import type { CodexVersion } from '../../core/setup/codexVersion';
import { codexHasHooks, detectCodexVersion, versionNote } from '../../core/setup/codexVersion';
import { unifiedDiff } from '../../core/setup/diff';
import { claudeSettingsFile, codexConfigFile, findOnPath, NO_NODE_MESSAGE } from '../../core/setup/launcher';
import type { PlanResult } from '../../core/setup/plan';
import { backupFileOf, isNoop, plansOf } from '../../core/setup/plan';
import { shellQuote } from '../../core/setup/shell';
import type { CliIO, CommandSpec, FlagValues } from '../types';
import { EXIT_OK, EXIT_REFUSED, EXIT_USAGE, UsageError } from '../types';

const str = (flags: FlagValues, name: string): string | undefined => (typeof flags[name] === 'string' && flags[name].trim() ? flags[name] : undefined);

/** The launcher the written commands call: `--launcher`, else `handoff` on PATH. */
async function launcherOf(flags: FlagValues, io: CliIO): Promise<string> {
  const given = str(flags, 'launcher');
  if (given) return path.resolve(io.cwd, given);
  if (await findOnPath('handoff', io.env)) return 'handoff';
  throw new UsageError(
    '`handoff` is not on PATH, so the agent could not run it. Install the CLI (npm install -g session-handoff), or connect from VS Code (Session Handoff: Connect Claude Code), which keeps a launcher for the CLI it ships, or pass --launcher PATH',
  );
}

async function plan(agent: string, flags: FlagValues, io: CliIO): Promise<PlanResult> {
  const remove = flags['remove'] === true;
  if (agent === 'claude') {
    const project = flags['project'] === true ? path.resolve(io.cwd, str(flags, 'dir') ?? '.') : undefined;
    const configDir = str(flags, 'claude-config-dir');
    const file = claudeSettingsFile({ project, configDir: configDir && path.resolve(io.cwd, configDir), env: io.env });
    const text = await readIfExists(file);
    const backup = await readIfExists(backupFileOf(file));
    if (remove) return planClaudeRemove({ file, text, backup });
    return planClaudeSetup({ file, text, launcher: shellQuote(await launcherOf(flags, io)), backupExists: backup !== null });
  }
  if (flags['project'] === true) throw new UsageError('--project is for Claude Code only; Codex CLI reads one config.toml');
  const home = str(flags, 'codex-home');
  const file = codexConfigFile({ codexHome: home && path.resolve(io.cwd, home), env: io.env });
  const hooksFile = path.join(path.dirname(file), 'hooks.json');
  const text = await readIfExists(file);
  const backup = await readIfExists(backupFileOf(file));
  const hooksText = await readIfExists(hooksFile);
  const hooksBackup = await readIfExists(backupFileOf(hooksFile));
  if (remove) return planCodexFullRemove({ hooksFile, hooksText, hooksBackup, configFile: file, configText: text, configBackup: backup });
  const given = str(flags, 'codex-version');
  const version: CodexVersion = given ? { version: given, from: 'the --codex-version flag' } : await detectCodexVersion(io.env, path.dirname(file));
  const launcher = await launcherOf(flags, io);
  const result = codexHasHooks(version)
    ? planCodexHooksSetup({ hooksFile, hooksText, hooksBackupExists: hooksBackup !== null, configFile: file, configText: text, configBackup: backup, launcher: shellQuote(launcher) })
    : planCodexSetup({ file, text, argv: [launcher, 'notify'], backupExists: backup !== null });
  if (result.ok) result.plan.notes.unshift(versionNote(version));
  return result;
}

/**
 * `handoff setup claude|codex`: connects the agent (Claude Code: statusLine bridge + SessionStart,
 * UserPromptSubmit, PreCompact and SessionEnd hooks; Codex CLI: SessionStart, UserPromptSubmit,
 * PreCompact and Stop hooks in hooks.json where the installed Codex has them, else the notify program)
 * by merging into its config files. Prints the diff, writes a backup first, then the file; `--remove`
 * takes it out again.
 */
export const setupCommand: CommandSpec = {
  name: 'setup',
  summary: "connect an agent: merge Session Handoff's statusLine and hooks into its settings (Codex: hooks.json, or notify before 0.129; prints the diff; --remove undoes)",
  usage: 'setup claude|codex [--project] [--remove] [--dry-run] [--launcher PATH] [--claude-config-dir DIR] [--codex-home DIR] [--codex-version X.Y.Z] [--dir DIR]',
  positionals: { min: 1, max: 1, names: 'the agent: claude or codex' },
  flags: [
    { name: 'project', type: 'boolean', help: "Claude Code: the project's .claude/settings.json (in --dir) instead of your user settings" },
    { name: 'remove', type: 'boolean', help: 'take Session Handoff out again, restoring the settings as they were' },
    { name: 'dry-run', type: 'boolean', help: 'print the diff only; write nothing' },
    { name: 'launcher', type: 'string', placeholder: 'PATH', help: 'the handoff executable the agent runs (default: handoff on PATH)' },
    { name: 'dir', type: 'string', placeholder: 'DIR', help: 'the project folder for --project (default: the current directory)' },
    { name: 'claude-config-dir', type: 'string', placeholder: 'DIR', help: 'Claude Code config dir (default: $CLAUDE_CONFIG_DIR or ~/.claude)' },
    { name: 'codex-home', type: 'string', placeholder: 'DIR', help: 'Codex home (default: $CODEX_HOME or ~/.codex)' },
    { name: 'codex-version', type: 'string', placeholder: 'X.Y.Z', help: 'Codex: set up for this version (default: codex --version, else the newest rollout)' },
  ],
  async run({ flags, positionals, io }) {
    const agent = positionals[0];
    if (agent !== 'claude' && agent !== 'codex') throw new UsageError(`unknown agent "${agent}": use claude or codex`);
    const result = await plan(agent, flags, io);
    if (!result.ok) {
      io.stderr(`handoff setup: ${redact(result.message)}\n`);
      return result.invalid ? EXIT_USAGE : EXIT_REFUSED;
    }
    const plans = plansOf(result);
    for (const p of plans) {
      const refusal = isNoop(p) ? null : await writeRefusal(p.file);
      if (refusal) {
        io.stderr(`handoff setup: ${redact(refusal)}\n`);
        return EXIT_REFUSED;
      }
    }
    const diffs = plans.map((p) => unifiedDiff(p.file, p.file, p.before, p.after));
    for (const [i, p] of plans.entries()) {
      if (diffs[i]) io.stdout(redact(diffs[i]!));
      for (const note of p.notes) io.stdout(`${note}\n`);
    }
    if (flags['dry-run'] === true) return EXIT_OK;
    await removeLeftovers(plans);
    if (plans.every(isNoop)) return EXIT_OK;
    await applyPlans(plans);
    for (const [i, p] of plans.entries()) {
      if (isNoop(p)) continue;
      if (p.writeBackup !== null) io.stdout(`backup ${p.backupFile}\n`);
      io.stdout(p.after === null ? (p.before === null ? '' : `removed ${p.file} (it did not exist before set-up)\n`) : diffs[i] ? `wrote ${p.file}\n` : '');
      if (p.removeBackup) io.stdout(`restored the settings from before set-up; removed ${p.backupFile}\n`);
    }
    if (flags['remove'] !== true && !(await findOnPath('node', io.env))) io.stderr(`handoff setup: ${NO_NODE_MESSAGE}\n`);
    return EXIT_OK;
  },
};
