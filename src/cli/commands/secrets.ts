import * as path from 'node:path';
import { displayPath } from '../../core/packet/secretRisks';
import type { SecretsReport, ScrubOutcome } from '../../core/workflow/secrets';
import { dbNotScrubbed, findSecrets, scrubEntry } from '../../core/workflow/secrets';
import { isKiloDbFile } from '../../core/session/kiloDb';
import type { SessionAgent } from '../../core/session/model';
import { createGitClient } from '../../git/gitClient';
import { DIR_FLAGS, JSON_FLAG, optionsOf, workspaceDirOf } from '../common';
import { SESSION_FLAGS, taskOptions } from '../context';
import type { CommandSpec } from '../types';
import { EXIT_OK, EXIT_REFUSED, UsageError } from '../types';

/** Sessions named in the listing when none of the rest holds a credential. */
const MAX_SESSIONS_LISTED = 20;

/** The listing for people: one numbered entry per credential, the sessions read, the next step. */
export function formatSecrets(report: SecretsReport, workspaceDir: string): string {
  const lines: string[] = [];
  const sure = report.risks.filter((r) => r.severity === 'block');
  const n = sure.length;
  const partly = report.notScanned ?? [];
  // "No credentials" is said only of what was read whole.
  const none = partly.length ? `No credentials found in what was read for ${workspaceDir}, but ${partly.length === 1 ? 'one file was' : `${partly.length} files were`} NOT fully scanned (see below).` : `No credentials found for ${workspaceDir}.`;
  lines.push(n ? `${n} credential${n === 1 ? '' : 's'} found for ${workspaceDir} (masked here; the files still hold them):` : none);
  // The risk's words are the packet's; here nothing is a packet, and the listing masks what it shows.
  sure.forEach((r, i) => lines.push(`  ${i + 1}. ${r.detail.replace(' (masked in this packet)', '')}`));
  for (const r of report.risks.filter((x) => x.severity !== 'block')) lines.push(`Possible credentials (a warning): ${r.detail.replace(' in this packet', ' here')}`);
  // Those holding credentials first; past a screenful the clean ones are only counted (5 000 tasks were 600 KB).
  const sorted = [...report.sessions].sort((a, b) => Number(b.credentials > 0) - Number(a.credentials > 0));
  const shown = sorted.filter((s, i) => s.credentials > 0 || i < MAX_SESSIONS_LISTED);
  const read = shown.map((s) => `${s.task ? `${s.task}: ` : ''}${displayPath(s.file)} (${s.credentials})`);
  const more = report.sessions.length - shown.length;
  lines.push(read.length ? `Sessions read: ${read.join(', ')}${more ? `, and ${more} more without credentials` : ''}.` : 'No agent session found for the folder.');
  for (const p of partly) lines.push(`Not fully scanned: ${displayPath(p.file)}: ${p.message}; a credential in the part not read is neither found nor masked.`);
  if (report.sessions.some((s) => s.credentials > 0 && !isKiloDbFile(s.file))) lines.push('Mask them in the session files with: handoff secrets --scrub');
  for (const [agent, name] of [['kilo', 'Kilo Code'], ['opencode', 'OpenCode']] as const) {
    if (report.sessions.some((s) => s.credentials > 0 && s.agent === agent && isKiloDbFile(s.file))) lines.push(`${dbNotScrubbed(name)}.`);
  }
  const agents = [...new Set(report.sessions.filter((s) => s.task && s.credentials > 0 && !isKiloDbFile(s.file)).map((s) => s.task!.replace(/ task .*$/, '')))];
  if (agents.length) lines.push(`Close the task in ${agents.join(' and ')} first: the agent rewrites a task's files whole on its next save, and a task it still has open would get its unmasked copy back.`);
  return `${lines.join('\n')}\n`;
}

function formatScrub(o: ScrubOutcome): string {
  const file = displayPath(o.file);
  const swept = o.leftovers ? `removed ${o.leftovers} hidden cop${o.leftovers === 1 ? 'y' : 'ies'} an earlier scrub left beside ${file}\n` : '';
  const left = o.kind === 'scrubbed' && o.left ? `; ${o.left.count} not masked: ${o.left.reason}` : '';
  if (o.kind === 'scrubbed' && o.task) {
    const agent = o.task.replace(/ task .*$/, '');
    const at = o.messages?.length ? ` (message${o.messages.length === 1 ? '' : 's'} index ${o.messages.join(', ')})` : '';
    return `${swept}masked ${o.masked} credential${o.masked === 1 ? '' : 's'} in ${o.task}: ${file}${at}${left}; ${agent} must not be running this task: it rewrites the file whole on its next save (close the task, or reopen it only after the scrub)\n`;
  }
  if (o.kind === 'scrubbed') return `${swept}masked ${o.masked} credential${o.masked === 1 ? '' : 's'} in ${file} (line${o.lines.length === 1 ? '' : 's'} ${o.lines.join(', ')})${left}\n`;
  if (o.kind === 'clean') return `${swept}nothing to mask in ${file}\n`;
  return `${swept}not scrubbed: ${file}: ${o.reason}\n`;
}

/** `handoff secrets`: the credentials the folder's inputs hold, and (`--scrub`) masking them in the session files. */
export const secretsCommand: CommandSpec = {
  name: 'secrets',
  summary: 'list every credential in the workbench files, the agent sessions and the Cline / Roo Code / Zoo Code / Kilo Code tasks; --scrub masks them in the session and task files (not in a database)',
  usage: 'secrets [--dir DIR] [--json] [--scrub [--force]] [--session FILE]',
  flags: [
    ...DIR_FLAGS,
    ...SESSION_FLAGS,
    { name: 'session', type: 'string', placeholder: 'FILE', help: 'a session file to read as well (Claude Code .jsonl, or a Codex rollout-*.jsonl or .jsonl.zst)' },
    { name: 'scrub', type: 'boolean', help: 'mask each credential in the session and task files in place, byte for byte (the same file, the same size, JSON kept valid; a compressed file is refused; close a task in its agent first)' },
    { name: 'force', type: 'boolean', help: 'with --scrub: also mask a session written to in the last minute' },
    JSON_FLAG,
  ],
  async run({ flags, io }) {
    const workspaceDir = await workspaceDirOf(flags, io);
    if (flags['force'] && !flags['scrub']) throw new UsageError('--force only goes with --scrub');
    const str = (k: string): string | undefined => (typeof flags[k] === 'string' ? path.resolve(workspaceDir, flags[k]) : undefined);
    const session = str('session');
    const agent: SessionAgent = session && path.basename(session).startsWith('rollout-') ? 'codex' : 'claude-code';
    const report = await findSecrets({
      workspaceDir,
      options: optionsOf(flags),
      ...(str('claude-config-dir') ?? io.env['CLAUDE_CONFIG_DIR'] ? { claudeConfigDir: str('claude-config-dir') ?? io.env['CLAUDE_CONFIG_DIR'] } : {}),
      ...(str('codex-home') ?? io.env['CODEX_HOME'] ? { codexHome: str('codex-home') ?? io.env['CODEX_HOME'] } : {}),
      ...(session ? { sessionFiles: [{ file: session, agent }] } : {}),
      tasks: taskOptions(workspaceDir, flags),
      git: createGitClient(workspaceDir),
    });
    let scrubbed: ScrubOutcome[] = [];
    if (flags['scrub']) {
      for (const s of report.sessions.filter((x) => x.credentials > 0)) scrubbed.push(await scrubEntry(s, { force: !!flags['force'] }));
    }
    if (flags['json']) {
      const credentials = report.risks.map((r) => ({ id: r.id, severity: r.severity, detail: r.detail, source: r.source }));
      // `block`: a value with a secret's shape, to rotate now; `warn`: a key name with a value of no such shape.
      const places = report.findings.map((f) => ({ kind: f.label, severity: f.weak ? 'warn' : 'block', fingerprint: f.fingerprint ?? null, file: f.file, line: f.line, lines: f.lines ?? (f.line ? [f.line] : []), printedBy: f.printedBy ?? null, session: !!f.session, ...(f.messages ? { messages: f.messages } : {}) }));
      io.stdout(`${JSON.stringify({ folder: workspaceDir, credentials, places, sessions: report.sessions, notScanned: report.notScanned, ...(flags['scrub'] ? { scrubbed } : {}) }, null, 2)}\n`);
    } else {
      io.stdout(formatSecrets(report, workspaceDir));
      for (const o of scrubbed) io.stdout(formatScrub(o));
    }
    // A credential left unmasked is a refusal too: the command did not do all it was asked.
    scrubbed = scrubbed.filter((o) => o.kind === 'refused' || (o.kind === 'scrubbed' && o.left));
    return scrubbed.length ? EXIT_REFUSED : EXIT_OK;
  },
};
