import * as os from 'node:os';
import * as path from 'node:path';
import { readIfExists } from '../../core/fsx';
import { redact } from '../../core/redact';
import { applyPlans, removeLeftovers, writeRefusal } from '../../core/setup/apply';
import { CLAUDE_HOOK_EVENTS, planClaudeRemove, planClaudeSetup } from '../../core/setup/claude';
import { codexHookEvents, planCodexFullRemove, planCodexHooksSetup, planCodexSetup } from '../../core/setup/codex';
import { codexHookTrust, codexTrustReport } from '../../core/setup/codexTrust';
import { ourEvents } from '../../core/setup/hookEntries';
import { parseTomlFile } from '../../core/setup/toml';
import type { CodexVersion } from '../../core/setup/codexVersion';
import { codexHasHooks, codexHasSessionEnd, detectCodexVersion, versionNote } from '../../core/setup/codexVersion';
import { unifiedDiff } from '../../core/setup/diff';
import { claudeSettingsFile, codexConfigFile, findOnPath, NO_NODE_MESSAGE } from '../../core/setup/launcher';
import { MCP_SERVER_NAME, planClaudeMcpRemove, planClaudeMcpSetup, planCodexMcpRemove, planCodexMcpSetup } from '../../core/setup/mcp';
import { OPENCODE_INSTRUCTIONS_NAME, opencodeConfigFile, planOpencodeRemove, planOpencodeSetup } from '../../core/setup/opencode';
import type { PlanResult } from '../../core/setup/plan';
import type { SettingsAgent } from '../../core/setup/terminalAgents';
import { copilotInstructionsFileOf, copilotInstructionsPlan, copilotInstructionsRemoval, hasCopilotInstructions } from '../../core/setup/copilotInstructions';
import { copilotMcpFileOf, isOurCopilotEntry, planCopilotRemove, planCopilotSetup, planSettingsAgentRemove, planSettingsAgentSetup, settingsAgentReport, settingsFileOf } from '../../core/setup/terminalAgents';
import { backupFileOf, isNoop, isObject, parseObjectFile, plansOf } from '../../core/setup/plan';
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

/**
 * OpenCode: `mcp.handoff` and our instruction file in `instructions`, in the user's `opencode.json`
 * (`$XDG_CONFIG_HOME/opencode/`, else `~/.config/opencode/`) or the project's with `--project`.
 */
async function opencodePlan(flags: FlagValues, io: CliIO): Promise<PlanResult> {
  const project = flags['project'] === true ? path.resolve(io.cwd, str(flags, 'dir') ?? '.') : undefined;
  const file = opencodeConfigFile({ ...(project ? { project } : {}), env: io.env, home: io.env['HOME'] || os.homedir() });
  const instructionsFile = path.join(path.dirname(file), OPENCODE_INSTRUCTIONS_NAME);
  const instructionsRef = project ? OPENCODE_INSTRUCTIONS_NAME : instructionsFile;
  const [text, backup, instructionsText] = await Promise.all([readIfExists(file), readIfExists(backupFileOf(file)), readIfExists(instructionsFile)]);
  if (flags['remove'] === true) return planOpencodeRemove({ file, text, backup, instructionsFile, instructionsText, instructionsRef });
  // Only opencode.json is edited: a JSONC config beside a missing one is the user's to change.
  const jsonc = file.replace(/\.json$/, '.jsonc');
  if (text === null && (await readIfExists(jsonc)) !== null) return { ok: false, message: `OpenCode's configuration is ${jsonc}, which set-up does not edit (comments); add the entries by hand, as docs/connect.md shows` };
  return planOpencodeSetup({ file, text, backupExists: backup !== null, launcher: await launcherOf(flags, io), instructionsFile, instructionsText, instructionsRef });
}

/** The agents set-up connects. */
/** `--check` for Copilot CLI: whether our MCP server and the instruction to use it are there. Reads only. */
async function copilotCheck(io: CliIO): Promise<{ ok: boolean; any: boolean }> {
  const home = io.env['HOME'] || os.homedir();
  const file = copilotMcpFileOf({ env: io.env, home });
  const instructions = copilotInstructionsFileOf({ env: io.env, home });
  const parsed = parseObjectFile(file, (await readIfExists(file)) ?? '');
  if (!parsed.ok) throw new UsageError(parsed.message.replace(/; nothing was written$/, ''));
  const servers = parsed.value['mcpServers'];
  const mcp = isObject(servers) && isOurCopilotEntry(servers[MCP_SERVER_NAME]);
  const told = hasCopilotInstructions(await readIfExists(instructions));
  io.stdout(redact(`Copilot CLI:\n  MCP server "${MCP_SERVER_NAME}" in ${file}: ${mcp ? 'present' : 'absent'}\n  instructions in ${instructions}: ${told ? 'present' : 'absent'}\n  sessionStart hook: none (Copilot CLI does not process its output)\n`));
  return { ok: mcp && told, any: mcp || told };
}

const AGENTS = ['claude', 'codex', 'opencode', 'gemini', 'qwen', 'copilot'] as const;
type Agent = (typeof AGENTS)[number];
const isSettingsAgent = (agent: string): agent is SettingsAgent => agent === 'gemini' || agent === 'qwen';
/** Agents whose one file holds the MCP server too: no MCP step of its own. */
const MCP_IN_PLAN = new Set<Agent>(['opencode', 'gemini', 'qwen', 'copilot']);

/** Gemini CLI / Qwen Code: hooks and the MCP server in the user's settings.json, or the project's with `--project`. */
async function settingsAgentPlan(agent: SettingsAgent, flags: FlagValues, io: CliIO): Promise<PlanResult> {
  const project = flags['project'] === true ? path.resolve(io.cwd, str(flags, 'dir') ?? '.') : undefined;
  const file = settingsFileOf(agent, { ...(project ? { project } : {}), env: io.env, home: io.env['HOME'] || os.homedir() });
  const [text, backup] = await Promise.all([readIfExists(file), readIfExists(backupFileOf(file))]);
  if (flags['remove'] === true) return planSettingsAgentRemove({ agent, file, text, backup });
  const launcher = await launcherOf(flags, io);
  return planSettingsAgentSetup({ agent, file, text, hookLauncher: shellQuote(launcher), mcpLauncher: flags['without-mcp'] === true ? null : launcher, backupExists: backup !== null });
}

/**
 * GitHub Copilot CLI: the MCP server in `$COPILOT_HOME/mcp-config.json` (no hooks: see terminalAgents.ts)
 * and, while that server is ours, the instruction to ask it for the handoff in `copilot-instructions.md`.
 */
async function copilotPlan(flags: FlagValues, io: CliIO): Promise<PlanResult> {
  if (flags['project'] === true) throw new UsageError('--project is not for Copilot CLI: set-up writes its user MCP configuration');
  if (flags['without-mcp'] === true) throw new UsageError('Copilot CLI gets only the MCP server from set-up: --without-mcp would leave nothing to do');
  const file = copilotMcpFileOf({ env: io.env, home: io.env['HOME'] || os.homedir() });
  const instructions = copilotInstructionsFileOf({ env: io.env, home: io.env['HOME'] || os.homedir() });
  const [text, backup, instructionsText, instructionsBackup] = await Promise.all([file, backupFileOf(file), instructions, backupFileOf(instructions)].map((f) => readIfExists(f)));
  if (flags['remove'] === true) {
    const removed = planCopilotRemove({ file, text: text ?? null, backup: backup ?? null });
    return removed.ok ? { ...removed, more: [...(removed.more ?? []), copilotInstructionsRemoval(instructions, instructionsText ?? null, instructionsBackup ?? null)] } : removed;
  }
  const result = planCopilotSetup({ file, text: text ?? null, launcher: await launcherOf(flags, io), backupExists: (backup ?? null) !== null });
  if (!result.ok) return result;
  // A "handoff" server of the user's own stays: then no instruction names ours.
  const after = parseObjectFile(file, result.plan.after ?? '');
  const servers = after.ok ? after.value['mcpServers'] : undefined;
  if (!isObject(servers) || !isOurCopilotEntry(servers[MCP_SERVER_NAME])) return result;
  return { ...result, more: [...(result.more ?? []), copilotInstructionsPlan(instructions, instructionsText ?? null, (instructionsBackup ?? null) !== null)] };
}

async function plan(agent: string, flags: FlagValues, io: CliIO): Promise<PlanResult> {
  const remove = flags['remove'] === true;
  if (agent === 'opencode') return opencodePlan(flags, io);
  if (isSettingsAgent(agent)) return settingsAgentPlan(agent, flags, io);
  if (agent === 'copilot') return copilotPlan(flags, io);
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
    ? planCodexHooksSetup({ hooksFile, hooksText, hooksBackupExists: hooksBackup !== null, configFile: file, configText: text, configBackup: backup, launcher: shellQuote(launcher), sessionEnd: codexHasSessionEnd(version) })
    : planCodexSetup({ file, text, argv: [launcher, 'notify'], backupExists: backup !== null });
  if (result.ok) result.plan.notes.unshift(versionNote(version));
  return result;
}

/**
 * `--check`: whether each hook set-up writes is there, and for Codex whether Codex trusts it as it is now
 * (Codex runs a hook only while `[hooks.state]` in config.toml holds its current hash). Reads only.
 * `ok`: every hook present (and trusted); `any`: at least one of ours is there.
 */
async function check(agent: 'claude' | 'codex' | SettingsAgent, flags: FlagValues, io: CliIO): Promise<{ ok: boolean; any: boolean }> {
  const lines: string[] = [];
  let ok = true;
  let any = false;
  if (isSettingsAgent(agent)) {
    const project = flags['project'] === true ? path.resolve(io.cwd, str(flags, 'dir') ?? '.') : undefined;
    const file = settingsFileOf(agent, { ...(project ? { project } : {}), env: io.env, home: io.env['HOME'] || os.homedir() });
    const parsed = parseObjectFile(file, (await readIfExists(file)) ?? '');
    if (!parsed.ok) throw new UsageError(parsed.message.replace(/; nothing was written$/, ''));
    const report = settingsAgentReport(agent, file, parsed.value);
    lines.push(...report.lines);
    ok = report.ok;
    any = report.any;
  } else if (agent === 'claude') {
    const project = flags['project'] === true ? path.resolve(io.cwd, str(flags, 'dir') ?? '.') : undefined;
    const configDir = str(flags, 'claude-config-dir');
    const file = claudeSettingsFile({ project, configDir: configDir && path.resolve(io.cwd, configDir), env: io.env });
    const parsed = parseObjectFile(file, (await readIfExists(file)) ?? '');
    if (!parsed.ok) throw new UsageError(parsed.message.replace(/; nothing was written$/, ''));
    const present = ourEvents(parsed.value['hooks']);
    any = present.length > 0;
    lines.push(`Claude Code hooks in ${file}:`);
    for (const { event } of CLAUDE_HOOK_EVENTS) {
      ok &&= present.includes(event);
      lines.push(`  ${event}: ${present.includes(event) ? 'present (Claude Code runs it)' : 'absent'}`);
    }
  } else {
    const home = str(flags, 'codex-home');
    const configFile = codexConfigFile({ codexHome: home && path.resolve(io.cwd, home), env: io.env });
    const hooksFile = path.join(path.dirname(configFile), 'hooks.json');
    const config = parseTomlFile(configFile, await readIfExists(configFile));
    if (!config.ok) throw new UsageError(config.message.replace(/; nothing was written$/, ''));
    const hooks = parseObjectFile(hooksFile, (await readIfExists(hooksFile)) ?? '');
    if (!hooks.ok) throw new UsageError(hooks.message.replace(/; nothing was written$/, ''));
    const statuses = codexHookTrust(hooksFile, hooks.value, config.value);
    any = statuses.length > 0;
    const events = [...new Set([...codexHookEvents(statuses.some((s) => s.event === 'SessionEnd')).map((s) => s.event), ...statuses.map((s) => s.event)])];
    lines.push(`Codex hooks in ${hooksFile} (trust recorded in ${configFile}):`);
    lines.push(...codexTrustReport(statuses, events).map((l) => `  ${l}`));
    ok = events.every((e) => statuses.some((s) => s.event === e)) && statuses.every((s) => s.trust === 'trusted');
    const features = config.value['features'];
    if (isObject(features) && (features['hooks'] === false || features['codex_hooks'] === false)) {
      ok = false;
      lines.push(`  [features] turns hooks off in ${configFile}: none of them runs.`);
    }
  }
  io.stdout(redact(`${lines.join('\n')}\n`));
  return { ok, any };
}

/**
 * The MCP server's entry in the agent's MCP configuration: Claude Code's `~/.claude.json` (its
 * user-scope MCP servers; in `$CLAUDE_CONFIG_DIR` when that is set) or, with `--project`, the
 * project's `.mcp.json`; Codex's `[mcp_servers.handoff]` in config.toml.
 */
async function mcpPlan(agent: string, flags: FlagValues, io: CliIO): Promise<PlanResult> {
  const remove = flags['remove'] === true;
  let file: string;
  if (agent === 'claude') {
    const configDir = str(flags, 'claude-config-dir') ?? io.env['CLAUDE_CONFIG_DIR'];
    file = flags['project'] === true
      ? path.join(path.resolve(io.cwd, str(flags, 'dir') ?? '.'), '.mcp.json')
      : configDir ? path.join(path.resolve(io.cwd, configDir), '.claude.json') : path.join(io.env['HOME'] || os.homedir(), '.claude.json');
  } else {
    const home = str(flags, 'codex-home');
    file = codexConfigFile({ codexHome: home && path.resolve(io.cwd, home), env: io.env });
  }
  const text = await readIfExists(file);
  const backup = await readIfExists(backupFileOf(file));
  if (remove) return agent === 'claude' ? planClaudeMcpRemove({ file, text, backup }) : planCodexMcpRemove({ file, text, backup });
  const launcher = await launcherOf(flags, io);
  return agent === 'claude' ? planClaudeMcpSetup({ file, text, launcher, backupExists: backup !== null }) : planCodexMcpSetup({ file, text, launcher, backupExists: backup !== null });
}

/** Shows a step's diff and notes, then carries it out (not with --dry-run); an exit code when it stops. */
async function carryOut(result: PlanResult, flags: FlagValues, io: CliIO): Promise<number | null> {
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
  if (flags['dry-run'] === true) return null;
  // A temp file a killed earlier run left beside a file set-up writes goes, even when nothing changes.
  await removeLeftovers(plans);
  if (plans.every(isNoop)) return null;
  await applyPlans(plans);
  for (const [i, p] of plans.entries()) {
    if (isNoop(p)) continue;
    if (p.writeBackup !== null) io.stdout(`backup ${p.backupFile}\n`);
    io.stdout(p.after === null ? (p.before === null ? '' : `removed ${p.file} (it did not exist before set-up)\n`) : diffs[i] ? `wrote ${p.file}\n` : '');
    if (p.removeBackup) io.stdout(`restored the settings from before set-up; removed ${p.backupFile}\n`);
  }
  return null;
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
  summary: "connect an agent: merge Session Handoff's statusLine and hooks into its settings (Codex: hooks.json, or notify before 0.129) and its MCP server into the agent's MCP configuration (OpenCode: the MCP server and an instruction file in opencode.json; Gemini CLI, Qwen Code: hooks and the MCP server in settings.json; Copilot CLI: the MCP server and an instruction to use it) (prints the diff; --remove undoes)",
  usage: 'setup [claude|codex|opencode|gemini|qwen|copilot] [--project] [--remove] [--dry-run] [--check] [--without-mcp] [--launcher PATH] [--claude-config-dir DIR] [--codex-home DIR] [--codex-version X.Y.Z] [--dir DIR]',
  positionals: { min: 0, max: 1, names: 'the agent: claude, codex, opencode, gemini, qwen or copilot (--check alone: every agent set up)' },
  flags: [
    { name: 'project', type: 'boolean', help: "Claude Code: the project's .claude/settings.json (in --dir) instead of your user settings; OpenCode: the project's opencode.json; Gemini CLI, Qwen Code: the project's .gemini/ or .qwen/settings.json" },
    { name: 'remove', type: 'boolean', help: 'take Session Handoff out again, restoring the settings as they were' },
    { name: 'dry-run', type: 'boolean', help: 'print the diff only; write nothing' },
    { name: 'check', type: 'boolean', help: 'say whether each hook is in place (Codex: and trusted in /hooks; Copilot CLI: the MCP server and its instruction); write nothing' },
    { name: 'without-mcp', type: 'boolean', help: "leave the agent's MCP configuration alone (by default the handoff MCP server is added: ~/.claude.json, .mcp.json with --project, Codex's config.toml)" },
    { name: 'launcher', type: 'string', placeholder: 'PATH', help: 'the handoff executable the agent runs (default: handoff on PATH)' },
    { name: 'dir', type: 'string', placeholder: 'DIR', help: 'the project folder for --project (default: the current directory)' },
    { name: 'claude-config-dir', type: 'string', placeholder: 'DIR', help: 'Claude Code config dir (default: $CLAUDE_CONFIG_DIR or ~/.claude)' },
    { name: 'codex-home', type: 'string', placeholder: 'DIR', help: 'Codex home (default: $CODEX_HOME or ~/.codex)' },
    { name: 'codex-version', type: 'string', placeholder: 'X.Y.Z', help: 'Codex: set up for this version (default: codex --version, else the newest rollout)' },
  ],
  async run({ flags, positionals, io }) {
    const agent = positionals[0];
    if (agent === undefined && flags['check'] === true) {
      // Every agent: fine when each one that has any hook of ours has them all (Codex: trusted). Claude
      // Code and Codex are always reported; Gemini CLI, Qwen Code and Copilot CLI when something of
      // ours is in their files (a file of theirs that cannot be read is said, and counts as not fine).
      const results = [await check('claude', flags, io), await check('codex', flags, io)];
      for (const other of ['gemini', 'qwen', 'copilot'] as const) {
        const said: string[] = [];
        const quiet: CliIO = { ...io, stdout: (t) => void said.push(t) };
        try {
          const r = other === 'copilot' ? await copilotCheck(quiet) : await check(other, flags, quiet);
          if (r.any) io.stdout(said.join(''));
          results.push(r);
        } catch (err) {
          if (!(err instanceof UsageError)) throw err;
          io.stdout(redact(`${other === 'copilot' ? 'Copilot CLI' : other === 'gemini' ? 'Gemini CLI' : 'Qwen Code'}: ${err.message}\n`));
          results.push({ ok: false, any: true });
        }
      }
      return results.some((r) => r.any) && results.every((r) => r.ok || !r.any) ? EXIT_OK : EXIT_REFUSED;
    }
    if (agent === undefined || !AGENTS.includes(agent as Agent)) throw new UsageError(agent === undefined ? `name the agent: ${AGENTS.join(', ')}` : `unknown agent "${agent}": use ${AGENTS.join(', ')}`);
    if (agent === 'opencode' && flags['check'] === true) throw new UsageError('--check is for claude, codex, gemini, qwen and copilot (OpenCode has no hooks)');
    if (agent === 'copilot' && flags['check'] === true) return (await copilotCheck(io)).ok ? EXIT_OK : EXIT_REFUSED;
    if (flags['check'] === true && (agent === 'claude' || agent === 'codex' || isSettingsAgent(agent))) return (await check(agent as 'claude' | 'codex' | SettingsAgent, flags, io)).ok ? EXIT_OK : EXIT_REFUSED;
    const stopped = await carryOut(await plan(agent, flags, io), flags, io);
    if (stopped !== null) return stopped;
    // The MCP server, in the agent's MCP configuration: a step of its own, read after the hooks were
    // written (Codex keeps both in config.toml).
    // OpenCode's, Gemini CLI's, Qwen Code's and Copilot CLI's MCP server is in the step above.
    if (flags['without-mcp'] !== true && !MCP_IN_PLAN.has(agent as Agent)) {
      const mcpStopped = await carryOut(await mcpPlan(agent, flags, io), flags, io);
      if (mcpStopped !== null) return mcpStopped;
    }
    if (flags['remove'] !== true && !(await findOnPath('node', io.env))) io.stderr(`handoff setup: ${NO_NODE_MESSAGE}\n`);
    return EXIT_OK;
  },
};
