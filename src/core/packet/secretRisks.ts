import * as os from 'node:os';
import * as path from 'node:path';
import type { SecretFinding } from '../artifacts/snapshot';
import type { LineOrigin } from '../gitPort';
import type { SessionCredential, SessionFacts } from '../session/model';
import { agentName } from '../session/model';
import { isKiloDbFile } from '../session/kiloDb';
import type { Risk } from './schema';

/** The key of a finding in `GitInput.secretOrigins`: the workbench-relative file and the line. */
export function originKey(f: Pick<SecretFinding, 'file' | 'line'>): string {
  return `${f.file}:${f.line ?? 0}`;
}

const cap = (s: string): string => s.charAt(0).toUpperCase() + s.slice(1);

/** A session file's path for people: the home folder as `~`. */
export function displayPath(file: string): string {
  const home = os.homedir();
  return home && home !== '/' && file.startsWith(`${home}/`) ? `~${file.slice(home.length)}` : file;
}

/** What git knows about the line, and the fix that follows from it. */
function historyAndFix(origin: LineOrigin | undefined, transcript: string | null, task?: string): string {
  const agent = task?.replace(/ task .*$/, '');
  const scrub = agent ? `; delete the task in ${agent} or scrub it (handoff secrets --scrub, with the task closed)` : transcript ? '; delete the transcript or scrub it (handoff secrets --scrub)' : '';
  if (!origin) return `Fix: rotate the credential now; remove it from the file and, if it was ever committed, from git history before pushing${scrub}.`;
  if (!origin.tracked) return `Git does not track the file. Fix: rotate the credential now; remove it from the file and keep the file out of commits${scrub}.`;
  if (!origin.commit) return `Git tracks the file; this line is not committed yet. Fix: rotate the credential now; remove it from the file before committing${scrub}.`;
  return `Git tracks the file; the line is in history since commit ${origin.commit.slice(0, 12)}. Fix: rotate the credential now; remove it from the file and from git history (for example with git filter-repo) before pushing${scrub}.`;
}

/** What git knows of the source file's line, as a sentence. */
function sourceHistory(o: LineOrigin): string {
  if (!o.tracked) return 'git does not track that file.';
  if (!o.commit) return 'git tracks that file; the line is not committed yet.';
  return `git tracks that file; the line is in history since commit ${o.commit.slice(0, 12)}.`;
}

/** The messages of a task file holding it: "~/…/ui_messages.json message index 4" (the line too where the file has several). */
function taskFilePlace(f: SecretFinding): string {
  const idx = f.messages ?? [];
  const lines = f.lines ?? (f.line ? [f.line] : []);
  const at = idx.map((i, k) => (lines.some((l) => l > 1) && lines[k] ? `${i} (line ${lines[k]})` : `${i}`));
  return `${displayPath(f.file)}${at.length ? ` message${at.length === 1 ? '' : 's'} index ${at.join(', ')}` : ''}`;
}

/** A task's files holding it, its folder named once: "~/…/tasks/1764…/ ui_messages.json message index 6; api_conversation_history.json message index 4 (line 56)". */
function taskFilesPlace(fs: readonly SecretFinding[]): string {
  const dirs = new Set(fs.map((f) => path.dirname(f.file)));
  if (dirs.size !== 1) return fs.map(taskFilePlace).join('; ');
  const dir = [...dirs][0]!;
  return `${displayPath(dir)}${path.sep}: ${fs.map((f) => taskFilePlace({ ...f, file: path.basename(f.file) })).join('; ')}`;
}

/** A task finding's call for people: what printed it, as the head of a sentence, or null when not a call. */
const callOf = (printedBy: string | null | undefined): string | null => (printedBy && !/^(?:a user message|assistant text|the command .*)$/.test(printedBy) ? printedBy : null);

/** One place a credential was seen, for people: "feedback_record.jsonl line 3" or "`cat .env` printed it into … line 24". */
function place(f: SecretFinding): string {
  if (f.task) {
    const by = callOf(f.printedBy);
    const where = `${f.task}, ${taskFilePlace(f)}`;
    return by ? `${by} output in ${where}` : f.printedBy ? `${f.printedBy} in ${where}` : where;
  }
  const lines = f.lines && f.lines.length > 1 ? `lines ${f.lines.join(', ')}` : f.line ? `line ${f.line}` : '';
  if (!f.session) return lines ? `${f.file} ${lines}` : f.file;
  const file = displayPath(f.session);
  const at = lines ? `${file} ${lines}` : file;
  if (!f.printedBy) return `the agent transcript ${at}`;
  if (/^(?:a user message|assistant text|the command .*)$/.test(f.printedBy)) return `${f.printedBy} in the agent transcript ${at}`;
  const call = f.callLine ? `, the call at line ${f.callLine}` : '';
  return `${f.printedBy} output in the agent transcript ${at}${call}`;
}

/** A file-printing command (`cat .env`, `cd svc && head -5 .env.local`) or a file read: the file, absolute. */
export function sourceFileOf(printedBy: string | null, cwd: string | null): string | null {
  if (!printedBy) return null;
  const read = /^\w+ of (.+)$/.exec(printedBy);
  if (read) return cwd ? path.resolve(cwd, read[1]!) : path.isAbsolute(read[1]!) ? read[1]! : null;
  const cmd = /^`(.*)`$/.exec(printedBy)?.[1];
  if (!cmd || !cwd) return null;
  let dir = cwd;
  let file: string | null = null;
  for (const part of cmd.split(/\s*(?:&&|;|\|\|)\s*/)) {
    const cd = /^cd\s+([^\s|&;<>]+)$/.exec(part);
    if (cd) dir = path.resolve(dir, cd[1]!.replace(/^["']|["']$/g, ''));
    // Options may take a number (`head -n 5`, `tail -c 200`).
    const m = /^(?:cat|head|tail|less|more|bat|nl|base64|strings|xxd)\s+(?:-{1,2}[\w-]+(?:[= ]\d+)?\s+)*["']?([^\s|&;<>"']+)/.exec(part);
    if (m) file = path.resolve(dir, m[1]!);
  }
  return file;
}

/** Where a session credential's source file has it, and what git knows of that line. */
export interface SourceOrigin extends LineOrigin {
  /** The source file, repository-relative, and the line holding the credential. */
  file: string;
  line: number;
}

/** The key of a session finding's source file origin in `GitInput.secretOrigins`. */
export function sourceKey(f: Pick<SecretFinding, 'fingerprint'>): string {
  return `source:${f.fingerprint ?? ''}`;
}

/** A task credential as one finding per task file it was seen in (the first file first). */
function taskFindings(c: SessionCredential, facts: TaskFactsLike): SecretFinding[] {
  const byFile = new Map<string, { lines: number[]; messages: number[] }>();
  for (const p of c.places ?? []) {
    const g = byFile.get(p.file) ?? { lines: [], messages: [] };
    g.lines.push(p.line);
    g.messages.push(p.index);
    byFile.set(p.file, g);
  }
  const task = `${agentName(facts.agent!)} task ${facts.sessionId ?? path.basename(path.dirname(facts.file))}`;
  return [...byFile].map(([file, g]) => ({ ...sessionFinding(c, file, g.lines, facts.cwd ?? null), task, messages: g.messages }));
}

/** A session credential as a finding in `file` (the agent's file holds a copy) on `lines`. */
function sessionFinding(c: SessionCredential, file: string, lines: number[], cwd: string | null): SecretFinding {
  const source = sourceFileOf(c.printedBy, cwd);
  return {
    ...(source ? { sourceFile: source } : {}),
    file,
    line: lines[0] ?? null,
    rule: 'session',
    label: c.kind,
    fingerprint: c.fingerprint,
    printedBy: c.printedBy,
    callLine: c.callLine ?? null,
    session: file,
    lines,
    ...(c.weak ? { weak: true } : {}),
  };
}

type TaskFactsLike = Pick<SessionFacts, 'file' | 'credentials'> & { cwd?: string | null; agent?: SessionFacts['agent']; sessionId?: string };

/** The credentials found in a session, as findings in the session file (the transcript holds a copy); a task's, in each of its files. */
export function sessionSecretFindings(facts: TaskFactsLike): SecretFinding[] {
  return (facts.credentials ?? []).flatMap((c: SessionCredential): SecretFinding[] =>
    c.places?.length && facts.agent ? taskFindings(c, facts) : [sessionFinding(c, facts.file, c.lines, facts.cwd ?? null)],
  );
}

/** The sentence naming an agent session file's copy. */
function transcriptNote(agent: string | undefined, file: string): string {
  return `The agent's transcript${agent ? ` (${agent})` : ''} ${displayPath(file)} now holds a copy.`;
}

/**
 * One `block` risk per credential (a value seen in several places — a workbench file and the
 * session, or several lines — is one risk): the packet never shows the secret, but the next session
 * must know it is there — its kind, every place it was seen (file and line, and what printed it into
 * the transcript), whether the file is in git history and since when, that the agent's transcript
 * holds a copy — and that it needs rotating, not just masking.
 */
export function secretRisks(findings: readonly SecretFinding[], origins: Readonly<Record<string, LineOrigin>> = {}, agent?: SessionFacts['agent']): Risk[] {
  const groups = new Map<string, SecretFinding[]>();
  for (const f of findings) {
    const key = f.fingerprint ?? `${f.file}:${f.line ?? 0}:${f.label}`;
    const g = groups.get(key);
    if (g) g.push(f);
    else groups.set(key, [f]);
  }
  const out: Risk[] = [];
  const possible: SecretFinding[][] = [];
  for (const g of groups.values()) {
    // Only a value whose shape says "secret" is one to rotate now; a key name with a word after it is not.
    if (g.every((f) => f.weak)) {
      possible.push(g);
      continue;
    }
    // A workbench file names the risk first: it is what the fix edits.
    const sorted = [...g.sort((a, b) => Number(!!a.session) - Number(!!b.session))];
    const first = sorted[0]!;
    const transcript = sorted.find((f) => f.session)?.session ?? null;
    const fileFinding = sorted.find((f) => !f.session);
    const where = first.session ? `${path.basename(first.file)}:${first.line ?? 0}` : first.line ? `${first.file} line ${first.line}` : first.file;
    const places = sorted.map(place);
    const origin = fileFinding ? origins[originKey(fileFinding)] : undefined;
    let detail: string;
    if (!first.session) {
      const also = places.length > 1 ? ` Also seen in ${places.slice(1).join('; ')}.` : '';
      const taskCopy = sorted.find((f) => f.task);
      const copy = taskCopy ? ` ${taskCopy.task} (${displayPath(taskCopy.file)}) now holds a copy.` : transcript ? ` ${transcriptNote(agent ? agentName(agent) : undefined, transcript)}` : '';
      detail = `${cap(first.label)} in ${places[0]} (masked in this packet).${also}${copy} ${historyAndFix(origin, transcript, taskCopy?.task)}`;
    } else if (first.task) {
      // What printed it, the history and the fix come first (a restart prompt may cut a long detail); then where.
      const by = callOf(first.printedBy);
      const mine = sorted.filter((f) => f.task === first.task);
      const head = by ? `${by} printed ${first.label} into ${first.task}` : `${cap(first.label)} is in ${first.printedBy ?? 'a message'} of ${first.task}`;
      const others = sorted.filter((f) => f.task !== first.task).map(place);
      const also = others.length ? ` Also seen in ${others.join('; ')}.` : '';
      const src = origins[sourceKey(first)] as SourceOrigin | undefined;
      const history = src ? ` It comes from ${src.file} line ${src.line}: ${sourceHistory(src)}` : '';
      const agentWord = first.task.replace(/ task .*$/, '');
      const drop = isKiloDbFile(first.file)
        ? `delete the session in ${agentWord} (its database is not scrubbed)`
        : `delete the task in ${agentWord} or scrub it (handoff secrets --scrub, with the task closed: ${agentWord} rewrites its files whole on its next save)`;
      detail = `${by ? head : cap(head)}, whose files now hold a copy (masked in this packet).${history} Fix: rotate the credential now; remove it from the file it came from and from git history if it was committed; ${drop}. Seen in ${taskFilesPlace(mine)}.${also}`;
    } else {
      const by = first.printedBy && !/^(?:a user message|assistant text|the command .*)$/.test(first.printedBy) ? first.printedBy : null;
      const lines = first.lines && first.lines.length > 1 ? `lines ${first.lines.join(', ')}` : `line ${first.line ?? 0}`;
      const call = by && first.callLine ? ` (the call at line ${first.callLine})` : '';
      const into = `the agent's transcript${agent ? ` (${agentName(agent)})` : ''} ${displayPath(first.session)} ${lines}${call}`;
      const head = by ? `${by} printed ${first.label} into ${into}` : `${cap(first.label)} is in ${first.printedBy ?? 'the session'}, in ${into}`;
      const also = places.length > 1 ? ` Also seen in ${places.slice(1).join('; ')}.` : '';
      const src = origins[sourceKey(first)] as SourceOrigin | undefined;
      const history = src ? ` It comes from ${src.file} line ${src.line}: ${sourceHistory(src)}` : '';
      detail = `${cap(head)}, which now holds a copy (masked in this packet).${also}${history} Fix: rotate the credential now; remove it from the file it came from and from git history if it was committed; delete the transcript or scrub it (handoff secrets --scrub).`;
    }
    const id = first.task ? `leak:${path.basename(path.dirname(first.file))}/${path.basename(first.file)}#${first.messages?.[0] ?? 0}` : `leak:${where.replace(' line ', ':')}`;
    out.push({
      id,
      severity: 'block' as const,
      detail,
      source: first.session ? `${displayPath(first.file)}:${first.line ?? 0}` : first.line ? `${first.file}:${first.line}` : first.file,
      owner: 'human' as const,
    });
  }
  if (possible.length) out.push(possibleRisk(possible));
  return out;
}

/** How many possible credentials one warning names before "and N more". */
const POSSIBLE_NAMED = 5;

/**
 * One warning for every value masked after a credential's key name that does not look like a secret:
 * what it is, where, and what to do (check it; rotate only a real one).
 */
function possibleRisk(groups: readonly SecretFinding[][]): Risk {
  const firsts = groups.map((g) => [...g].sort((a, b) => Number(!!a.session) - Number(!!b.session))[0]!);
  const named = firsts.slice(0, POSSIBLE_NAMED).map((f) => `${f.label} in ${place(f)}`);
  const more = firsts.length > POSSIBLE_NAMED ? `; and ${firsts.length - POSSIBLE_NAMED} more` : '';
  const n = firsts.length;
  const first = firsts[0]!;
  return {
    id: 'possible-credentials',
    severity: 'warn',
    detail: `${n === 1 ? 'A value' : `${n} values`} after a credential's key name ${n === 1 ? 'was' : 'were'} masked in this packet, but ${n === 1 ? 'it does' : 'they do'} not have a secret's shape (a plain word, a short or cut value, not a random key): ${named.join('; ')}${more}. Check ${n === 1 ? 'it' : 'them'}: if one is a real password, rotate it and remove it from where it was printed.`,
    source: first.session ? `${displayPath(first.file)}:${first.line ?? 0}` : first.line ? `${first.file}:${first.line}` : first.file,
    owner: 'human',
  };
}
