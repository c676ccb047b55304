import type { ContextResult } from '../context/types';
import * as path from 'node:path';
import { loadWorkbench } from '../artifacts/loader';
import type { WorkbenchSnapshot } from '../artifacts/snapshot';
import { topicOf } from '../artifacts/topic';
import { compilePatterns } from '../clean/codeSmells';
import { evaluateClean } from '../clean/evaluate';
import type { CleanReport } from '../clean/types';
import type { Diagnostic } from '../diagnostics';
import { GitError, type GitClient, type GitFacts } from '../gitPort';
import type { HandoffOptions } from '../options';
import { deriveSessionId } from '../packet/build';
import { LOCK_FILE } from '../registry/lock';
import { mergeSession } from '../session/merge';
import { sessionSecretFindings } from '../packet/secretRisks';
import type { SessionFacts } from '../session/model';
import { activePacketFor, latestPacketFor, listChosenPackets, listPackets } from '../registry/registry';
import { outputDirOf, workbenchDirOf } from './paths';
import { programFilesOf } from './programFiles';
import { readPacketSummaries, type StoredPacket } from './readPackets';

/**
 * The workbench a refresh or a packet reads: the artifacts, filled in from the agent session working
 * in the folder (DESIGN §2b) when one was found. The one place the two are merged.
 */
export async function loadMergedWorkbench(workspaceDir: string, options: HandoffOptions, session?: SessionFacts | null, load: { feedbackScanWhole?: boolean } = {}): Promise<WorkbenchSnapshot> {
  const snapshot = await loadWorkbench(workbenchDirOf(workspaceDir, options), { feedbackK: options.feedbackK, maxCommands: options.maxCommands, root: workspaceDir, ...load });
  const merged = mergeSession(snapshot, session, { workspaceDir, feedbackK: options.feedbackK, maxCommands: options.maxCommands });
  // Credentials the session saw are flagged with those of the workbench files (one risk per value).
  const seen = session ? sessionSecretFindings(session) : [];
  return seen.length ? { ...merged, secrets: [...(merged.secrets ?? []), ...seen] } : merged;
}

/** Files in the workbench written by this tool (or its statusLine bridge), besides the output dir. */
export const OWN_WORKBENCH_FILES = ['context_usage.json'];

/** Git facts for one run, with what the clean checks and the packet need beyond them. */
export interface GitView {
  ok: true;
  facts: GitFacts;
  /** The session's base: the previous packet's head_commit for this branch + topic, else the merge-base. */
  base: string | null;
  baseSource: 'previous-packet' | 'merge-base' | 'none';
  /** Tracked files plus untracked files that are not ignored, repo-relative. */
  files?: string[];
}

export interface Inspection {
  workbenchDir: string;
  outputDir: string;
  snapshot: WorkbenchSnapshot;
  diagnostics: Diagnostic[];
  topic: string;
  /** Every packet in the output dir, in list order. */
  packets: StoredPacket[];
  /** The active packet for the current branch + topic. */
  active: StoredPacket | null;
  /**
   * The newest non-archived packet of an earlier session on this branch + topic: its head_commit is
   * this session's base. This session's own packets are skipped, so regenerating is deterministic.
   */
  previous: StoredPacket | null;
  git: GitView | { ok: false; error: GitError };
  /** Null when git is unavailable: the checks need it. */
  clean: (CleanReport & { diagnostics: Diagnostic[] }) | null;
}

/** Repo-relative paths of the tool's own outputs: the output dir, the lock, context_usage.json. */
export function ownPathsOf(root: string, workbenchDir: string, outputDir: string): string[] {
  const rel = (p: string): string => path.relative(root, p).split(path.sep).join('/');
  return [rel(outputDir), rel(path.join(outputDir, LOCK_FILE)), ...OWN_WORKBENCH_FILES.map((f) => rel(path.join(workbenchDir, f)))];
}

function asGitError(err: unknown): GitError {
  return err instanceof GitError ? err : new GitError('failed', `Git failed: ${err instanceof Error ? err.message : String(err)}`);
}

/**
 * Reads everything one refresh needs: the artifacts, the packets, git facts and the clean report.
 * Never throws for a missing git or a non-repository: that comes back as `git.ok === false`.
 * `context` is the reading the packet will carry: the session id is derived from it and the
 * artifacts exactly as the packet derives it, so this session's own packets are never its base.
 */
export async function inspectWorkbench(
  workspaceDir: string,
  options: HandoffOptions,
  git: GitClient,
  opts: { context?: ContextResult | null; session?: SessionFacts | null; packets?: 'all' | 'chosen' } = {},
): Promise<Inspection> {
  const workbenchDir = workbenchDirOf(workspaceDir, options);
  const outputDir = outputDirOf(workspaceDir, options);
  const chosen = opts.packets === 'chosen';
  const [snapshot, all, summaries, gitFacts] = await Promise.all([
    loadMergedWorkbench(workspaceDir, options, opts.session),
    chosen ? null : listPackets(outputDir),
    chosen ? readPacketSummaries(outputDir) : null,
    // Asked here once the packets are only chosen (their choice needs the branch); below otherwise.
    chosen ? git.facts().then((facts) => ({ ok: true as const, facts }), (err: unknown) => ({ ok: false as const, err })) : null,
  ]);
  const topic = topicOf(snapshot);
  const sessionId = deriveSessionId({ snapshot, context: opts.context?.known ? opts.context : null });
  const listed =
    all ??
    (await listChosenPackets(outputDir, summaries ?? [], gitFacts?.ok ? gitFacts.facts.branch : (snapshot.agentState?.branch ?? null), topic, sessionId));
  const diagnostics = [...snapshot.diagnostics, ...listed.diagnostics];
  const previousOf = (branch: string | null): StoredPacket | null =>
    latestPacketFor(listed.packets.filter((p) => p.packet.session_id !== sessionId), branch, topic);
  const base = { workbenchDir, outputDir, snapshot, diagnostics, topic, packets: listed.packets };
  let facts: GitFacts;
  try {
    if (gitFacts && !gitFacts.ok) throw gitFacts.err;
    facts = gitFacts?.ok ? gitFacts.facts : await git.facts();
  } catch (err) {
    const fallbackBranch = snapshot.agentState?.branch ?? null;
    return {
      ...base,
      active: activePacketFor(listed.packets, fallbackBranch, topic),
      previous: previousOf(fallbackBranch),
      git: { ok: false, error: asGitError(err) },
      clean: null,
    };
  }
  const active = activePacketFor(listed.packets, facts.branch, topic);
  const previous = previousOf(facts.branch);
  let sessionBase: string | null = null;
  let baseSource: GitView['baseSource'] = 'none';
  const prevHead = previous?.packet.head_commit ?? null;
  if (prevHead && facts.head && (await git.commitTime(prevHead)) !== null) {
    sessionBase = prevHead;
    baseSource = 'previous-packet';
  } else if (facts.head) {
    sessionBase = await git.sessionBase(facts.head);
    baseSource = sessionBase ? 'merge-base' : 'none';
  }
  // One status per inspection: HEAD and the untracked files come from the facts.
  const [addedLines, files] = await Promise.all([git.addedLines(sessionBase, facts), git.listFiles(facts)]);
  // Only files with a line that looks like a print are opened, to tell a program's output from debugging.
  const { patterns } = compilePatterns(options.debugPatterns);
  const printing = addedLines.filter((l) => patterns.some((re) => re.test(l.text))).map((l) => l.path);
  const programFiles = printing.length ? await programFilesOf(facts.root, printing) : [];
  const clean = evaluateClean({
    facts,
    addedLines,
    files,
    programFiles,
    snapshot,
    options,
    ownPaths: ownPathsOf(facts.root, workbenchDir, outputDir),
    activePacketBranch: active?.packet.branch ?? null,
  });
  diagnostics.push(...clean.diagnostics);
  return { ...base, active, previous, git: { ok: true, facts, base: sessionBase, baseSource, files }, clean };
}
