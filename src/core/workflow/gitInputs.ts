import * as path from 'node:path';
import { publicRemote } from '../packet/portable';
import type { WorkbenchSnapshot } from '../artifacts/snapshot';
import { isOwnPath } from '../clean/inputs';
import type { GitClient, GitFacts, LineOrigin, StatusEntry } from '../gitPort';
import { promises as fs } from 'node:fs';
import { originKey, sourceKey } from '../packet/secretRisks';
import type { SourceOrigin } from '../packet/secretRisks';
import type { SecretFinding } from '../artifacts/snapshot';
import { detectSecrets } from '../redact';
import { fingerprintOf } from '../redact/scan';
import type { GitInput } from '../packet/build';
import type { ChangedFile, Packet } from '../packet/schema';

export interface GitInputArgs {
  git: GitClient;
  facts: GitFacts;
  /** The session base (previous packet's head_commit, else the merge-base), or null. */
  base: string | null;
  snapshot: WorkbenchSnapshot;
  workbenchDir: string;
  ownPaths: string[];
  /** The newest packet for this branch + topic (its last known good commit is the fallback), if any. */
  previous: Packet | null;
  /** Whether the clean-state checks passed (null when they did not run). */
  clean: boolean | null;
  /** The repository's files, when already listed (else they are listed here). */
  files?: string[];
}

/**
 * `touched_files` are written by the agent relative to the workbench; turn them repo-relative and
 * drop anything that escapes the repository (DESIGN §8).
 */
function touchedRepoRelative(touched: readonly string[], workbenchDir: string, root: string): string[] {
  const out: string[] = [];
  for (const t of touched) {
    if (!t.trim()) continue;
    const rel = path.relative(root, path.resolve(workbenchDir, t));
    if (rel === '' || rel.startsWith('..') || path.isAbsolute(rel)) continue;
    out.push(rel.split(path.sep).join('/'));
  }
  return out;
}

/**
 * The packet's changed files: what changed since the session base, plus uncommitted changes,
 * plus the agent's touched files (kind `touched` when git shows no change), sorted by path.
 * The base's kind wins for a path also changed in the working tree, except a deletion.
 */
export function mergeChangedFiles(committed: readonly StatusEntry[], uncommitted: readonly StatusEntry[], touched: readonly string[]): ChangedFile[] {
  const byPath = new Map<string, ChangedFile>();
  const put = (e: StatusEntry): void => {
    const prev = byPath.get(e.path);
    if (prev && e.kind !== 'deleted') return;
    byPath.set(e.path, e.from ? { path: e.path, kind: e.kind, from: e.from } : { path: e.path, kind: e.kind });
  };
  committed.forEach(put);
  uncommitted.forEach(put);
  for (const t of touched) if (!byPath.has(t)) byPath.set(t, { path: t, kind: 'touched' });
  return [...byPath.values()].sort((a, b) => (a.path < b.path ? -1 : a.path > b.path ? 1 : 0));
}

/** Lines asked about per run: a log full of keys must not turn into hundreds of blame calls. */
const MAX_ORIGIN_LOOKUPS = 20;

/** Whether git tracks each file where a credential was masked, and which commit brought the line in. */
export async function secretOriginsOf(git: GitClient, snapshot: WorkbenchSnapshot, workbenchDir: string, root: string): Promise<Record<string, LineOrigin> | null> {
  const findings = snapshot.secrets ?? [];
  if (!findings.length || !git.lineOrigin) return null;
  const out: Record<string, LineOrigin> = {};
  for (const f of findings.filter((x) => x.session && x.sourceFile).slice(0, MAX_ORIGIN_LOOKUPS)) {
    const origin = await sourceOrigin(git, f, root).catch(() => null);
    if (origin) out[sourceKey(f)] = origin;
  }
  for (const f of findings.filter((x) => !x.session).slice(0, MAX_ORIGIN_LOOKUPS)) {
    const key = originKey(f);
    if (out[key]) continue;
    const rel = path.relative(root, path.resolve(workbenchDir, f.file));
    if (rel.startsWith('..') || path.isAbsolute(rel)) continue;
    // A failed lookup says nothing about history rather than something wrong.
    const origin = await git.lineOrigin(rel.split(path.sep).join('/'), f.line ?? 0).catch(() => null);
    if (origin) out[key] = origin;
  }
  return out;
}

/** A source file this big is not read to find the line of a credential a session printed from it. */
const MAX_SOURCE_BYTES = 1024 * 1024;

/**
 * The line of the file a session printed a credential from (`cat .env`) that still holds it — found
 * by fingerprint, the value never kept — and what git knows of that line. Null when the file is
 * outside the repository, too big, gone, or no longer holds the credential.
 */
async function sourceOrigin(git: GitClient, f: SecretFinding, root: string): Promise<SourceOrigin | null> {
  const rel = path.relative(root, f.sourceFile!);
  if (!rel || rel.startsWith('..') || path.isAbsolute(rel) || !git.lineOrigin) return null;
  const st = await fs.stat(f.sourceFile!).catch(() => null);
  if (!st?.isFile() || st.size > MAX_SOURCE_BYTES) return null;
  const lines = (await fs.readFile(f.sourceFile!, 'utf8')).split('\n');
  const at = lines.findIndex((l) => detectSecrets(l).some((h) => fingerprintOf(l.slice(h.start, h.end)) === f.fingerprint));
  if (at === -1) return null;
  const file = rel.split(path.sep).join('/');
  const origin = await git.lineOrigin(file, at + 1);
  return { ...origin, file, line: at + 1 };
}

/**
 * The git-derived packet fields (issue 3): branch, head, changed files since the session base and
 * the last known good commit — the agent's, else HEAD when clean with a green newest test run,
 * else the previous packet's, else null with the reason (which becomes an open risk).
 */
export async function computeGitInput(args: GitInputArgs): Promise<GitInput> {
  const { git, facts, snapshot } = args;
  const committed = args.base && facts.head ? await git.changedSince(args.base).catch(() => []) : [];
  const uncommitted = facts.status.filter((e) => !isOwnPath(e.path, args.ownPaths));
  const touched = touchedRepoRelative(snapshot.agentState?.touched_files ?? [], args.workbenchDir, facts.root);
  const changedFiles = mergeChangedFiles(committed, uncommitted, touched).filter((c) => !isOwnPath(c.path, args.ownPaths));

  const headSeconds = facts.head ? await git.commitTime(facts.head) : null;
  const lastTest = snapshot.feedback?.lastTestRun ?? null;
  let lastKnownGoodCommit: string | null = snapshot.agentState?.last_known_good_commit?.trim() || null;
  let lkgUnknownReason: string | undefined;
  if (!lastKnownGoodCommit && facts.head && args.clean === true && lastTest?.record.exit_code === 0) {
    lastKnownGoodCommit = facts.head;
  }
  if (!lastKnownGoodCommit) lastKnownGoodCommit = args.previous?.last_known_good_commit ?? null;
  if (!lastKnownGoodCommit) {
    lkgUnknownReason = !facts.head
      ? 'the repository has no commit yet'
      : args.clean !== true
        ? 'the workbench is not clean, so HEAD cannot be vouched for, and no earlier packet recorded one'
        : lastTest
          ? 'the newest test run is not green and no earlier packet recorded one'
          : 'no test run is recorded and no earlier packet recorded one';
  }
  const knownFiles = args.files ?? (await git.listFiles().catch(() => undefined));
  const input: GitInput = {
    repo: path.basename(facts.root),
    branch: facts.branch,
    headCommit: facts.head,
    headTime: headSeconds === null ? null : new Date(headSeconds * 1000).toISOString(),
    changedFiles,
    lastKnownGoodCommit,
  };
  if (lkgUnknownReason) input.lkgUnknownReason = lkgUnknownReason;
  const remote = publicRemote((await git.remoteUrl?.().catch(() => null)) ?? null);
  if (remote) input.remote = remote;
  const origins = await secretOriginsOf(git, snapshot, args.workbenchDir, facts.root);
  if (origins) input.secretOrigins = origins;
  if (knownFiles) input.knownFiles = knownFiles;
  return input;
}
