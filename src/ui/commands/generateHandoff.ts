import * as path from 'node:path';
import * as vscode from 'vscode';
import { NO_SESSION_FOUND, sessionSearchOf } from '../../core/context/discovery';
import { ledgerKeyProblem } from '../../core/registry/ownership';
import { generateHandoff } from '../../core/workflow/generate';
import { workbenchDirOf } from '../../core/workflow/paths';
import { createGitClient } from '../../git/gitClient';
import type { GenerateOutcome } from '../../core/workflow/generate';
import type { Services } from '../services';
import { UserFacingError } from './boundary';
import type { ConfirmDirty } from './dirtyModal';
import type { PacketArg } from './packetRef';
import { folderOf, stateOf } from './packetRef';
import { uiText } from '../redactUi';

export interface GenerateDeps {
  /** The dirty-workbench modal; a getter so tests can swap the edge without re-registering. */
  confirmDirty: () => ConfirmDirty;
}

/** A packet argument, or `{ folderUri, goal }`: the goal for the next session (Generate Handoff…). */
export type GenerateArg = PacketArg | { folderUri?: vscode.Uri | string; goal?: string };

/** The goal a generate was given, if any. */
function goalOf(arg: GenerateArg): string | undefined {
  return arg && typeof arg === 'object' && !(arg instanceof vscode.Uri) && 'goal' in arg && typeof arg.goal === 'string' ? arg.goal : undefined;
}

/**
 * Asks for the next session's goal (optional). Resolves undefined when the person cancels, '' for
 * no goal.
 */
export function askGoal(): Thenable<string | undefined> {
  return vscode.window.showInputBox({
    title: 'Generate Handoff…',
    prompt: 'What should the next session achieve? It becomes the first line of the restart prompt (the next action stays the first step). Leave empty for none.',
    placeHolder: 'e.g. Ship partial refunds behind the feature flag',
    ignoreFocusOut: true,
  });
}

/** What the command resolves with, for callers that chain on it (tests, the panel). */
export type GenerateResult = {
  kind: GenerateOutcome['kind'] | 'cancelled';
  packetId?: string;
  reason?: string;
  /** Why the packet cannot be vouched for as written here (an unusable ledger key), when it cannot. */
  keyProblem?: string;
};

/**
 * `sessionHandoff.generateHandoff` (and `regenerate`): checks the workbench first; when dirty, asks
 * through the modal with the findings (Generate Anyway → findings become block risks; Show Clean State → reveal the
 * view); generates with a progress notification; opens the panel on the result.
 */
export function generateHandoffCommand(services: Services, deps: GenerateDeps): (arg?: GenerateArg) => Promise<GenerateResult> {
  return async (arg) => {
    const folder = folderOf(services, arg as PacketArg);
    const goal = goalOf(arg);
    if (!vscode.workspace.isTrusted) {
      throw new UserFacingError('Session Handoff writes nothing in an untrusted workspace; trust it to generate a handoff.', {
        title: 'Manage Workspace Trust',
        run: () => vscode.commands.executeCommand('workbench.trust.manage'),
      });
    }
    const settings = services.config.get(folder.uri);
    // The context reading at generation goes into the packet: wait for the folder's first state so
    // that a generate right after start-up does not record "no reading" where there is one.
    const { context, session } = await stateOf(services, folder);
    // Where the session was looked for, so that a refusal without one says so.
    const sessionSearch = session
      ? null
      : await sessionSearchOf({ folder: folder.uri.fsPath, claudeConfigDir: settings.context.claudeConfigDir || undefined, codexHome: settings.context.codexHome || undefined }).catch(() => null);
    const run = (allowDirty: boolean, title: string) =>
      vscode.window.withProgress({ location: vscode.ProgressLocation.Notification, title, cancellable: false }, () =>
        generateHandoff({
          workspaceDir: folder.uri.fsPath,
          options: settings.options,
          allowDirty,
          gitClient: createGitClient(folder.uri.fsPath),
          context,
          goal: goal ?? null,
          // The agent session the views were built from fills in what the workbench files do not say.
          session,
          sessionSearch,
        }),
      );
    // The core checks the workbench itself, right now, and refuses with the findings when it is dirty:
    // the modal then shows exactly what the check found, not an older published state.
    let outcome = await run(false, `Checking the workbench in ${folder.name}…`);
    if (outcome.kind === 'refused' && outcome.findings?.length) {
      const choice = await deps.confirmDirty()(folder.name, outcome.findings);
      if (choice === 'showCleanState') {
        await vscode.commands.executeCommand('sessionHandoff.cleanState.focus');
        return { kind: 'cancelled' };
      }
      if (choice !== 'generateAnyway') return { kind: 'cancelled' };
      services.log.info('generate', `generating on a dirty workbench (${outcome.findings.length} findings accepted)`);
      outcome = await run(true, `Generating handoff for ${folder.name}…`);
    }
    for (const d of outcome.diagnostics) services.log.warn('generate', `${d.file}${d.line ? `:${d.line}` : ''}: ${d.message}`);
    if (outcome.kind === 'refused') return refused(services, workbenchDirOf(folder.uri.fsPath, settings.options), outcome.reason);
    const id = path.basename(outcome.packetDir);
    services.log.info('generate', `${outcome.kind}: ${outcome.packetDir}${outcome.superseded?.length ? ` (superseded ${outcome.superseded.join(', ')})` : ''}`);
    await services.state.refresh(folder, 'generated');
    await vscode.commands.executeCommand('sessionHandoff.openActiveHandoff', { folderUri: folder.uri });
    const message = outcome.kind === 'written' ? `Handoff ${id} written.` : `Nothing changed since handoff ${id}; no new packet was written.`;
    void vscode.window.showInformationMessage(message);
    // A packet this user's ledger cannot vouch for reads as not written here everywhere (the panel, the
    // next session): say so now, as the command line does, not leave it to be found later.
    const keyProblem = await ledgerKeyProblem().catch(() => null);
    if (keyProblem) {
      const text = uiText(`Handoff ${id} cannot be recorded as written here: ${keyProblem}.`);
      services.log.warn('generate', text);
      void vscode.window.showWarningMessage(text);
      return { kind: outcome.kind, packetId: id, keyProblem: text };
    }
    return { kind: outcome.kind, packetId: id };
  };
}

/** A refusal is one sentence; when the next action is missing, the action opens agent_state.json. */
function refused(services: Services, workbenchDir: string, reason: string): GenerateResult {
  services.log.warn('generate', `refused: ${reason}`);
  if (reason.startsWith(NO_SESSION_FOUND)) {
    // Where it looked is in the log; the person needs the setting that says where the agent keeps its sessions.
    void vscode.window.showWarningMessage(uiText(`No handoff written: ${reason.replace(/ — looked in: [\s\S]*$/, '')}.`), 'Open Settings').then((pick) => {
      if (pick) void vscode.commands.executeCommand('workbench.action.openSettings', 'sessionHandoff.context');
    });
  } else if (/next.?action|agent_state/i.test(reason)) {
    // The full reason (what could not be derived) is in the log; the user needs the one step to take.
    const sentence = 'No handoff written: record one concrete next step as "next_action" in agent_state.json.';
    const file = vscode.Uri.file(path.join(workbenchDir, 'agent_state.json'));
    void vscode.window.showWarningMessage(sentence, 'Open agent_state.json').then((pick) => {
      if (pick) void vscode.window.showTextDocument(file);
    });
  } else {
    void vscode.window.showWarningMessage(uiText(`No handoff written: ${reason.replace(/\.$/, '')}.`), 'Show Clean State').then((pick) => {
      if (pick) void vscode.commands.executeCommand('sessionHandoff.cleanState.focus');
    });
  }
  return { kind: 'refused', reason };
}
