import * as os from 'node:os';
import * as path from 'node:path';
import { acksForRisks, riskKey, writeAck } from '../../core/acks';
import type { Risk } from '../../core/packet/schema';
import type { Ack } from '../../core/acks';
import { UserFacingError } from '../commands/boundary';
import type { Log } from '../log';
import type { AckService, StateService } from '../services';
import type { UiRisk, WorkbenchUiState } from './types';

/**
 * Where a folder's acknowledgements are written: next to the active packet (so they travel with
 * it into the restart prompt), else in the output dir until a packet exists.
 */
export function ackDirOf(state: Pick<WorkbenchUiState, 'activePacket' | 'outputDir'>): string {
  return state.activePacket?.dir ?? state.outputDir;
}

/** Who acknowledges: the OS user (VS Code exposes no user identity to extensions). */
function currentUser(): string {
  try {
    return os.userInfo().username || 'unknown';
  } catch {
    return process.env.USER ?? process.env.USERNAME ?? 'unknown';
  }
}

/** Acknowledgements through the core sidecar file, followed by a refresh of the folder. */
export class SidecarAckService implements AckService {
  constructor(
    private readonly state: StateService,
    private readonly log: Log,
  ) {}

  async acknowledge(state: WorkbenchUiState, risk: UiRisk, note?: string): Promise<Ack> {
    if (!state.trusted) throw new UserFacingError('This workspace is not trusted, so Session Handoff writes nothing.');
    if (risk.ack) return risk.ack;
    const ack: Ack = { risk_id: risk.risk.id, risk_key: riskKey(risk.risk), by: currentUser(), at: new Date().toISOString(), ...(note ? { note } : {}) };
    const dir = ackDirOf(state);
    const written = await writeAck(dir, ack);
    if (!written.ok) {
      throw new UserFacingError(`Cannot record the acknowledgement: ${written.error.file} is unreadable (${written.error.message}).`);
    }
    this.log.info('acks', `${risk.risk.id} acknowledged by ${ack.by} in ${dir}`);
    await this.state.refresh(state.folder, 'risk acknowledged');
    return written.value.acks.find((a) => a.risk_id === ack.risk_id && a.risk_key === ack.risk_key) ?? ack;
  }

  /** The acknowledgements that apply to a packet's risks (see `acksForRisks`); unreadable sidecars are logged. */
  async read(packetDir: string, risks: readonly Risk[]): Promise<Ack[]> {
    const { acks, diagnostics } = await acksForRisks(path.dirname(packetDir), packetDir, risks);
    for (const d of diagnostics) this.log.warn('acks', `${d.file}: ${d.message}`);
    return acks;
  }
}
