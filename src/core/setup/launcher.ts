import { constants as fsc, promises as fs } from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { atomicWrite, readIfExists } from '../fsx';
import { shellQuote } from './shell';

/** The executable `name` on `PATH` (with PATHEXT on Windows), or null. */
export async function findOnPath(name: string, env: Record<string, string | undefined>, platform = process.platform): Promise<string | null> {
  const dirs = (env['PATH'] ?? env['Path'] ?? '').split(path.delimiter).filter(Boolean);
  const exts = platform === 'win32' ? (env['PATHEXT'] ?? '.EXE;.CMD;.BAT').split(';').map((e) => e.toLowerCase()) : [''];
  for (const dir of dirs) {
    for (const ext of exts) {
      const file = path.join(dir, name + ext);
      const ok = await fs.access(file, platform === 'win32' ? fsc.F_OK : fsc.X_OK).then(() => true, () => false);
      if (ok && (await fs.stat(file).then((s) => s.isFile(), () => false))) return file;
    }
  }
  return null;
}

/** What to tell a person whose agent would find no `node` to run the hooks with. */
export const NO_NODE_MESSAGE =
  'node is not on PATH, and the hooks run the handoff command with it. Install Node.js 18 or newer (https://nodejs.org) so that `node` is on the PATH of the shell your agent starts, then open a new terminal.';

/** The launcher's file name in a folder: `handoff` (POSIX shell script) or `handoff.cmd` (Windows). */
export const launcherFileOf = (dir: string, platform = process.platform): string => path.join(dir, platform === 'win32' ? 'handoff.cmd' : 'handoff');

/** The launcher script that runs `cliJs` with the `node` on PATH, saying how to fix a missing one. */
export function launcherScript(cliJs: string, platform = process.platform): string {
  if (platform === 'win32') {
    return ['@echo off', 'where node >nul 2>nul || (echo handoff: ' + NO_NODE_MESSAGE.replace(/[`()]/g, '') + ' 1>&2 & exit /b 127)', `node "${cliJs}" %*`, ''].join('\r\n');
  }
  return [
    '#!/bin/sh',
    '# Session Handoff launcher, kept up to date by the VS Code extension: runs the CLI it ships.',
    'if ! command -v node >/dev/null 2>&1; then',
    `  echo ${shellQuote(`handoff: ${NO_NODE_MESSAGE}`)} >&2`,
    '  exit 127',
    'fi',
    `exec node ${shellQuote(cliJs)} "$@"`,
    '',
  ].join('\n');
}

/** Writes (or refreshes) the launcher in `dir`; returns its path. Writes only when its text changed. */
export async function ensureLauncher(dir: string, cliJs: string, platform = process.platform): Promise<string> {
  const file = launcherFileOf(dir, platform);
  const script = launcherScript(cliJs, platform);
  // A script that runs our CLI, not an output: written as is.
  if ((await readIfExists(file)) !== script) await atomicWrite(file, Buffer.from(script, 'utf8'));
  if (platform !== 'win32') await fs.chmod(file, 0o755);
  return file;
}

/** Claude Code's settings file: the project's `.claude/settings.json`, else `$CLAUDE_CONFIG_DIR` or `~/.claude`. */
export function claudeSettingsFile(opts: { project?: string; configDir?: string; env: Record<string, string | undefined> }): string {
  if (opts.project) return path.join(opts.project, '.claude', 'settings.json');
  return path.join(opts.configDir || opts.env['CLAUDE_CONFIG_DIR'] || path.join(os.homedir(), '.claude'), 'settings.json');
}

/** Codex CLI's config file: `$CODEX_HOME/config.toml`, else `~/.codex/config.toml`. */
export function codexConfigFile(opts: { codexHome?: string; env: Record<string, string | undefined> }): string {
  return path.join(opts.codexHome || opts.env['CODEX_HOME'] || path.join(os.homedir(), '.codex'), 'config.toml');
}
