import type { FlagSpec } from '../types';

/**
 * The flags of `handoff hook`, apart from the command so that the small hook entry (src/cli/hook.ts,
 * which answers the frequent events without loading the full command line) parses them the same way.
 */
export const HOOK_FLAGS: FlagSpec[] = [
  { name: 'output-dir', type: 'string', placeholder: 'DIR', help: 'where packets go, relative to the workbench (default: outputs/handoff)' },
  { name: 'warn-at', type: 'number', placeholder: 'F', help: 'wrap-up threshold as a fraction of the window (default 0.5)' },
  { name: 'urge-at', type: 'number', placeholder: 'F', help: 'urgent threshold as a fraction of the window (default 0.75)' },
  { name: 'agent', type: 'string', placeholder: 'AGENT', help: 'the agent that runs the hook, for its tool names in the handoff: claude, codex, gemini or qwen (default: told apart by the event)' },
];
