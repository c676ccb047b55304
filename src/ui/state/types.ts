import type * as vscode from 'vscode';
import type { Ack } from '../../core/acks';
import type { WorkbenchSnapshot } from '../../core/artifacts/snapshot';
import type { CleanReport } from '../../core/clean/types';
import type { BudgetLevel, ContextResult, ContextSource } from '../../core/context/types';
import type { Diagnostic } from '../../core/diagnostics';
import type { GitErrorCode, GitFacts } from '../../core/gitPort';
import type { Packet, Risk } from '../../core/packet/schema';
import type { SessionFacts } from '../../core/session/model';

/** Whether the packet still describes the repository (DESIGN §3 freshness). */
export interface PacketFreshness {
  stale: boolean;
  /** One sentence per reason: "HEAD moved 3 commits", "branch is main, packet was for feat/x", … */
  reasons: string[];
  commitsBehind?: number;
}

/** A packet found in the output dir, with where it lives and whether it is fresh. */
export interface PacketEntry {
  id: string;
  /** Absolute folder of the packet (holds handoff.json, handoff.md, acks.json). */
  dir: string;
  packet: Packet;
  freshness: PacketFreshness;
  /** Epoch ms of the last write of its handoff.json. */
  writtenAt?: number;
  /** The sha256 of its `handoff.json` bytes as read: what the trust rule (`handoffTrust`) looks up. */
  sha256?: string;
  /** Written here or trusted here (false: committed, copied or imported, and not trusted yet). */
  owned?: boolean;
}

/** A transcript or usage file that could feed the meter; the newest one wins. */
export interface ContextCandidate {
  source: ContextSource;
  file: string;
  sessionId?: string;
  /** Epoch ms of the last change. */
  updatedAt: number;
}

/** Where a risk comes from in the UI: the active packet, or computed live from the workbench. */
export type RiskOrigin = 'packet' | 'live';

/** A risk as the Open Risks view and the restart prompt see it. */
export interface UiRisk {
  risk: Risk;
  origin: RiskOrigin;
  /** The acknowledgement, when someone accepted the risk. */
  ack: Ack | null;
  /** Absolute file to open when the risk is clicked, and the 1-based line where known. */
  location: { file: string; line?: number } | null;
}

export type UiPhase = 'loading' | 'ready' | 'untrusted' | 'notRepo' | 'gitMissing' | 'error';

/**
 * Everything the views, the status bar and the panel show for one workspace folder. Immutable: a
 * refresh builds a new object and fires `onDidChange`; nobody mutates a published state.
 */
export interface WorkbenchUiState {
  readonly folder: vscode.WorkspaceFolder;
  readonly trusted: boolean;
  readonly phase: UiPhase;
  /** One sentence for the welcome views when phase is not `ready`. */
  readonly phaseMessage: string | null;
  /** Absolute workbench and output dirs for this folder's settings. */
  readonly workbenchDir: string;
  readonly outputDir: string;
  readonly snapshot: WorkbenchSnapshot | null;
  readonly diagnostics: readonly Diagnostic[];
  readonly git: { ok: true; facts: GitFacts } | { ok: false; code: GitErrorCode; message: string } | null;
  readonly clean: CleanReport | null;
  /** Every packet of the output dir, active ones first per branch + topic. */
  readonly packets: readonly PacketEntry[];
  /** The active packet for the current branch + topic, if any. */
  readonly activePacket: PacketEntry | null;
  /** The active packet's risks plus live ones (red tests, clean-state findings), with acknowledgements. */
  readonly risks: readonly UiRisk[];
  readonly context: ContextResult;
  readonly candidates: readonly ContextCandidate[];
  /** The agent session the workbench was filled in from (Claude Code / Codex), or null. */
  readonly session: SessionFacts | null;
  /** Null when the reading is unknown. */
  readonly budget: BudgetLevel | null;
  /** Epoch ms of the refresh that built this state. */
  readonly updatedAt: number;
}
