import * as path from 'node:path';
import { isDeepStrictEqual } from 'node:util';
import type { JsonObject, PlanResult } from './plan';
import { backupFileOf, connectPlan, isObject, jsonRemoval, parseObjectFile, stringifyLike } from './plan';
import { LAUNCHER_NAME } from './shell';
import { appendToml, parseTomlFile, patchToml } from './toml';
import { removalPlan } from './codex';

/** The name Session Handoff's MCP server is registered under, in every agent's configuration. */
export const MCP_SERVER_NAME = 'handoff';

/** The server's arguments after the launcher: `handoff mcp`. */
export const MCP_ARGS = ['mcp'] as const;

/**
 * The entry an agent's MCP configuration gets: the launcher (an executable, not run through a shell)
 * with `mcp`. Claude Code's `.claude.json` / `.mcp.json` and Cline's and Kilo Code's settings take it
 * as it is; Codex the same keys under `[mcp_servers.handoff]`.
 */
export function mcpEntry(launcher: string): { command: string; args: string[] } {
  return { command: launcher, args: [...MCP_ARGS] };
}

/** True when an entry is exactly what set-up writes: a `handoff` launcher with `mcp` (and a `type` of stdio). */
export function isOurMcpEntry(entry: unknown): boolean {
  if (!isObject(entry) || typeof entry['command'] !== 'string') return false;
  if (!LAUNCHER_NAME.test(path.basename(entry['command'].replace(/\\/g, '/')))) return false;
  const { command: _c, args, type, ...rest } = entry;
  return isDeepStrictEqual(args, [...MCP_ARGS]) && (type === undefined || type === 'stdio') && Object.keys(rest).length === 0;
}

const THEIRS = (file: string) => `An MCP server named "${MCP_SERVER_NAME}" of your own is in ${file}; it is kept as it is and ours was not added.`;

/**
 * Adds the MCP server to a Claude Code JSON file (`~/.claude.json` for the user, a project's
 * `.mcp.json`): `mcpServers.handoff`, every other key and server kept; ours updated in place.
 */
export function planClaudeMcpSetup(input: { file: string; text: string | null; launcher: string; backupExists: boolean }): PlanResult {
  const parsed = parseObjectFile(input.file, input.text ?? '');
  if (!parsed.ok) return parsed;
  const settings: JsonObject = structuredClone(parsed.value);
  const servers = settings['mcpServers'] ?? {};
  if (!isObject(servers)) return { ok: false, message: `${input.file}: "mcpServers" is not an object; nothing was written`, invalid: true };
  const mine = servers[MCP_SERVER_NAME];
  if (mine !== undefined && !isOurMcpEntry(mine)) return connectPlan(input, input.text ?? '', [], THEIRS(input.file));
  servers[MCP_SERVER_NAME] = { type: 'stdio', ...mcpEntry(input.launcher) };
  settings['mcpServers'] = servers;
  return connectPlan(input, stringifyLike(settings, input.text), [`Claude Code gets the handoff MCP server (${input.file}); run /mcp in Claude Code to see it.`], 'The handoff MCP server is already in Claude Code\'s configuration; nothing to change.');
}

/** Takes our `mcpServers.handoff` out of a Claude Code JSON file again (an `mcpServers` left empty goes too). */
export function planClaudeMcpRemove(input: { file: string; text: string | null; backup: string | null }): PlanResult {
  const none = { file: input.file, before: input.text, after: input.text, backupFile: backupFileOf(input.file), writeBackup: null, removeBackup: false };
  if (input.text === null) return { ok: true, plan: { ...none, notes: [] } };
  const parsed = parseObjectFile(input.file, input.text);
  if (!parsed.ok) return parsed;
  const settings: JsonObject = structuredClone(parsed.value);
  const servers = settings['mcpServers'];
  if (!isObject(servers) || !isOurMcpEntry(servers[MCP_SERVER_NAME])) return { ok: true, plan: { ...none, notes: [] } };
  delete servers[MCP_SERVER_NAME];
  if (Object.keys(servers).length === 0) delete settings['mcpServers'];
  return jsonRemoval({ file: input.file, text: input.text, backup: input.backup }, settings);
}

/** Adds `[mcp_servers.handoff]` to Codex's config.toml through the TOML editor (comments and layout kept). */
export function planCodexMcpSetup(input: { file: string; text: string | null; launcher: string; backupExists: boolean }): PlanResult {
  const parsed = parseTomlFile(input.file, input.text);
  if (!parsed.ok) return parsed;
  const servers = parsed.value['mcp_servers'] ?? {};
  if (!isObject(servers)) return { ok: false, message: `${input.file}: "mcp_servers" is not a table; nothing was written`, invalid: true };
  const mine = servers[MCP_SERVER_NAME];
  if (mine !== undefined && !isOurMcpEntry(mine)) return connectPlan(input, input.text ?? '', [], THEIRS(input.file));
  const wanted = { ...parsed.value, mcp_servers: { ...servers, [MCP_SERVER_NAME]: mcpEntry(input.launcher) } };
  // A table of its own at the end, as Codex's docs write it; where that cannot be (an inline
  // `mcp_servers = {…}`) or ours is there already, the TOML editor changes it in place.
  const appended = mine === undefined ? appendTable(input.text, parsed.value, wanted) : null;
  const edited = appended ? { ok: true as const, text: appended } : patchToml(input.file, input.text, wanted);
  if (!edited.ok) return edited;
  return connectPlan(input, edited.text, [`Codex gets the handoff MCP server ([mcp_servers.${MCP_SERVER_NAME}] in ${input.file}).`], 'The handoff MCP server is already in Codex\'s config.toml; nothing to change.');
}

/** `[mcp_servers.handoff]` appended to the text, or null when the result would not hold exactly `wanted`. */
function appendTable(text: string | null, current: JsonObject, wanted: JsonObject): string | null {
  const entry = (wanted['mcp_servers'] as JsonObject)[MCP_SERVER_NAME] as { command: string; args: string[] };
  const table = `[mcp_servers.${MCP_SERVER_NAME}]\ncommand = ${JSON.stringify(entry.command)}\nargs = ${JSON.stringify(entry.args)}\n`;
  return appendToml(text, current, table, wanted);
}

/** Takes `[mcp_servers.handoff]` out of Codex's config.toml again, when it is ours. */
export function planCodexMcpRemove(input: { file: string; text: string | null; backup: string | null }): PlanResult {
  const none = { file: input.file, before: input.text, after: input.text, backupFile: backupFileOf(input.file), writeBackup: null, removeBackup: false };
  if (input.text === null) return { ok: true, plan: { ...none, notes: [] } };
  const parsed = parseTomlFile(input.file, input.text);
  if (!parsed.ok) return parsed;
  const servers = parsed.value['mcp_servers'];
  if (!isObject(servers) || !isOurMcpEntry(servers[MCP_SERVER_NAME])) return { ok: true, plan: { ...none, notes: [] } };
  const { [MCP_SERVER_NAME]: _ours, ...others } = servers;
  const { mcp_servers: _all, ...rest } = parsed.value;
  return removalPlan(input, Object.keys(others).length ? { ...rest, mcp_servers: others } : rest);
}
