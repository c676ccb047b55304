import type { DiscoveryOptions, SessionCandidate } from '../context/discovery';
import { SessionDiscovery } from '../context/discovery';
import type { SessionFacts } from './model';
import { SessionReader, type SessionCut } from './reader';
import { isVscodeAgent } from '../context/vscodeAgents';
import type { AnyTaskReader } from './taskReader';
import { taskReaderFor } from './taskReader';

export type SessionTrackerOptions = Omit<DiscoveryOptions, 'sources'> & {
  /** Which agents to look for (default Claude Code and Codex). */
  agents?: readonly ('claude' | 'codex' | 'cline' | 'roo' | 'zoo' | 'kilo' | 'opencode' | 'copilot-chat' | 'gemini' | 'qwen' | 'copilot-cli')[];
  /** One-shot reads (the CLI): wait a moment for a task file caught half-written. */
  settle?: boolean;
  /** Read the session only up to this point (`handoff generate --as-of / --before-request`). */
  cut?: SessionCut;
};

/**
 * The agent session working in a folder, kept up to date: discovery finds the newest Claude Code
 * transcript or Codex rollout whose cwd is the folder (the same rule as the context meter), and one
 * incremental reader per log reads only what the agent appended since the last call.
 */
export class SessionTracker {
  private readonly discovery: SessionDiscovery;
  private readonly readers = new Map<string, SessionReader>();
  private readonly tasks = new Map<string, AnyTaskReader>();
  private readonly settle: boolean;
  private readonly cut: SessionCut | undefined;

  constructor(options: SessionTrackerOptions) {
    const { agents, settle, cut, ...rest } = options;
    this.settle = settle === true;
    this.cut = cut;
    this.discovery = new SessionDiscovery({ ...rest, sources: agents ?? ['claude', 'codex'] });
  }

  /** The newest session's facts, or null when the folder has none. Never throws for bad files. */
  async read(): Promise<SessionFacts | null> {
    let found: SessionCandidate[];
    try {
      found = await this.discovery.find();
    } catch {
      return null;
    }
    const candidate = found.find((c) => c.source === 'claude' || c.source === 'codex' || isVscodeAgent(c.source));
    for (const file of [...this.readers.keys()]) if (file !== candidate?.file) this.readers.delete(file);
    for (const file of [...this.tasks.keys()]) if (file !== candidate?.file) this.tasks.delete(file);
    if (!candidate) return null;
    if (isVscodeAgent(candidate.source)) {
      // A task is rewritten whole, not appended to: it has no earlier moment to cut at.
      if (this.cut) throw new Error(`${candidate.file}: an earlier point can be chosen only in a Claude Code or Codex session log`);
      // A Cline / Roo Code / Zoo Code / Kilo Code task: JSON files rewritten whole (or a database), not an append-only log.
      const task = taskReaderFor({ ...candidate, source: candidate.source }, this.tasks.get(candidate.file));
      this.tasks.set(candidate.file, task);
      try {
        return await task.facts(this.settle);
      } catch {
        return null;
      }
    }
    let reader = this.readers.get(candidate.file);
    if (!reader) {
      reader = new SessionReader(candidate.file, candidate.source === 'claude' ? 'claude-code' : 'codex', this.cut ? { cut: this.cut } : {});
      this.readers.set(candidate.file, reader);
    }
    try {
      return await reader.read();
    } catch {
      return null;
    }
  }

  /** The reader of the session in use (for its read statistics). */
  readerFor(file: string): SessionReader | undefined {
    return this.readers.get(file);
  }
}

/** Reads the folder's session once (the CLI's way). */
export function readFolderSession(options: SessionTrackerOptions): Promise<SessionFacts | null> {
  return new SessionTracker(options).read();
}
