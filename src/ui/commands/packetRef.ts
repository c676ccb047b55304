import * as vscode from 'vscode';
import type { Services } from '../services';
import type { PromptExtra } from '../../core/render/prompt';
import { framed, handoffTrust, promptFraming, type PacketTrust } from '../../core/registry/trust';
import type { PacketEntry, WorkbenchUiState } from '../state/types';
import { UserFacingError } from './boundary';

/**
 * What a packet command may be given: nothing (palette: the active folder's active packet), a packet
 * id, a `{ packetId, folderUri }` node from the Handoffs view or the panel, or a folder/file uri.
 */
export type PacketArg = undefined | string | vscode.Uri | { packetId?: string; folderUri?: vscode.Uri | string };

/** The folder a command acts on, from its argument, else the active folder. */
export function folderOf(services: Services, arg: PacketArg): vscode.WorkspaceFolder {
  let uri: vscode.Uri | undefined;
  if (arg instanceof vscode.Uri) uri = arg;
  else if (arg && typeof arg === 'object' && arg.folderUri) uri = typeof arg.folderUri === 'string' ? vscode.Uri.parse(arg.folderUri) : arg.folderUri;
  const folder = uri ? vscode.workspace.getWorkspaceFolder(uri) : services.folderFor();
  if (!folder) throw new UserFacingError('Open a folder first: Session Handoff works on a workspace folder.');
  return folder;
}

/** The packet id a command was given, if any. */
export function packetIdOf(arg: PacketArg): string | undefined {
  if (typeof arg === 'string') return arg;
  if (arg && typeof arg === 'object' && !(arg instanceof vscode.Uri)) return arg.packetId;
  return undefined;
}

/** The folder's UI state, refreshing once when the pipeline has not published it yet. */
export async function stateOf(services: Services, folder: vscode.WorkspaceFolder): Promise<WorkbenchUiState> {
  let state = services.state.get(folder);
  if (!state || state.phase === 'loading') {
    await services.state.refresh(folder, 'command');
    state = services.state.get(folder);
  }
  if (!state) throw new UserFacingError(`Session Handoff could not read ${folder.name} yet; try again in a moment.`);
  return state;
}

/**
 * Resolves the packet a command acts on: the given id, else the active packet for the current
 * branch + topic. Throws a user-facing error (with Generate Handoff as the action) when there is none.
 */
export async function resolvePacket(services: Services, arg: PacketArg): Promise<{ state: WorkbenchUiState; entry: PacketEntry }> {
  const folder = folderOf(services, arg);
  const id = packetIdOf(arg);
  const pick = (s: WorkbenchUiState) => (id ? s.packets.find((p) => p.id === id) : s.activePacket);
  let state = await stateOf(services, folder);
  let entry = pick(state);
  if (!entry) {
    // A packet written a moment ago (Generate Handoff still finishing, the CLI, an agent's hook) may
    // not be in the published state yet: read the folder once more before saying there is none.
    await services.state.refresh(folder, 'command');
    state = services.state.get(folder) ?? state;
    entry = pick(state);
  }
  if (entry) return { state, entry };
  if (id) throw new UserFacingError(`Handoff packet ${id} is no longer in ${state.outputDir}.`);
  throw new UserFacingError(`No active handoff packet in ${folder.name} for this branch yet.`, {
    title: 'Generate Handoff',
    run: () => vscode.commands.executeCommand('sessionHandoff.generateHandoff', { folderUri: folder.uri }),
  });
}

/**
 * The packet a prompt command acts on, with what every restart prompt of it is rendered with: what
 * it may be to the next session (`handoffTrust`, the one rule the SessionStart hook and `handoff
 * prompt` use), its framing (stale reasons; a packet not written here opens with NOT_WRITTEN_HERE and
 * is never "act right away"), the risk acknowledgements and the first-turn setting of its folder.
 * `frame` puts the header over the rendered prompt: every prompt command passes its text through it.
 */
export async function resolvePromptPacket(
  services: Services,
  arg: PacketArg,
): Promise<{ state: WorkbenchUiState; entry: PacketEntry; extra: PromptExtra; trust: PacketTrust; frame: (body: string) => string }> {
  const { state, entry } = await resolvePacket(services, arg);
  const acks = await services.acks.read(entry.dir, entry.packet.open_risks);
  const settings = services.config.get(state.folder.uri);
  const trust = await handoffTrust({ stored: entry, freshness: entry.freshness, facts: state.git?.ok ? state.git.facts : null });
  const { header, ...framing } = promptFraming(trust, entry.freshness, settings.options.firstTurn || undefined);
  // Every prompt command of the editor copies: the prompt says it came through the clipboard.
  const extra: PromptExtra = { ...framing, acknowledged: acks.map((a) => ({ id: a.risk_id, by: a.by, at: a.at })), door: 'clipboard' };
  return { state, entry, extra, trust, frame: (body) => framed(header, body) };
}

/** What a prompt command's message adds about the packet's trust ('' for one ours and fresh). */
export function trustNote(trust: PacketTrust): string {
  if (trust.kind === 'instruction') return '';
  return trust.kind === 'stale' ? ' The packet is stale; the prompt says so.' : ' The packet was not written here; the prompt says so.';
}
