import type * as childProcess from 'node:child_process';
import * as path from 'node:path';
import type { Budget } from '../../core/context/budget';
import { budgetLevel, checkBudget, DEFAULT_BUDGET } from '../../core/context/budget';
import { claudeTranscriptReader } from '../../core/context/claude';
import { asShown, statuslineText } from '../../core/context/format';
import { formatGenericUsage, GENERIC_USAGE_FILE, usageReading } from '../../core/context/usage';
import type { StatuslineInput } from '../../core/context/statuslineInput';
import { parseStatuslineInput, usageFromStatusline } from '../../core/context/statuslineInput';
import type { ContextResult } from '../../core/context/types';
import { atomicWrite, files, usesBlockingFileAccess, type useBlockingFileAccess } from '../../core/fsx';
import type { Redacted } from '../../core/redact';
import { assertOutputInside, outputDirOf, workbenchDirOf } from '../../core/workflow/paths';
import { optionsOf } from '../common';
import type { CliIO, CommandSpec, FlagValues } from '../types';
import { cachedWords } from './statuslineCache';
import type { workbenchWords } from './statuslineWords';

type ChildProcessModule = typeof childProcess;

/** A chained statusLine command gets this long before its output is dropped. */
const CHAIN_TIMEOUT_MS = 2000;
/** Of a chained command's output only the first line is shown, and of that at most this many bytes. */
export const CHAIN_MAX_BYTES = 4096;

/** The first line of a chained command's output, cut to `CHAIN_MAX_BYTES` (never inside a character). */
export function firstChainedLine(bytes: Buffer): string {
  const nl = bytes.indexOf(10);
  const line = bytes.subarray(0, Math.min(nl === -1 ? bytes.length : nl, CHAIN_MAX_BYTES));
  return line.toString('utf8').replace(/\uFFFD+$/, '').replace(/\s+$/, '');
}

/**
 * Runs the user's previous statusLine command through the shell with the same stdin; the first line of
 * its stdout (at most 4 KB), or ''. Reading stops at that line: a command that prints without end
 * (`yes`), hangs or outlives it is killed with its whole process group so the statusline still answers.
 */
export function runChained(command: string, stdin: string, cwd: string, env: Record<string, string | undefined>): Promise<string> {
  return new Promise((resolve) => {
    const chunks: Buffer[] = [];
    let kept = 0;
    let settled = false;
    const group = process.platform !== 'win32';
    // Loaded only when a command is chained: most statuslines never need it.
    // eslint-disable-next-line @typescript-eslint/no-require-imports
    const { spawn } = require('node:child_process') as ChildProcessModule;
    const child = spawn(command, { shell: true, cwd, env: env as NodeJS.ProcessEnv, stdio: ['pipe', 'pipe', 'ignore'], detached: group });
    const stop = () => {
      try {
        if (group && child.pid) process.kill(-child.pid, 'SIGKILL');
        else child.kill('SIGKILL');
      } catch {
        // already gone
      }
      child.stdout.destroy();
      child.unref();
    };
    const done = () => {
      if (settled) return;
      settled = true;
      clearTimeout(timer);
      resolve(firstChainedLine(Buffer.concat(chunks, kept)));
    };
    const timer = setTimeout(() => {
      stop();
      done();
    }, CHAIN_TIMEOUT_MS);
    child.stdout.on('data', (d: Buffer) => {
      if (settled) return;
      const room = CHAIN_MAX_BYTES + 1 - kept;
      const piece = d.length > room ? d.subarray(0, room) : d;
      chunks.push(piece);
      kept += piece.length;
      // The first line is complete (or the cap reached): nothing after it is ever shown.
      if (piece.includes(10) || kept > CHAIN_MAX_BYTES) {
        stop();
        done();
      }
    });
    child.on('error', done);
    child.on('close', done);
    child.stdin.on('error', () => undefined); // the command may not read its stdin
    child.stdin.end(stdin);
  });
}

/** Budget from `--warn-at` / `--urge-at`; an invalid pair falls back to the defaults (a statusline never fails). */
export function budgetOf(flags: FlagValues): Budget {
  const budget = {
    warnAt: typeof flags['warn-at'] === 'number' ? flags['warn-at'] : DEFAULT_BUDGET.warnAt,
    urgeAt: typeof flags['urge-at'] === 'number' ? flags['urge-at'] : DEFAULT_BUDGET.urgeAt,
  };
  return checkBudget(budget).ok ? budget : DEFAULT_BUDGET;
}

/** The reading for the statusLine input: its own usage, else the transcript's last call. */
async function readingOf(input: StatuslineInput, dir: string, options: { workbenchDir: string; outputDir: string }): Promise<ContextResult> {
  const usage = usageFromStatusline(input, new Date());
  // The reading is kept for the hooks and the editor in the output dir, beside the packets — never in
  // the repository root, where it would show as an untracked file. Only into an existing output dir
  // that really lies in the folder: a statusline must not create folders or write through a link.
  // Rewritten after every message, so not synced to disk: a crash loses one reading, never a torn file.
  const outputDir = outputDirOf(dir, options);
  const file = path.join(outputDir, GENERIC_USAGE_FILE);
  const record = async (content: Redacted): Promise<void> => {
    if (!(await files().stat(outputDir).then((s) => s.isDirectory(), () => false))) return;
    if (await assertOutputInside(dir, options).then(() => true, () => false)) await atomicWrite(file, content, { durable: false }).catch(() => undefined);
  };
  if (usage) {
    await record(formatGenericUsage(usage));
    return usageReading(usage, file);
  }
  if (input.transcript_path) {
    const fromTranscript = await claudeTranscriptReader(input.transcript_path).read();
    if (fromTranscript.known) {
      await record(formatGenericUsage({
        source: 'claude',
        session_id: input.session_id ?? fromTranscript.sessionId,
        used_tokens: fromTranscript.usedTokens,
        context_window: fromTranscript.windowTokens,
        updated_at: new Date().toISOString(),
        ...(fromTranscript.model ? { model: fromTranscript.model } : {}),
      }));
    }
    return fromTranscript;
  }
  return { known: false, source: 'claude', reason: 'no usage yet' };
}

/** The `clean · handoff fresh` parts; empty until the workbench state can be read. */
export type StatuslineExtras = (workspaceDir: string, flags: FlagValues) => Promise<string[]>;

async function ourLine(stdin: string, flags: FlagValues, io: CliIO, extras?: StatuslineExtras): Promise<string> {
  const parsed = parseStatuslineInput(stdin);
  if (!parsed.ok) return `ctx — · ${parsed.reason}`;
  const dir = path.resolve(io.cwd, parsed.dir);
  const options = {
    workbenchDir: typeof flags['workbench-dir'] === 'string' ? flags['workbench-dir'] : '.',
    outputDir: typeof flags['output-dir'] === 'string' && flags['output-dir'].trim() ? flags['output-dir'] : 'outputs/handoff',
  };
  try {
    outputDirOf(dir, options);
  } catch (err) {
    return `ctx — · ${(err as Error).message}`;
  }
  const reading = await readingOf(parsed.input, dir, options);
  const level = budgetLevel(asShown(reading), budgetOf(flags));
  const more = extras && (level === 'ok' || level === undefined) ? await extras(dir, flags).catch(() => []) : [];
  return statuslineText(reading, level, more);
}

/**
 * The full workbench reader, loaded only on a cache miss. A path chosen at run time keeps it out of the
 * statusline bundle (it brings the schema library and the git client); it sits beside this module both
 * bundled (dist/) and transpiled (out/).
 */
function loadWorkbenchWords(): typeof workbenchWords {
  // eslint-disable-next-line @typescript-eslint/no-require-imports
  const words = require(path.join(__dirname, 'statuslineWords.js')) as { workbenchWords: typeof workbenchWords; useBlockingFileAccess: typeof useBlockingFileAccess };
  // Its file operations block when this process's do: a one-shot statusline waits on nothing else.
  if (usesBlockingFileAccess()) words.useBlockingFileAccess();
  return words.workbenchWords;
}

/** `clean · handoff fresh` from the workbench state. */
// Async: a workbench or output dir outside the folder throws, and that must reject, not escape.
export const workbenchExtras: StatuslineExtras = async (workspaceDir, flags) => {
  const options = optionsOf(flags);
  return cachedWords(
    { workspaceDir, workbenchDir: workbenchDirOf(workspaceDir, options), outputDir: outputDirOf(workspaceDir, options) },
    () => loadWorkbenchWords()(workspaceDir, flags),
  );
};

/** Builds the command; `extras` supplies the clean-state and packet parts. */
export function statuslineCommand(extras: StatuslineExtras | undefined = workbenchExtras): CommandSpec {
  return {
    name: 'statusline',
    summary: 'Claude Code statusLine bridge: records context usage, prints one short line',
    usage: 'statusline [--chain "<command>"] [--workbench-dir DIR] [--warn-at F] [--urge-at F]',
    flags: [
      { name: 'chain', type: 'string', placeholder: 'COMMAND', help: 'your previous statusLine command: run with the same stdin, its output printed first' },
      { name: 'workbench-dir', type: 'string', placeholder: 'DIR', help: 'the workbench, relative to the session cwd (default: the cwd)' },
      { name: 'output-dir', type: 'string', placeholder: 'DIR', help: 'where packets go, relative to the workbench (default: outputs/handoff)' },
      { name: 'warn-at', type: 'number', placeholder: 'F', help: 'wrap-up threshold as a fraction (default 0.5)' },
      { name: 'urge-at', type: 'number', placeholder: 'F', help: 'urgent threshold as a fraction (default 0.75)' },
    ],
    async run({ flags, io }) {
      // Never fails loudly: Claude Code shows whatever we print, so every problem becomes a short line.
      let stdin = '';
      try {
        stdin = (await io.readStdin?.()) ?? '';
      } catch {
        // treated as empty input
      }
      const chain = typeof flags['chain'] === 'string' && flags['chain'].trim() ? runChained(flags['chain'], stdin, io.cwd, io.env) : undefined;
      const line = await ourLine(stdin, flags, io, extras).catch((err: unknown) => `ctx — · ${err instanceof Error ? err.message.split('\n')[0] : 'error'}`);
      const chained = chain ? await chain : '';
      if (chained) io.stdout(`${chained}\n`);
      io.stdout(`${line}\n`);
      return 0;
    },
  };
}
