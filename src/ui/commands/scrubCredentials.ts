import * as vscode from 'vscode';
import { displayPath } from '../../core/packet/secretRisks';
import type { ScrubOutcome, SecretsReport } from '../../core/workflow/secrets';
import { findSecrets, scrubEntry } from '../../core/workflow/secrets';
import { createGitClient } from '../../git/gitClient';
import { redact } from '../../core/redact';
import type { Services } from '../services';
import { UserFacingError } from './boundary';
import type { PacketArg } from './packetRef';
import { folderOf } from './packetRef';

/** The modal's question; tests pick its button at this edge. */
export type ConfirmScrub = (message: string, detail: string) => Thenable<boolean>;

const SCRUB = 'Scrub Sessions';

/** The real confirmation: a modal listing every credential, with one button that scrubs. */
export const confirmScrubModal: ConfirmScrub = async (message, detail) => (await vscode.window.showWarningMessage(message, { modal: true, detail }, SCRUB)) === SCRUB;

/** The modal's text: how many credentials in which sessions, one line per credential. */
export function scrubConfirmation(report: SecretsReport): { message: string; detail: string } {
  const sessions = report.sessions.filter((s) => s.credentials > 0);
  const inSessions = report.risks.filter((r) => sessions.some((s) => r.detail.includes(displayPath(s.file))));
  const n = inSessions.length;
  const message = `Mask ${n} credential${n === 1 ? '' : 's'} in ${sessions.length} agent session file${sessions.length === 1 ? '' : 's'}?`;
  const detail = [
    ...inSessions.map((r, i) => `${i + 1}. ${r.detail.split(' Fix:')[0]}`),
    '',
    `Each credential is masked in place, byte for byte (the same file and size, every line still valid JSON; a compressed file is refused). Masking does not make a leaked credential safe: rotate it too.`,
    ...(sessions.some((s) => s.task) ? ['Close the Cline / Roo Code / Kilo Code task first: the agent rewrites its files whole on its next save, and would write the credential back.'] : []),
  ].join('\n');
  return { message: redact(message), detail: redact(detail) };
}

function summary(outcomes: ScrubOutcome[]): string {
  const done = outcomes.filter((o): o is Extract<ScrubOutcome, { kind: 'scrubbed' }> => o.kind === 'scrubbed');
  const masked = done.reduce((n, o) => n + o.masked, 0);
  const refused = outcomes.filter((o): o is Extract<ScrubOutcome, { kind: 'refused' }> => o.kind === 'refused');
  const parts = [`Masked ${masked} credential${masked === 1 ? '' : 's'} in ${done.length} session file${done.length === 1 ? '' : 's'}.`];
  for (const o of done) if (o.left) parts.push(`${o.left.count} not masked in ${displayPath(o.file)}: ${o.left.reason}.`);
  for (const r of refused) parts.push(`Not scrubbed: ${displayPath(r.file)}: ${r.reason}`);
  return redact(parts.join(' '));
}

/**
 * `sessionHandoff.scrubCredentials`: lists the credentials the folder's agent sessions hold in a modal
 * and, once confirmed, masks each credential in those session files in place, byte for byte.
 * Resolves with the outcomes, or undefined when cancelled or nothing was found.
 */
export function scrubCredentialsCommand(services: Services, confirm: () => ConfirmScrub = () => confirmScrubModal): (arg?: PacketArg) => Promise<ScrubOutcome[] | undefined> {
  return async (arg) => {
    const folder = folderOf(services, arg);
    if (!vscode.workspace.isTrusted) throw new UserFacingError('Session Handoff writes nothing in an untrusted workspace.');
    const settings = services.config.get(folder.uri);
    const report = await vscode.window.withProgress({ location: vscode.ProgressLocation.Notification, title: 'Looking for credentials in the agent sessions…' }, () =>
      findSecrets({
        workspaceDir: folder.uri.fsPath,
        options: settings.options,
        ...(settings.context.claudeConfigDir ? { claudeConfigDir: settings.context.claudeConfigDir } : {}),
        ...(settings.context.codexHome ? { codexHome: settings.context.codexHome } : {}),
        git: createGitClient(folder.uri.fsPath),
      }),
    );
    const files = report.sessions.filter((s) => s.credentials > 0);
    if (!files.length) {
      void vscode.window.showInformationMessage(`No credentials in the agent sessions of ${folder.name}.`);
      return undefined;
    }
    const { message, detail } = scrubConfirmation(report);
    if (!(await confirm()(message, detail))) return undefined;
    const outcomes: ScrubOutcome[] = [];
    for (const s of files) outcomes.push(await scrubEntry(s));
    services.log.info('scrub', summary(outcomes));
    await services.state.refresh(folder, 'scrubbed');
    const text = summary(outcomes);
    if (outcomes.some((o) => o.kind === 'refused' || (o.kind === 'scrubbed' && o.left))) void vscode.window.showWarningMessage(text);
    else void vscode.window.showInformationMessage(text);
    return outcomes;
  };
}
