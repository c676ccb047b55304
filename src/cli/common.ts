import { promises as fs } from 'node:fs';
import * as path from 'node:path';
import type { Diagnostic } from '../core/diagnostics';
import type { HandoffOptions } from '../core/options';
import { DEFAULT_OPTIONS } from '../core/options';
import type { CliIO, FlagSpec, FlagValues } from './types';
import { UsageError } from './types';

/** Flags every workbench command takes. */
export const DIR_FLAGS: FlagSpec[] = [
  { name: 'dir', type: 'string', placeholder: 'DIR', help: 'the workspace / workbench folder (default: the current directory)' },
  { name: 'output-dir', type: 'string', placeholder: 'DIR', help: 'where packets go, relative to the workbench (default: outputs/handoff)' },
];
export const K_FLAG: FlagSpec = { name: 'k', type: 'number', placeholder: 'N', help: 'keep the last N feedback records plus every failure (default: 5)' };
export const JSON_FLAG: FlagSpec = { name: 'json', type: 'boolean', help: 'print machine-readable JSON on stdout' };

/** The workspace dir from `--dir` (default cwd); it must exist and be a folder. */
export async function workspaceDirOf(flags: FlagValues, io: CliIO): Promise<string> {
  const dir = path.resolve(io.cwd, typeof flags['dir'] === 'string' ? flags['dir'] : '.');
  const st = await fs.stat(dir).catch(() => null);
  if (!st) throw new UsageError(`no such directory: ${dir}`);
  if (!st.isDirectory()) throw new UsageError(`not a directory: ${dir}`);
  return dir;
}

/** HandoffOptions from the defaults and the flags. */
export function optionsOf(flags: FlagValues): HandoffOptions {
  const options: HandoffOptions = { ...DEFAULT_OPTIONS };
  if (typeof flags['output-dir'] === 'string') {
    if (!flags['output-dir'].trim()) throw new UsageError('--output-dir must not be empty');
    options.outputDir = flags['output-dir'];
  }
  if (flags['k'] !== undefined) {
    const k = flags['k'];
    if (typeof k !== 'number' || !Number.isInteger(k) || k < 1 || k > options.maxCommands) {
      throw new UsageError(`--k must be a whole number from 1 to ${options.maxCommands}`);
    }
    options.feedbackK = k;
  }
  // Only the commands that declare --workbench-dir get it; each of them must honour it.
  if (typeof flags['workbench-dir'] === 'string') options.workbenchDir = flags['workbench-dir'];
  return options;
}

/** Diagnostics as `file:line: message` lines on stderr; warnings only, they never change the exit code. */
export function printDiagnostics(io: CliIO, diagnostics: Diagnostic[]): void {
  for (const d of diagnostics) io.stderr(`${d.file}${d.line ? `:${d.line}` : ''}: ${d.message}\n`);
}
