import * as vscode from 'vscode';
import { PanelController } from '../panel/panelController';
import type { Services } from '../services';
import { archiveHandoffCommand } from './archiveHandoff';
import { commandBoundary } from './boundary';
import { copyJsonCommand } from './copyJson';
import { copyAsNewTaskCommand } from './copyAsNewTask';
import { copyPrSummaryCommand } from './copyPrSummary';
import { copyRestartPromptCommand } from './copyRestartPrompt';
import type { ConfirmDirty } from './dirtyModal';
import { confirmDirtyModal } from './dirtyModal';
import { askGoal, generateHandoffCommand } from './generateHandoff';
import type { GenerateArg } from './generateHandoff';
import { openMarkdownCommand } from './openMarkdown';
import { openPacketCommand } from './openPacket';
import type { ConfirmScrub } from './scrubCredentials';
import { confirmScrubModal, scrubCredentialsCommand } from './scrubCredentials';
import type { ConfirmTrust } from './trustPacket';
import { confirmTrustModal, trustPacketCommand } from './trustPacket';

/** What the packet commands expose to the composition root (and, through it, to in-host tests). */
export interface PacketCommands {
  readonly panels: PanelController;
  /**
   * Replaces the dirty-workbench modal (the one user prompt of the generate flow); returns a
   * disposable that restores the real modal. Only tests use this, to pick a button at the edge.
   */
  overrideConfirmDirty(fn: ConfirmDirty): vscode.Disposable;
  /** Replaces the scrub confirmation modal (tests pick its button); returns a disposable that restores it. */
  overrideConfirmScrub(fn: ConfirmScrub): vscode.Disposable;
  /** Replaces the Trust This Packet modal (tests pick its button); returns a disposable that restores it. */
  overrideConfirmTrust(fn: ConfirmTrust): vscode.Disposable;
}

/**
 * Registers the handoff panel (with its serializer) and the packet commands: generateHandoff,
 * regenerate, copyRestartPrompt, copyJson, copyPrSummary, trustPacket, openMarkdown, openActiveHandoff, openPacket, archiveHandoff,
 * scrubCredentials.
 * Everything is disposed through `context.subscriptions`.
 */
export function registerPacketCommands(services: Services, context: vscode.ExtensionContext): PacketCommands {
  const panels = new PanelController(services);
  context.subscriptions.push(panels);
  let confirm: ConfirmDirty = confirmDirtyModal;
  let confirmScrub: ConfirmScrub = confirmScrubModal;
  let confirmTrust: ConfirmTrust = confirmTrustModal;
  const generate = generateHandoffCommand(services, { confirmDirty: () => confirm });
  const open = openPacketCommand(services, panels);
  const handlers: Record<string, (...args: never[]) => Promise<unknown>> = {
    'sessionHandoff.generateHandoff': generate,
    'sessionHandoff.regenerate': generate,
    // Generate Handoff…: the same, with the next session's goal asked first (Escape cancels).
    'sessionHandoff.generateHandoffWithGoal': async (arg?: GenerateArg) => {
      const goal = await askGoal();
      if (goal === undefined) return { kind: 'cancelled' };
      const folderUri = arg && typeof arg === 'object' && !(arg instanceof vscode.Uri) ? arg.folderUri : arg instanceof vscode.Uri ? arg : undefined;
      return generate({ folderUri, goal });
    },
    'sessionHandoff.copyRestartPrompt': copyRestartPromptCommand(services),
    'sessionHandoff.copyAsNewTask': copyAsNewTaskCommand(services),
    'sessionHandoff.copyJson': copyJsonCommand(services),
    'sessionHandoff.copyPrSummary': copyPrSummaryCommand(services),
    'sessionHandoff.trustPacket': trustPacketCommand(services, () => confirmTrust),
    'sessionHandoff.openMarkdown': openMarkdownCommand(services),
    'sessionHandoff.openActiveHandoff': open,
    'sessionHandoff.openPacket': open,
    'sessionHandoff.archiveHandoff': archiveHandoffCommand(services),
    'sessionHandoff.scrubCredentials': scrubCredentialsCommand(services, () => confirmScrub),
  };
  for (const [id, handler] of Object.entries(handlers)) {
    context.subscriptions.push(vscode.commands.registerCommand(id, commandBoundary(services.log, id, handler)));
  }
  return {
    panels,
    overrideConfirmDirty(fn) {
      confirm = fn;
      return { dispose: () => void (confirm = confirmDirtyModal) };
    },
    overrideConfirmScrub(fn) {
      confirmScrub = fn;
      return { dispose: () => void (confirmScrub = confirmScrubModal) };
    },
    overrideConfirmTrust(fn) {
      confirmTrust = fn;
      return { dispose: () => void (confirmTrust = confirmTrustModal) };
    },
  };
}
