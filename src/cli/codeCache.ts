import { readFileSync, renameSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { Module } from 'node:module';
import * as path from 'node:path';
import { Script } from 'node:vm';

/** How old a cache may get before a run writes it again. */
const REFRESH_MS = 60 * 60 * 1000;

/**
 * Loads a CommonJS bundle as `require` would, with V8's code cache kept beside it. The statusline runs
 * as a new process after every agent message, and compiling its bundle — and each function as it first
 * runs — is a good part of its own run time; with the cache V8 deserializes instead. The cache is
 * written when the process exits after a run without one, or whose cache V8 rejected (another bundle,
 * another Node), and again once it is an hour old: it holds only the functions its run compiled, and the
 * first run of a session may have taken a short path. A folder that cannot be written simply gets none.
 * It sits beside the bundle, so only who can already change the bundle can change it.
 */
export function requireWithCodeCache(file: string): unknown {
  const cacheFile = path.join(path.dirname(file), `.${path.basename(file)}.v8cache`);
  const source = readFileSync(file, 'utf8');
  let cachedData: Buffer | undefined;
  let old = false;
  try {
    cachedData = readFileSync(cacheFile);
    old = Date.now() - statSync(cacheFile).mtimeMs > REFRESH_MS;
  } catch {
    // no cache yet
  }
  const script = new Script(`(function (exports, require, module, __filename, __dirname) {${source}\n})`, { filename: file, cachedData });
  if (!cachedData || script.cachedDataRejected || old) {
    process.once('exit', () => {
      const tmp = `${cacheFile}.${process.pid}.tmp`;
      try {
        writeFileSync(tmp, script.createCachedData(), { flag: 'wx' });
        renameSync(tmp, cacheFile);
      } catch {
        rmSync(tmp, { force: true });
      }
    });
  }
  const mod = new Module(file, module);
  mod.filename = file;
  const run = script.runInThisContext() as (e: unknown, r: NodeJS.Require, m: Module, f: string, d: string) => void;
  run.call(mod.exports, mod.exports, ((id: string) => mod.require(id)) as NodeJS.Require, mod, file, path.dirname(file));
  return mod.exports;
}
