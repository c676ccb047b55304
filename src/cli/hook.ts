// `handoff hook` as the agents run it: before every prompt (UserPromptSubmit), after every turn (Stop),
// at session start and end. Those answers must be quick, so this small bundle reads the event and
// answers them itself — the wrap-up line from the transcript's tail; SessionEnd / PreCompact / Stop
// queued for the background worker (loaded only then); SessionStart from a bundle of its own
// (dist/hookStart.js) — and loads the full command line only for the rest (a compaction's SessionStart,
// the worker itself, --help).
import { readFileSync } from 'node:fs';
import * as path from 'node:path';
import { parseArgs } from './args';
import { requireWithCodeCache } from './codeCache';
import type { sessionStartHook } from './hookStart';
import { endsNoSession, parseHookEvent, PRELOADED_STDIN } from './commands/hookEvent';
import { HOOK_FLAGS } from './commands/hookFlags';
import { stopNeedsPacket, wrapUpOutput } from './commands/wrapUpHook';


function readStdin(): string {
  try {
    return readFileSync(0, 'utf8');
  } catch {
    return '';
  }
}

const argv = process.argv.slice(2);
if (argv[0] === 'hook') argv.shift();
const raw = argv.includes('--help') || argv.includes('-h') ? '' : readStdin();

/** True when the event was answered here; false hands it to the full command line. */
async function answer(): Promise<boolean> {
  const parsed = parseArgs(argv, HOOK_FLAGS);
  const event = parseHookEvent(raw);
  if (!parsed.ok || !event) return false;
  const cwd = path.resolve(process.cwd(), event.cwd);
  if (event.hook_event_name === 'UserPromptSubmit') {
    const out = await wrapUpOutput(event, parsed.flags, process.env, cwd);
    if (out) process.stdout.write(out);
    return true;
  }
  // A session that never began (`claude mcp list`): nothing to write, nothing to log.
  if (await endsNoSession(event, cwd)) return true;
  // Loaded only now: the prompt's answer above needs none of the queue's modules (locks, processes).
  const { isInline, queueCompletion } = await import('./commands/hookDetached');
  if (isInline(process.env)) return false;
  if (event.hook_event_name === 'SessionStart') {
    // A compaction writes the packet again: the full command line's work.
    if (event.source === 'compact') return false;
    // A path chosen at run time: SessionStart's answer stays a bundle of its own, loaded only here.
    const start = requireWithCodeCache(path.join(__dirname, 'hookStart.js')) as { sessionStartHook: typeof sessionStartHook };
    return start.sessionStartHook(event, parsed.flags, { stdout: (t) => void process.stdout.write(t), stderr: (t) => void process.stderr.write(t), cwd: process.cwd(), env: process.env });
  }
  const generating = event.hook_event_name === 'SessionEnd' || event.hook_event_name === 'PreCompact';
  if (generating || event.hook_event_name === 'Stop') {
    if (!generating && !(await stopNeedsPacket(event, parsed.flags, cwd))) return true;
    // Not queued (the reason): the full command line says why in the folder's hook.log.
    return (await queueCompletion(raw, argv, process.env, process.cwd())) === null;
  }
  return false;
}

answer().then(
  (done) => (done ? finish() : full()),
  () => full(),
);

function finish(): void {
  process.exitCode = 0;
  process.stdout.write('', () => process.exit(0));
}

function full(): void {
  (globalThis as Record<string, unknown>)[PRELOADED_STDIN] = raw;
  // A path chosen at run time: the full command line stays a bundle of its own.
  // eslint-disable-next-line @typescript-eslint/no-require-imports
  require(path.join(__dirname, 'handoff.js'));
}
