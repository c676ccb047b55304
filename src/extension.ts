import * as path from 'node:path';
import * as vscode from 'vscode';
import { createGitClient } from './git/gitClient';
import { registerViewActions } from './ui/actions/registerViewActions';
import type { ViewActions } from './ui/actions/registerViewActions';
import { registerPacketCommands } from './ui/commands/registerPacketCommands';
import type { PacketCommands } from './ui/commands/registerPacketCommands';
import { ConfigService } from './ui/config';
import { createLog } from './ui/log';
import type { Services } from './ui/services';
import { SidecarAckService } from './ui/state/ackService';
import { budgetFor, createContextPort } from './ui/state/contextPort';
import { loadFolderState } from './ui/state/load';
import type { StatePorts } from './ui/state/ports';
import { WorkbenchStateService } from './ui/state/stateService';
import { StatusBarController } from './ui/statusBar';
import { SidebarViews } from './ui/views/registerViews';
import { AgentSetup } from './ui/setup/connectAgent';
import { AgentTools } from './ui/agentTools';
import { openWalkthroughOnce, registerShowContextUsage } from './ui/walkthrough';
import { WrapUpPrompter } from './ui/wrapUp';

/** What activate() returns: the live objects, for the in-host tests. */
export interface ExtensionApi {
  services: Services;
  packetCommands: PacketCommands;
  statusBar: StatusBarController;
  wrapUp: WrapUpPrompter;
  views: SidebarViews;
  viewActions: ViewActions;
  agentSetup: AgentSetup;
  agentTools: AgentTools;
}

/** Composition root: builds services and registers views and commands. No I/O happens here. */
export function activate(context: vscode.ExtensionContext): ExtensionApi {
  const own = <T extends vscode.Disposable>(d: T): T => {
    context.subscriptions.push(d);
    return d;
  };
  const log = own(createLog());
  const config = own(new ConfigService(log));
  const ports: StatePorts = {
    load: (input) => loadFolderState(input, { git: createGitClient, budget: (i) => budgetFor(i.context.result, i.settings) }),
    // Cline, Roo Code, Zoo Code and Kilo Code's older builds keep their tasks next to ours, in this editor's global storage.
    createContext: (folder, settings, onSessionRead) =>
      createContextPort(folder, settings, onSessionRead, {
        globalStorageRoot: path.dirname(context.globalStorageUri.fsPath),
        rooCustomStoragePath: vscode.workspace.getConfiguration('roo-cline', folder.uri).get<string>('customStoragePath') || undefined,
        zooCustomStoragePath: vscode.workspace.getConfiguration('zoo-code', folder.uri).get<string>('customStoragePath') || undefined,
      }),
    budget: budgetFor,
  };
  const state = own(new WorkbenchStateService(config, ports, log));
  const services: Services = {
    extensionUri: context.extensionUri,
    log,
    config,
    state,
    acks: new SidecarAckService(state, log),
    folderFor: (uri) => (uri && vscode.workspace.getWorkspaceFolder(uri)) || state.activeFolder || vscode.workspace.workspaceFolders?.[0],
  };
  const views = own(new SidebarViews(services));
  const statusBar = own(new StatusBarController(services));
  const wrapUp = own(new WrapUpPrompter(services));
  const { disposables, ...viewActions } = registerViewActions(services, wrapUp);
  disposables.forEach(own);
  const packetCommands = registerPacketCommands(services, context);
  const agentSetup = own(new AgentSetup(services, context));
  own(registerShowContextUsage(services));
  // The MCP server and the #handoff chat tool, where this VS Code has their APIs.
  const agentTools = own(new AgentTools(services, () => agentSetup.launcher()));
  // After activation, off its path: refresh the launcher the agent's hooks call (a new version ships a
  // new CLI), and show the walkthrough on the very first activation.
  setTimeout(() => {
    agentSetup.launcher().catch((err: unknown) => log.warn('setup', `the launcher could not be written: ${err instanceof Error ? err.message : String(err)}`));
    openWalkthroughOnce(context, services).catch((err: unknown) => log.warn('walkthrough', String(err)));
  }, 0);
  // Providers, status bar and commands exist before any reading starts; the first refresh fills them.
  state.start();
  log.info('extension', `activated for ${vscode.workspace.workspaceFolders?.length ?? 0} folder(s)`);
  return { services, packetCommands, statusBar, wrapUp, views, viewActions, agentSetup, agentTools };
}

export function deactivate(): void {
  // Everything is disposed through context.subscriptions.
}
