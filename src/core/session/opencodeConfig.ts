/**
 * OpenCode's own files (FORMATS: more-agents §1): where its database is, and the context window of a
 * model, which the database does not store — a custom provider declares it in `opencode.json`
 * (`provider.<id>.models.<model>.limit.context`, and `limit.output` for the reply reserve).
 */
import { promises as fs } from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import type { Obj } from './vscodeTask';
import { num, obj } from './vscodeTask';

/** OpenCode's data folder: `$XDG_DATA_HOME/opencode`, else `~/.local/share/opencode` (every OS). */
export function opencodeDataDir(env: NodeJS.ProcessEnv = process.env, home = os.homedir()): string {
  return path.join(env['XDG_DATA_HOME'] || path.join(home, '.local', 'share'), 'opencode');
}

/** `opencode.db` where OpenCode keeps it: `$OPENCODE_DB` (absolute, or relative to the data folder), else `<data>/opencode.db`. */
export function defaultOpencodeDbPath(env: NodeJS.ProcessEnv = process.env, home = os.homedir()): string {
  const data = opencodeDataDir(env, home);
  const explicit = env['OPENCODE_DB'];
  if (explicit && explicit !== ':memory:') return path.isAbsolute(explicit) ? explicit : path.join(data, explicit);
  return path.join(data, 'opencode.db');
}

/** The model limits a config declares: `limit.context`, `limit.output` (tokens). */
export interface ModelLimits {
  context: number;
  output?: number;
  /** The config file that says so. */
  file: string;
}

/** JSON with `//` and `/* *\/` comments and trailing commas (`opencode.jsonc`), strings kept as they are. */
export function parseJsonc(text: string): unknown {
  let out = '';
  for (let i = 0; i < text.length; i++) {
    const c = text[i] as string;
    if (c === '"') {
      const m = /^"(?:[^"\\]|\\.)*"/.exec(text.slice(i));
      const s = m?.[0] ?? text.slice(i);
      out += s;
      i += s.length - 1;
    } else if (c === '/' && text[i + 1] === '/') {
      while (i < text.length && text[i] !== '\n') i++;
      out += '\n';
    } else if (c === '/' && text[i + 1] === '*') {
      const end = text.indexOf('*/', i + 2);
      i = end < 0 ? text.length : end + 1;
    } else out += c;
  }
  return JSON.parse(out.replace(/,(\s*[}\]])/g, '$1'));
}

/** OpenCode's config files, weakest first: the global ones, `$OPENCODE_CONFIG`, then the project's. */
export function opencodeConfigFiles(cwd: string | null, env: NodeJS.ProcessEnv = process.env, home = os.homedir()): string[] {
  const global = path.join(env['XDG_CONFIG_HOME'] || path.join(home, '.config'), 'opencode');
  const files = ['config.json', 'opencode.json', 'opencode.jsonc'].map((n) => path.join(global, n));
  if (env['OPENCODE_CONFIG']) files.push(env['OPENCODE_CONFIG']);
  if (cwd) for (const d of [cwd, path.join(cwd, '.opencode')]) files.push(path.join(d, 'opencode.json'), path.join(d, 'opencode.jsonc'));
  return files;
}

/** The limits one parsed config gives a provider's model, if any. */
export function limitsIn(config: unknown, providerId: string, modelId: string, file: string): ModelLimits | null {
  const limit: Obj | undefined = obj(obj(obj(obj(obj(config)?.['provider'])?.[providerId])?.['models'])?.[modelId])?.['limit'] as Obj | undefined;
  const context = num(obj(limit)?.['context']);
  if (!(context > 0)) return null;
  const output = num(obj(limit)?.['output']);
  return { context, ...(output > 0 ? { output } : {}), file };
}

/**
 * The window of `providerId/modelId` from OpenCode's config files (the strongest that declares it);
 * null when none does (a catalogue provider: its window is in OpenCode's catalogue, not here).
 * A file that is missing or not JSON is passed over: it declares nothing.
 */
export async function opencodeModelLimits(providerId: string, modelId: string, cwd: string | null, env: NodeJS.ProcessEnv = process.env, home = os.homedir()): Promise<ModelLimits | null> {
  let found: ModelLimits | null = null;
  for (const file of opencodeConfigFiles(cwd, env, home)) {
    let text: string;
    try {
      text = await fs.readFile(file, 'utf8');
    } catch {
      continue;
    }
    try {
      found = limitsIn(parseJsonc(text), providerId, modelId, file) ?? found;
    } catch {
      // Not JSON: it declares nothing.
    }
  }
  return found;
}
