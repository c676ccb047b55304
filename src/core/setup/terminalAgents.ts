/**
 * `handoff setup gemini|qwen|copilot` (FORMATS: more-agents §2.5, §3.5, §4.7).
 *
 * Gemini CLI and Qwen Code keep hooks and MCP servers in one `settings.json` (the user's, or the
 * project's with `--project`), in the shape Claude Code uses: SessionStart's
 * `hookSpecificOutput.additionalContext` reaches the model, SessionEnd (and Qwen's PreCompact) write the
 * packet. Gemini CLI counts a hook's timeout in milliseconds, Qwen Code in seconds.
 *
 * GitHub Copilot CLI gets the MCP server (`~/.copilot/mcp-config.json`) and, beside it, an instruction
 * to use it (copilotInstructions.ts): its sessionStart hook's output is not processed (docs.github.com
 * "CLI hooks reference"), and its camelCase hook input names no event, so no hook is written.
 */
import * as path from 'node:path';
import { isDeepStrictEqual } from 'node:util';
import type { HookSpec } from './hookEntries';
import { mergeHooks, ourEvents, removeOurHooks, SESSION_END_TIMEOUT_S } from './hookEntries';
import { isOurMcpEntry, MCP_ARGS, MCP_SERVER_NAME, mcpEntry } from './mcp';
import type { JsonObject, PlanResult, SetupPlan } from './plan';
import { backupFileOf, connectPlan, isObject, jsonRemoval, parseObjectFile, stringifyLike } from './plan';
import { LAUNCHER_NAME } from './shell';

export type SettingsAgent = 'gemini' | 'qwen';

/** `disableAllHooks` (Qwen Code) or `hooksConfig.enabled: false` (Gemini CLI): no hook runs. */
const hooksTurnedOff = (settings: JsonObject): boolean => settings['disableAllHooks'] === true || (isObject(settings['hooksConfig']) && settings['hooksConfig']['enabled'] === false);

export const AGENT_LABEL: Record<SettingsAgent | 'copilot', string> = { gemini: 'Gemini CLI', qwen: 'Qwen Code', copilot: 'GitHub Copilot CLI' };

/** The hooks each agent gets; timeouts in the agent's own unit (Gemini CLI: ms, Qwen Code: s). */
export const SETTINGS_HOOK_EVENTS: Record<SettingsAgent, HookSpec[]> = {
  gemini: [
    { event: 'SessionStart', matcher: 'startup|resume|clear', timeout: 10_000 },
    { event: 'SessionEnd', timeout: SESSION_END_TIMEOUT_S * 1000 },
  ],
  qwen: [
    { event: 'SessionStart', matcher: 'startup|resume|clear|compact', timeout: 10 },
    { event: 'PreCompact', timeout: 30 },
    { event: 'SessionEnd', timeout: SESSION_END_TIMEOUT_S },
  ],
};

/**
 * The settings file: `--project` → `<project>/.gemini/settings.json` / `<project>/.qwen/settings.json`;
 * else Gemini CLI's `$GEMINI_CLI_HOME/.gemini/settings.json` (the variable replaces the home folder) or
 * Qwen Code's `$QWEN_HOME/settings.json`, else the one under the home folder.
 */
export function settingsFileOf(agent: SettingsAgent, o: { project?: string; env: NodeJS.ProcessEnv; home: string }): string {
  const dot = agent === 'gemini' ? '.gemini' : '.qwen';
  if (o.project) return path.join(o.project, dot, 'settings.json');
  if (agent === 'gemini') return path.join(o.env['GEMINI_CLI_HOME'] || o.home, '.gemini', 'settings.json');
  return path.join(o.env['QWEN_HOME'] || path.join(o.home, '.qwen'), 'settings.json');
}

/** Copilot CLI's MCP configuration: `$COPILOT_HOME/mcp-config.json`, else `~/.copilot/mcp-config.json`. */
export function copilotMcpFileOf(o: { env: NodeJS.ProcessEnv; home: string }): string {
  return path.join(o.env['COPILOT_HOME'] || path.join(o.home, '.copilot'), 'mcp-config.json');
}

const THEIRS = (file: string) => `An MCP server named "${MCP_SERVER_NAME}" of your own is in ${file}; it is kept as it is and ours was not added.`;

export interface SettingsSetupInput {
  agent: SettingsAgent;
  file: string;
  text: string | null;
  /** The command the hooks run, quoted for the shell. */
  hookLauncher: string;
  /** The executable the MCP entry runs (not through a shell); null leaves MCP alone (`--without-mcp`). */
  mcpLauncher: string | null;
  backupExists: boolean;
}

/**
 * Merges our hooks (and the MCP server) into a Gemini CLI / Qwen Code settings file; every other key,
 * hook and server is kept, ours are updated in place, so a second run changes nothing. A server named
 * `handoff` of the user's own is kept and ours not added.
 */
export function planSettingsAgentSetup(input: SettingsSetupInput): PlanResult {
  const label = AGENT_LABEL[input.agent];
  const parsed = parseObjectFile(input.file, input.text ?? '');
  if (!parsed.ok) return parsed;
  const settings: JsonObject = structuredClone(parsed.value);
  const notes: string[] = [];
  const hooks = settings['hooks'] ?? {};
  if (!isObject(hooks)) return { ok: false, message: `${input.file}: "hooks" is not an object; nothing was written`, invalid: true };
  const bad = mergeHooks(hooks, SETTINGS_HOOK_EVENTS[input.agent], `${input.hookLauncher} hook`, input.file);
  if (bad) return { ok: false, message: bad, invalid: true };
  settings['hooks'] = hooks;
  if (hooksTurnedOff(settings)) {
    notes.push(`Hooks are turned off in ${input.file} (disableAllHooks / hooksConfig.enabled): ${label} runs none of them until you turn them on.`);
  }
  if (input.mcpLauncher !== null) {
    const servers = settings['mcpServers'] ?? {};
    if (!isObject(servers)) return { ok: false, message: `${input.file}: "mcpServers" is not an object; nothing was written`, invalid: true };
    const mine = servers[MCP_SERVER_NAME];
    if (mine !== undefined && !isOurMcpEntry(mine)) notes.push(THEIRS(input.file));
    else {
      servers[MCP_SERVER_NAME] = mcpEntry(input.mcpLauncher);
      settings['mcpServers'] = servers;
    }
  }
  const what = input.mcpLauncher !== null ? 'the SessionStart and SessionEnd hooks and the handoff MCP server' : 'the SessionStart and SessionEnd hooks';
  return connectPlan(input, stringifyLike(settings, input.text), [...notes, `${label} gets ${what} (${input.file}); restart ${label} to load them.`], `${label} is already connected; nothing to change.`);
}

/** Takes our hooks and MCP server out of a Gemini CLI / Qwen Code settings file again. */
export function planSettingsAgentRemove(input: { agent: SettingsAgent; file: string; text: string | null; backup: string | null }): PlanResult {
  const none: SetupPlan = { file: input.file, before: input.text, after: input.text, backupFile: backupFileOf(input.file), writeBackup: null, removeBackup: false, notes: [] };
  if (input.text === null) return { ok: true, plan: { ...none, notes: [`There are no ${AGENT_LABEL[input.agent]} settings to change.`] } };
  const parsed = parseObjectFile(input.file, input.text);
  if (!parsed.ok) return parsed;
  const settings: JsonObject = structuredClone(parsed.value);
  let changed = false;
  const hooks = settings['hooks'];
  if (isObject(hooks) && removeOurHooks(hooks)) {
    changed = true;
    if (Object.keys(hooks).length === 0) delete settings['hooks'];
  }
  const servers = settings['mcpServers'];
  if (isObject(servers) && isOurMcpEntry(servers[MCP_SERVER_NAME])) {
    changed = true;
    delete servers[MCP_SERVER_NAME];
    if (Object.keys(servers).length === 0) delete settings['mcpServers'];
  }
  if (!changed) return { ok: true, plan: { ...none, notes: ['Session Handoff is not in these settings; nothing to remove.'] } };
  return jsonRemoval({ file: input.file, text: input.text, backup: input.backup }, settings);
}

/** What `--check` says for a Gemini CLI / Qwen Code settings file: each hook present or absent, and the MCP server. */
export function settingsAgentReport(agent: SettingsAgent, file: string, settings: JsonObject): { lines: string[]; ok: boolean; any: boolean } {
  const present = ourEvents(settings['hooks']);
  const lines = [`${AGENT_LABEL[agent]} hooks in ${file}:`];
  let ok = true;
  for (const { event } of SETTINGS_HOOK_EVENTS[agent]) {
    ok &&= present.includes(event);
    lines.push(`  ${event}: ${present.includes(event) ? 'present' : 'absent'}`);
  }
  const servers = settings['mcpServers'];
  lines.push(`  MCP server "${MCP_SERVER_NAME}": ${isObject(servers) && isOurMcpEntry(servers[MCP_SERVER_NAME]) ? 'present' : 'absent'}`);
  if (hooksTurnedOff(settings)) {
    ok = false;
    lines.push('  hooks are turned off in these settings: none of them runs.');
  }
  return { lines, ok, any: present.length > 0 };
}

/** Copilot CLI's entry: a local server, every tool allowed (what `copilot mcp add` writes). */
export function copilotMcpEntry(launcher: string): JsonObject {
  return { type: 'local', command: launcher, args: [...MCP_ARGS], tools: ['*'] };
}

/** True when a Copilot CLI entry is what set-up writes (a `handoff` launcher with `mcp`), whatever the launcher's folder. */
export function isOurCopilotEntry(entry: unknown): boolean {
  if (!isObject(entry) || typeof entry['command'] !== 'string') return false;
  if (!LAUNCHER_NAME.test(path.basename(entry['command'].replace(/\\/g, '/')))) return false;
  const { command: _c, args, type, tools, ...rest } = entry;
  return isDeepStrictEqual(args, [...MCP_ARGS]) && (type === 'local' || type === 'stdio') && isDeepStrictEqual(tools, ['*']) && Object.keys(rest).length === 0;
}

/** Adds `mcpServers.handoff` to Copilot CLI's mcp-config.json; every other server kept, ours updated in place. */
export function planCopilotSetup(input: { file: string; text: string | null; launcher: string; backupExists: boolean }): PlanResult {
  const parsed = parseObjectFile(input.file, input.text ?? '');
  if (!parsed.ok) return parsed;
  const config: JsonObject = structuredClone(parsed.value);
  const servers = config['mcpServers'] ?? {};
  if (!isObject(servers)) return { ok: false, message: `${input.file}: "mcpServers" is not an object; nothing was written`, invalid: true };
  const mine = servers[MCP_SERVER_NAME];
  if (mine !== undefined && !isOurCopilotEntry(mine)) return connectPlan(input, input.text ?? '', [], THEIRS(input.file));
  servers[MCP_SERVER_NAME] = copilotMcpEntry(input.launcher);
  config['mcpServers'] = servers;
  return connectPlan(
    input,
    stringifyLike(config, input.text),
    [
      `GitHub Copilot CLI gets the handoff MCP server (${input.file}); /mcp in Copilot CLI shows it.`,
      "No hook is written: Copilot CLI does not process a sessionStart hook's output (its hooks reference). Instead each session is told to ask the MCP server for the handoff (below).",
    ],
    "The handoff MCP server is already in Copilot CLI's configuration; nothing to change.",
  );
}

/** Takes our `mcpServers.handoff` out of Copilot CLI's mcp-config.json again. */
export function planCopilotRemove(input: { file: string; text: string | null; backup: string | null }): PlanResult {
  const none: SetupPlan = { file: input.file, before: input.text, after: input.text, backupFile: backupFileOf(input.file), writeBackup: null, removeBackup: false, notes: [] };
  if (input.text === null) return { ok: true, plan: { ...none, notes: ["There is no Copilot CLI MCP configuration to change."] } };
  const parsed = parseObjectFile(input.file, input.text);
  if (!parsed.ok) return parsed;
  const config: JsonObject = structuredClone(parsed.value);
  const servers = config['mcpServers'];
  if (!isObject(servers) || !isOurCopilotEntry(servers[MCP_SERVER_NAME])) return { ok: true, plan: { ...none, notes: ['Session Handoff is not in this configuration; nothing to remove.'] } };
  delete servers[MCP_SERVER_NAME];
  if (Object.keys(servers).length === 0) delete config['mcpServers'];
  return jsonRemoval({ file: input.file, text: input.text, backup: input.backup }, config);
}
