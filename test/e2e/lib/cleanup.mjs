// Teardown that always runs: on success, on failure, on Ctrl-C / SIGTERM and on uncaught errors.
// Process groups (code-server and everything it forks) are also killed synchronously on 'exit' as a
// last resort, so no extension host outlives the run.

/** @type {Set<() => Promise<void> | void>} */
const cleaners = new Set();
/** @type {Set<number>} process-group ids to SIGKILL on exit */
const groups = new Set();
/** @type {Set<() => void>} synchronous last-resort cleaners (e.g. removing a run folder) */
const exitCleaners = new Set();
let installed = false;
let shuttingDown = false;

function killGroupSync(pgid) {
  try { process.kill(-pgid, 'SIGKILL'); } catch { /* already gone */ }
}

/** True once a signal or an uncaught error started the shutdown (its handler sets the exit code). */
export function shuttingDownNow() {
  return shuttingDown;
}

/** Runs every registered cleaner once, newest first; errors are reported, never thrown. */
export async function runCleanups() {
  const list = [...cleaners].reverse();
  cleaners.clear();
  for (const fn of list) {
    try { await fn(); } catch (e) { console.error(`cleanup: ${e instanceof Error ? e.message : e}`); }
  }
}

function install() {
  if (installed) return;
  installed = true;
  const onSignal = (signal, code) => {
    if (shuttingDown) return;
    shuttingDown = true;
    console.error(`\n${signal}: stopping code-server and the browser…`);
    // A hung cleanup must not keep the run alive: the 'exit' hook still kills the groups.
    const deadline = setTimeout(() => process.exit(code), 8000);
    runCleanups().finally(() => { clearTimeout(deadline); process.exit(code); });
  };
  process.on('SIGINT', () => onSignal('SIGINT', 130));
  process.on('SIGTERM', () => onSignal('SIGTERM', 143));
  process.on('SIGHUP', () => onSignal('SIGHUP', 129));
  const onError = (err) => {
    console.error(err instanceof Error ? err.stack : err);
    if (shuttingDown) return;
    shuttingDown = true;
    const deadline = setTimeout(() => process.exit(1), 8000);
    runCleanups().finally(() => { clearTimeout(deadline); process.exit(1); });
  };
  process.on('uncaughtException', onError);
  process.on('unhandledRejection', onError);
  process.on('exit', () => {
    for (const g of groups) killGroupSync(g);
    for (const fn of exitCleaners) { try { fn(); } catch { /* exiting anyway */ } }
  });
}

/**
 * Registers an async cleanup; returns a function that unregisters it (call it after cleaning up yourself).
 * @param {() => Promise<void> | void} fn
 */
export function onCleanup(fn) {
  install();
  cleaners.add(fn);
  return () => cleaners.delete(fn);
}

/**
 * Registers a synchronous cleaner that runs when the process exits however it exits (after the tracked
 * process groups are killed); returns a function that unregisters it.
 * @param {() => void} fn
 */
export function onExitSync(fn) {
  install();
  exitCleaners.add(fn);
  return () => exitCleaners.delete(fn);
}

/**
 * Tracks a process group that must not survive this process.
 * @param {number} pgid
 */
export function trackGroup(pgid) {
  install();
  groups.add(pgid);
}

/** @param {number} pgid */
export function untrackGroup(pgid) {
  groups.delete(pgid);
}

/** True while any process of the group is alive. @param {number} pgid */
export function groupAlive(pgid) {
  try { process.kill(-pgid, 0); return true; } catch { return false; }
}

/**
 * SIGTERM the whole group, then SIGKILL whatever is left after `graceMs`.
 * @param {number} pgid
 * @param {number} [graceMs]
 */
export async function killGroup(pgid, graceMs = 3000) {
  try { process.kill(-pgid, 'SIGTERM'); } catch { untrackGroup(pgid); return; }
  const t0 = Date.now();
  while (groupAlive(pgid) && Date.now() - t0 < graceMs) await new Promise((r) => setTimeout(r, 100));
  if (groupAlive(pgid)) killGroupSync(pgid);
  untrackGroup(pgid);
}
