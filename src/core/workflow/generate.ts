import * as os from 'node:os';
import * as path from 'node:path';
import { foldPendingAcks } from '../acks';
import { stripControlDeep } from '../controlChars';
import type { WorkbenchSnapshot } from '../artifacts/snapshot';
import type { CleanFinding } from '../clean/types';
import type { SessionSearch } from '../context/discovery';
import { noSessionReason } from '../context/discovery';
import type { ContextResult } from '../context/types';
import type { Diagnostic } from '../diagnostics';
import type { GitClient, GitError } from '../gitPort';
import type { HandoffOptions } from '../options';
import type { GitInput } from '../packet/build';
import { buildPacket, deriveSessionId, safeSegment } from '../packet/build';
import { portablePacket } from '../packet/portable';
import type { Packet } from '../packet/schema';
import { packetContentHash, writePacket } from '../packet/write';
import { withLock, type LockOptions } from '../registry/lock';
import { supersedeOthers } from '../registry/registry';
import { vouchWorkbenchInputs } from '../registry/trust';
import { isOwnPacket } from '../registry/ownership';
import { carryForward, sessionAddsWork } from '../packet/carryForward';
import type { StoredPacket } from './readPackets';
import type { SessionFacts } from '../session/model';
import { CLEAN_STATE_FILE, writeCleanState } from './check';
import { computeGitInput } from './gitInputs';
import { inspectWorkbench, loadMergedWorkbench, ownPathsOf } from './inspect';
import { assertOutputInside, outputDirOf, workbenchDirOf } from './paths';

export interface GenerateArgs {
  /** The workspace folder; the workbench and output dirs resolve against it. */
  workspaceDir: string;
  options: HandoffOptions;
  /** The user accepted a dirty workbench: findings become `block` risks instead of a refusal. */
  allowDirty?: boolean;
  /**
   * Git for the clean-state check and the packet's git fields (usually `createGitClient(workspaceDir)`).
   * Without it (or without a repository) the packet has no git facts.
   */
  gitClient?: GitClient | null;
  /** Overrides the git fields computed through `gitClient`. */
  git?: GitInput | null;
  /** Overrides the clean report computed through `gitClient`. */
  clean?: { clean: boolean; findings: CleanFinding[] } | null;
  context?: ContextResult | null;
  /** The person's goal for the next session; becomes `next_goal` and the prompt's first line. */
  goal?: string | null;
  /** The goal was given by an MCP client, not typed by the person. */
  goalFromClient?: boolean;
  /** The agent session working in the folder: fills in what the workbench files do not say. */
  session?: SessionFacts | null;
  /** Where the agent session was looked for: a refusal without one says so (never "write agent_state.json" to an agent user). */
  sessionSearch?: SessionSearch | null;
  lock?: LockOptions;
}

export type GenerateOutcome =
  | {
      kind: 'written' | 'unchanged';
      packetDir: string;
      packet: Packet;
      diagnostics: Diagnostic[];
      /** Packets of the same branch + topic this one superseded. */
      superseded?: string[];
    }
  | { kind: 'refused'; reason: string; diagnostics: Diagnostic[]; findings?: CleanFinding[] };

/** Everything the packet needs besides the artifacts. The one place git, clean and context are gathered. */
export interface GatheredInputs {
  snapshot: WorkbenchSnapshot;
  diagnostics: Diagnostic[];
  git: GitInput | null;
  clean: { clean: boolean; findings: CleanFinding[] } | null;
  context: ContextResult | null;
  /** Why git facts are missing, when a git client was given but git could not answer. */
  gitError: GitError | null;
  /** The repository root, when git answered: the packet's paths are relative to it. */
  repoRoot?: string | null;
  /** The active packet of this branch + topic before this run (with git only). */
  active?: StoredPacket | null;
}

/** Loads the workbench and collects git facts, the clean report and the context reading. */
export async function gatherInputs(args: GenerateArgs): Promise<GatheredInputs> {
  const { options } = args;
  const context = args.context ?? null;
  if (!args.gitClient) {
    const snapshot = await loadMergedWorkbench(args.workspaceDir, options, args.session);
    return { snapshot, diagnostics: [...snapshot.diagnostics], git: args.git ?? null, clean: args.clean ?? null, context, gitError: null };
  }
  const insp = await inspectWorkbench(args.workspaceDir, options, args.gitClient, { context, session: args.session });
  if (!insp.git.ok) {
    return { snapshot: insp.snapshot, diagnostics: insp.diagnostics, git: args.git ?? null, clean: args.clean ?? null, context, gitError: insp.git.error };
  }
  const clean = args.clean ?? (insp.clean ? { clean: insp.clean.clean, findings: insp.clean.findings } : null);
  const git =
    args.git ??
    (await computeGitInput({
      git: args.gitClient,
      facts: insp.git.facts,
      base: insp.git.base,
      snapshot: insp.snapshot,
      workbenchDir: insp.workbenchDir,
      ownPaths: ownPathsOf(insp.git.facts.root, insp.workbenchDir, insp.outputDir),
      // The last known good commit may come from this session's own active packet too.
      previous: insp.active?.packet ?? insp.previous?.packet ?? null,
      clean: clean?.clean ?? null,
      ...(insp.git.files ? { files: insp.git.files } : {}),
    }));
  return { snapshot: insp.snapshot, diagnostics: insp.diagnostics, git, clean, context, gitError: null, repoRoot: insp.git.facts.root, active: insp.active };
}

/**
 * A session file that was found but could not be read (a FIFO or a folder in its place, bytes that
 * stay invalid): its reader's located reason, so the person learns why no session was used.
 */
function unreadSession(session: GenerateArgs['session'], context: ContextResult | null): Diagnostic[] {
  if (session || !context || context.known || !context.file || !context.reason.startsWith(`${context.file} `)) return [];
  return [{ file: context.file, message: context.reason.slice(context.file.length + 1) }];
}

/**
 * The generate workflow shared by the CLI and the extension: load the workbench, gather git/clean/
 * context inputs, refuse when dirty (unless allowed) or when there is no next action, then — under
 * the output dir's lock — write the packet (or report it unchanged) and supersede the previous
 * active packet of the same branch + topic.
 */
export async function generateHandoff(args: GenerateArgs): Promise<GenerateOutcome> {
  const { options } = args;
  const inputs = await gatherInputs(args);
  const { snapshot } = inputs;
  const diagnostics = [...inputs.diagnostics, ...unreadSession(args.session, inputs.context)];
  const allowDirty = args.allowDirty ?? false;
  if (inputs.clean && !inputs.clean.clean && !allowDirty) {
    const findings = inputs.clean.findings;
    const what = findings.map((f) => f.check).filter((c, i, a) => a.indexOf(c) === i).join(', ');
    return {
      kind: 'refused',
      reason: `the workbench is not clean (${findings.length} finding${findings.length === 1 ? '' : 's'}: ${what}); fix the findings or accept them with --allow-dirty`,
      diagnostics,
      findings,
    };
  }
  const outputDir = outputDirOf(args.workspaceDir, options);
  await assertOutputInside(args.workspaceDir, options);
  // Built once, before the lock: a refusal must not even create the output dir.
  const built = buildPacket({
    snapshot,
    options,
    packetId: safeSegment(deriveSessionId({ snapshot, context: inputs.context })),
    git: inputs.git,
    clean: inputs.clean,
    allowDirty,
    context: inputs.context,
    nextGoal: args.goal ?? null,
    ...(args.goalFromClient ? { nextGoalFromClient: true } : {}),
  });
  if (!built.ok) {
    // A Claude Code or Codex user whose session was not found needs to know where it was looked for;
    // one who keeps agent_state.json by hand is told what to record in it.
    const search = args.sessionSearch;
    let reason = !args.session && search?.agentUser && !snapshot.agentState ? noSessionReason(search) : built.reason;
    // A store that is there but could not be read is said, never left for "no session".
    if (!args.session && search?.problems?.length) reason = `${reason} (${search.problems.join('; ')})`;
    return { kind: 'refused', reason, diagnostics };
  }
  // Choosing the folder, writing and superseding happen under one lock: concurrent runs never leave
  // two active packets for one branch + topic, nor a torn file.
  const result = await withLock(
    outputDir,
    async () => {
      // The session id names the session's first packet; when that folder holds a different packet,
      // the session id plus a short content hash: a written packet is never replaced.
      // Cleaned once more as a whole: text from any source (a session reader, a derived step) reaches
      // handoff.json, handoff.md and the prompt without control, bidi or zero-width characters.
      // No path of this machine in it: the packet travels (committed, exported, read on another machine).
      let packet = portablePacket(stripControlDeep(await keptInForce(built.packet, inputs.active ?? null, snapshot)), {
        repoRoot: inputs.repoRoot ?? args.workspaceDir,
        workspaceDir: args.workspaceDir,
        home: os.homedir(),
        session: args.session ?? null,
      });
      let written = await writePacket(outputDir, packet, { keepOther: true });
      if (written.kind === 'taken') {
        packet = { ...packet, packet_id: `${packet.packet_id}-${packetContentHash(packet)}` };
        written = await writePacket(outputDir, packet);
      }
      if (written.kind === 'written') await foldPendingAcks(outputDir, written.packetDir);
      // The next action of agent_state.json is handed on as an instruction only when this working tree made it.
      if (args.gitClient) await vouchWorkbenchInputs(written.packetDir, workbenchDirOf(args.workspaceDir, options), packet.inputs, args.gitClient);
      const superseded = await supersedeOthers(outputDir, packet);
      if (args.gitClient && inputs.clean && !args.clean) {
        await writeCleanState(path.join(outputDir, CLEAN_STATE_FILE), inputs.clean);
      }
      return { kind: written.kind === 'written' ? ('written' as const) : ('unchanged' as const), packetDir: written.packetDir, packet, diagnostics, superseded };
    },
    args.lock,
  );
  if (inputs.gitError) {
    diagnostics.push({
      file: 'git',
      message: `${inputs.gitError.message} The packet has no git facts and the clean state was not checked.`,
    });
  }
  return result;
}

/**
 * A session that added no work (it read the handed-over packet and answered) keeps the active packet's
 * next action in force: superseding it with "verify and ask" would lose the open question, the failing
 * check and the real next step. Only a packet this user owns is carried forward.
 */
async function keptInForce(packet: Packet, active: StoredPacket | null, snapshot: WorkbenchSnapshot): Promise<Packet> {
  if (!active || active.packet.session_id === packet.session_id || active.packet.status !== 'active') return packet;
  if (sessionAddsWork(snapshot, packet)) return packet;
  if (!active.sha256 || !(await isOwnPacket(active.dir, active.sha256))) return packet;
  return carryForward(packet, active.packet);
}
