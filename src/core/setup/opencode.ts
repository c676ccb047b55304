/**
 * `handoff setup opencode` (FORMATS: more-agents §1.6): OpenCode has no command hooks, so it gets the
 * handoff MCP server (`mcp.handoff` in `opencode.json`, a local server whose `command` is an array) and
 * an instruction file, listed in `instructions`, that tells every new session to ask that server for
 * the restart prompt. Both are merged into the user's config (or the project's with `--project`): the
 * diff is shown first, the first change keeps a backup, `--remove` takes both out again.
 */
import * as path from 'node:path';
import { isDeepStrictEqual } from 'node:util';
import { MCP_ARGS, MCP_SERVER_NAME } from './mcp';
import type { JsonObject, PlanResult, SetupPlan } from './plan';
import { backupFileOf, connectPlan, isObject, jsonRemoval, parseObjectFile, stringifyLike } from './plan';
import { LAUNCHER_NAME } from './shell';

/** The instruction file set-up writes next to `opencode.json`. */
export const OPENCODE_INSTRUCTIONS_NAME = 'handoff-instructions.md';

/** What the instruction file says: ask the MCP server for the handoff at the start, write one before stopping. */
export const OPENCODE_INSTRUCTIONS = [
  '# Session Handoff',
  '',
  'At the start of a session, call the `handoff_prompt` tool of the `handoff` MCP server. When it returns a',
  'restart prompt, take it as where the work stands: read what it says to read first, and take its next',
  'action unless the user asks for something else. When it says there is no handoff, go on as usual.',
  '',
  'Before you stop with work unfinished, call `handoff_generate` so that the next session can take over.',
  '',
].join('\n');

/** OpenCode's user config: `$XDG_CONFIG_HOME/opencode/opencode.json`, else `~/.config/opencode/opencode.json`. */
export function opencodeConfigFile(o: { project?: string; file?: string; env: NodeJS.ProcessEnv; home: string }): string {
  if (o.file) return o.file;
  if (o.project) return path.join(o.project, 'opencode.json');
  return path.join(o.env['XDG_CONFIG_HOME'] || path.join(o.home, '.config'), 'opencode', 'opencode.json');
}

/** The `mcp.handoff` entry: a local server, the launcher run with `mcp`. */
export function opencodeMcpEntry(launcher: string): JsonObject {
  return { type: 'local', command: [launcher, ...MCP_ARGS], enabled: true };
}

/** True when an entry is what set-up writes (a `handoff` launcher with `mcp`), whatever the launcher's folder. */
export function isOurOpencodeEntry(entry: unknown): boolean {
  if (!isObject(entry) || !Array.isArray(entry['command'])) return false;
  const [launcher, ...rest] = entry['command'] as unknown[];
  if (typeof launcher !== 'string' || !LAUNCHER_NAME.test(path.basename(launcher.replace(/\\/g, '/')))) return false;
  const { command: _c, type, enabled, ...others } = entry;
  return isDeepStrictEqual(rest, [...MCP_ARGS]) && type === 'local' && (enabled === undefined || enabled === true) && Object.keys(others).length === 0;
}

export interface OpencodeSetupInput {
  file: string;
  text: string | null;
  backupExists: boolean;
  launcher: string;
  /** The instruction file (next to the config) and its current text. */
  instructionsFile: string;
  instructionsText: string | null;
  /** How `instructions` names it: absolute for the user config, relative to the project for `--project`. */
  instructionsRef: string;
}

const THEIRS = (file: string) => `An MCP server named "${MCP_SERVER_NAME}" of your own is in ${file}; it is kept as it is and ours was not added.`;

/** The instruction file's plan: written when missing; one of the user's own at that name is never overwritten. */
function instructionsPlan(file: string, text: string | null): SetupPlan | { refused: string } {
  if (text !== null && text !== OPENCODE_INSTRUCTIONS) return { refused: `${file} exists and is not the one set-up writes; it is kept as it is and nothing was written` };
  return { file, before: text, after: OPENCODE_INSTRUCTIONS, backupFile: backupFileOf(file), writeBackup: null, removeBackup: false, notes: text === null ? [`OpenCode reads ${file} at the start of every session (listed in "instructions").`] : [] };
}

/** Adds `mcp.handoff` and our instruction file to `instructions`, every other key kept. */
export function planOpencodeSetup(input: OpencodeSetupInput): PlanResult {
  const parsed = parseObjectFile(input.file, input.text ?? '');
  if (!parsed.ok) return { ...parsed, message: `${parsed.message} (OpenCode's JSONC comments are not edited by set-up: add the entries by hand, as docs/connect.md shows)` };
  const config: JsonObject = structuredClone(parsed.value);
  const servers = config['mcp'] ?? {};
  if (!isObject(servers)) return { ok: false, message: `${input.file}: "mcp" is not an object; nothing was written`, invalid: true };
  const instructions = config['instructions'] ?? [];
  if (!Array.isArray(instructions)) return { ok: false, message: `${input.file}: "instructions" is not an array; nothing was written`, invalid: true };
  const mine = servers[MCP_SERVER_NAME];
  if (mine !== undefined && !isOurOpencodeEntry(mine)) return connectPlan(input, input.text ?? '', [], THEIRS(input.file));
  const extra = instructionsPlan(input.instructionsFile, input.instructionsText);
  if ('refused' in extra) return { ok: false, message: extra.refused };
  servers[MCP_SERVER_NAME] = opencodeMcpEntry(input.launcher);
  config['mcp'] = servers;
  if (!instructions.includes(input.instructionsRef)) config['instructions'] = [...instructions, input.instructionsRef];
  if (input.text === null) config['$schema'] = 'https://opencode.ai/config.json';
  const result = connectPlan(input, stringifyLike(config, input.text), [`OpenCode gets the handoff MCP server (mcp.${MCP_SERVER_NAME} in ${input.file}) and the instruction to ask it for the handoff; restart OpenCode to load them.`], "The handoff MCP server and instruction are already in OpenCode's configuration; nothing to change.");
  if (!result.ok) return result;
  return { ...result, more: [extra] };
}

/** Takes `mcp.handoff` and our `instructions` entry out again (an emptied `mcp` / `instructions` goes too), and our instruction file. */
export function planOpencodeRemove(input: { file: string; text: string | null; backup: string | null; instructionsFile: string; instructionsText: string | null; instructionsRef: string }): PlanResult {
  const none: SetupPlan = { file: input.file, before: input.text, after: input.text, backupFile: backupFileOf(input.file), writeBackup: null, removeBackup: false, notes: [] };
  // Our instruction file goes when it is exactly ours; one of the user's own is left.
  const file: SetupPlan = { file: input.instructionsFile, before: input.instructionsText, after: input.instructionsText === OPENCODE_INSTRUCTIONS ? null : input.instructionsText, backupFile: backupFileOf(input.instructionsFile), writeBackup: null, removeBackup: false, notes: [] };
  if (input.text === null) return { ok: true, plan: none, more: [file] };
  const parsed = parseObjectFile(input.file, input.text);
  if (!parsed.ok) return parsed;
  const config: JsonObject = structuredClone(parsed.value);
  const servers = config['mcp'];
  const instructions = config['instructions'];
  const ours = isObject(servers) && isOurOpencodeEntry(servers[MCP_SERVER_NAME]);
  const listed = Array.isArray(instructions) && instructions.includes(input.instructionsRef);
  if (!ours && !listed) return { ok: true, plan: none, more: [file] };
  if (ours && isObject(servers)) {
    delete servers[MCP_SERVER_NAME];
    if (Object.keys(servers).length === 0) delete config['mcp'];
  }
  if (listed && Array.isArray(instructions)) {
    const kept = instructions.filter((i) => i !== input.instructionsRef);
    if (kept.length) config['instructions'] = kept;
    else delete config['instructions'];
  }
  // A file set-up made holds only the schema line besides ours: it goes whole.
  if (input.backup === null && Object.keys(config).every((k) => k === '$schema')) delete config['$schema'];
  const result = jsonRemoval({ file: input.file, text: input.text, backup: input.backup }, config);
  return result.ok ? { ...result, more: [file] } : result;
}
