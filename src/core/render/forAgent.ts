import type { Packet } from '../packet/schema';
import { redact } from '../redact';
import { ident } from './markdown';
import type { PromptExtra } from './prompt';
import { renderRestartPrompt } from './prompt';

/** The agents a restart prompt can be written for. */
export type PromptAgent = 'claude' | 'codex' | 'gemini' | 'qwen' | 'copilot';

export const PROMPT_AGENTS: readonly PromptAgent[] = ['claude', 'codex', 'gemini', 'qwen', 'copilot'];

const TITLES: Record<PromptAgent, string> = { claude: 'Claude Code', codex: 'Codex', gemini: 'Gemini CLI', qwen: 'Qwen Code', copilot: 'Copilot CLI' };

export const agentTitle = (a: PromptAgent): string => TITLES[a];

/**
 * Claude Code and Codex save what is injected at session start in a file once it passes 10 000
 * characters, and show the model only a preview: the injected prompt stays below this.
 */
export const INJECT_MAX_CHARS = 9_500;

/** Which agent's session a packet was written from: its context reading, else where its facts came from. */
export function packetAgent(p: Packet): PromptAgent | undefined {
  const source = p.context?.known ? p.context.source : undefined;
  if (source === 'claude' || source === 'codex') return source;
  for (const v of Object.values(p.sources ?? {})) {
    const m = /^(claude|codex)\b/.exec(v);
    if (m) return m[1] as PromptAgent;
  }
  return undefined;
}

/** How each agent names the same work, and runs a long test suite without blocking the session. */
const TOOLS: Record<PromptAgent, { tools: string; background: string }> = {
  claude: {
    tools: 'run commands with Bash, read files with Read, change them with Edit or Write, keep the task list with TodoWrite (or TaskCreate/TaskUpdate)',
    background: 'run a long test suite with Bash and `run_in_background: true`, then read its output with BashOutput while you go on',
  },
  codex: {
    tools: 'run commands with your shell tool (exec_command), change files with apply_patch, keep the task list with update_plan',
    background: 'start a long test suite with exec_command and a short yield_time_ms, then poll its session with write_stdin while you go on',
  },
  gemini: {
    tools: 'run commands with run_shell_command, read files with read_file, change them with replace or write_file, keep the task list with write_todos',
    background: 'start a long test suite with run_shell_command and `is_background: true`, then read its output while you go on',
  },
  qwen: {
    tools: 'run commands with run_shell_command, read files with read_file, change them with edit or write_file, keep the task list with todo_write',
    background: 'start a long test suite with run_shell_command and `is_background: true`, then read its output while you go on',
  },
  copilot: {
    tools: 'run commands with bash, read files with view, change them with edit or create, keep the task list in the todos table with sql',
    background: 'start a long test suite with bash and `mode: "async"`, then read its output with read_bash while you go on',
  },
};

/**
 * The first lines of a prompt for `target`: which agent and session the packet came from, and — when
 * that is another agent — that the record names the other agent's tools, with this agent's own names
 * and way of running tests in the background.
 */
export function agentPreamble(p: Packet, target: PromptAgent): string {
  const from = packetAgent(p);
  const lines = [`HANDOFF FROM ${from ? agentTitle(from).toUpperCase() : 'A PREVIOUS SESSION'} (session ${ident(p.session_id)}) TO ${agentTitle(target).toUpperCase()}.`];
  if (from === target) {
    lines.push(`This packet was written from a ${agentTitle(from)} session, like this one.`);
    return redact(lines.join('\n'));
  }
  lines.push(
    from
      ? `This packet was written from a ${agentTitle(from)} session; you are ${agentTitle(target)}. The record below may use ${agentTitle(from)}'s tool names: do the same work with your own tools — ${TOOLS[target].tools}.`
      : `The agent of the previous session is not recorded; you are ${agentTitle(target)}. The record below may use another agent's tool names: do the same work with your own tools — ${TOOLS[target].tools}.`,
    `To keep working while tests run: ${TOOLS[target].background}.`,
  );
  return redact(lines.join('\n'));
}

/**
 * The restart prompt of a packet for `target`: the agent preamble, then the packet's restart prompt;
 * past `maxChars` the prompt is cut at a line (the instructions on how to reply stay) and names
 * `handoff.md` for the rest. `packetDir` is where that file is (relative or absolute).
 */
export function renderForAgent(p: Packet, target: PromptAgent, extra: PromptExtra = {}, opts: { packetDir?: string; maxChars?: number } = {}): string {
  const max = opts.maxChars ?? INJECT_MAX_CHARS;
  const md = `${opts.packetDir ?? `outputs/handoff/${p.packet_id}`}/handoff.md`.replace(/\\/g, '/');
  const head = agentPreamble(p, target);
  const tail = redact(`Full packet: ${md}`);
  const prompt = renderRestartPrompt(p, extra);
  const whole = `${head}\n\n${prompt}${tail}\n`;
  if (whole.length <= max) return whole;
  const marker = `…(cut to fit; the rest is in ${md})\n`;
  const room = max - head.length - tail.length - marker.length - 4;
  const cut = prompt.slice(0, Math.max(0, room));
  const atLine = cut.lastIndexOf('\n');
  return redact(`${head}\n\n${atLine > 0 ? cut.slice(0, atLine + 1) : cut}${marker}${tail}\n`);
}
