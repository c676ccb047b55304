import * as os from 'node:os';
import * as path from 'node:path';
import { resolveInside } from '../safePath';
import { isKiloDbFile } from '../session/kiloDb';
import type { SessionAgent } from '../session/model';
import type { Source } from '../source';
import { isPortableAgentPath, resolveAgentPath } from './portable';
import type { Packet } from './schema';

/**
 * Which source of a packet may be opened from the panel (DESIGN §8: packet text is untrusted). A
 * source is opened only when the packet names it (its next action, closing words, a question, a failed
 * attempt, a command, a decision or a human's words) and it is a file inside the workspace folder (a
 * workbench file, relative to the workbench), or an agent session file: a `.jsonl` under one of the
 * agent homes, or the session the folder's state was filled from. Returns the absolute path, or null.
 */
export function sourcesOf(p: Packet): Source[] {
  const out: Source[] = [];
  const add = (s: Source | null | undefined): void => {
    if (s) out.push(s);
  };
  add(p.next_action_origin?.source);
  add(p.closing?.source);
  for (const q of p.questions ?? []) add(q.source);
  for (const f of p.failed_attempts) add(f.source);
  for (const c of p.commands_run) add(c.source);
  for (const d of p.decisions) add(d.source);
  for (const w of p.human_words ?? []) add(w.source);
  return out;
}

export interface OpenableDirs {
  /** The workspace folder (absolute). */
  folder: string;
  /** The workbench dir (absolute): relative workbench sources resolve against it. */
  workbenchDir: string;
  /** Agent homes whose session files may be opened (Claude config dir, Codex home). */
  agentHomes: readonly string[];
  /** The session file the folder's state was filled from, when known. */
  sessionFile?: string | null;
  /** That session with its agent, to recognise its portable path (`~/.claude/projects/…/<id>.jsonl`). */
  session?: { agent: SessionAgent; file: string } | null;
}

export function openableSource(p: Packet, file: string, dirs: OpenableDirs): string | null {
  if (!file || file.includes('\0')) return null;
  if (!sourcesOf(p).some((s) => s.file === file)) return null;
  // A portable agent path (`~/.claude/projects/…/<id>.jsonl`): this machine's file, if it has one.
  const local = isPortableAgentPath(file) ? resolveAgentPath(file, { agentHomes: dirs.agentHomes, home: os.homedir(), session: dirs.session ?? null }) : file;
  if (!local) return null;
  if (!path.isAbsolute(local)) return resolveInside(dirs.folder, path.resolve(dirs.workbenchDir, local));
  const abs = path.resolve(local);
  if (resolveInside(dirs.folder, abs)) return abs;
  // The folder's own session file, whatever its kind (a Cline / Roo Code task's ui_messages.json too),
  // except a database (Kilo Code's kilo.db), which no text editor shows: its "line" is a message number.
  if (dirs.sessionFile && path.resolve(dirs.sessionFile) === abs) return isKiloDbFile(abs) ? null : abs;
  if (!/\.jsonl$/i.test(abs)) return null;
  return dirs.agentHomes.some((home) => resolveInside(path.resolve(home), abs) !== null) ? abs : null;
}
