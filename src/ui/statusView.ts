import { uncoveredCompaction } from '../core/context/compaction';
import type { WorkbenchUiState } from './state/types';
import { escapeMarkdown } from './markdownText';

const SOURCE_NAME = { claude: 'Claude Code', codex: 'Codex CLI', generic: 'context_usage.json', cline: 'Cline', roo: 'Roo Code', zoo: 'Zoo Code', kilo: 'Kilo Code', opencode: 'OpenCode', 'copilot-chat': 'Copilot Chat', gemini: 'Gemini CLI', qwen: 'Qwen Code', 'copilot-cli': 'Copilot CLI' } as const;

/** What the status bar item shows, computed from a state (pure; tests read it through the controller). */
export interface StatusView {
  text: string;
  tooltip: string;
  background: 'warning' | 'error' | null;
  accessibility: string;
}

/** Agent- and git-derived text goes into Markdown: escape it so it renders as written. */
const esc = escapeMarkdown;

/** The status bar text, tooltip and background for a folder's state. */
export function statusView(s: WorkbenchUiState | undefined): StatusView {
  if (!s) return { text: '$(loading~spin) Handoff', tooltip: 'Session Handoff: reading the workbench…', background: null, accessibility: 'Session Handoff: loading' };
  const c = s.context;
  const pct = c.known ? `${Math.round(c.percent)}%` : '—';
  const clean = !s.trusted || !s.clean ? '' : s.clean.clean ? ' $(pass)' : ' $(warning)';
  const lines: string[] = [`**Session Handoff** · ${esc(s.folder.name)}`, ''];
  if (c.known) {
    lines.push(
      `Context: **${c.percent.toFixed(1)}%** used (${SOURCE_NAME[c.source]})`,
      `- Session: ${esc(c.sessionId)}`,
      `- Tokens: ${c.usedTokens.toLocaleString('en-US')} of ${c.windowTokens.toLocaleString('en-US')}`,
      `- Agent compacts at ≈ ${Math.round(c.compactAtPercent)}%`,
    );
    if (s.budget === 'wrap-up') lines.push('', '$(warning) Time to wrap up: generate a handoff while the context is clean.');
    if (s.budget === 'urgent') lines.push('', '$(error) Wrap up now: the agent will compact soon.');
  } else {
    lines.push(`Context: unknown — ${esc(c.reason)}`);
  }
  const lost = compactionNotice(s);
  // Our own words and numbers, not agent text: no escaping needed.
  if (lost) lines.push('', `$(warning) **${lost.charAt(0).toUpperCase() + lost.slice(1)}.** [Generate Handoff](command:sessionHandoff.generateHandoff)`);
  lines.push('');
  if (!s.trusted) lines.push('Clean state: not checked (untrusted workspace).');
  else if (!s.clean) lines.push(`Clean state: ${esc(s.phaseMessage ?? 'not checked yet')}`);
  else if (s.clean.clean) lines.push('Clean state: $(pass) clean');
  else {
    const failing = s.clean.checks.filter((ch) => !ch.passed).map((ch) => ch.title);
    lines.push(`Clean state: $(warning) ${s.clean.findings.length} finding(s) — ${failing.join(', ')}`);
  }
  const a = s.activePacket;
  lines.push('', a ? `Handoff: ${esc(a.id)}${a.freshness.stale ? ` — **stale**: ${esc(a.freshness.reasons.join(' '))}` : ' (fresh)'}` : 'Handoff: none yet for this branch.');
  lines.push('', a ? 'Click to open the handoff.' : 'Click to open the handoff panel and generate one.');
  return {
    text: `$(dashboard) ${pct}${clean}`,
    tooltip: lines.join('\n'),
    background: s.budget === 'urgent' ? 'error' : s.budget === 'wrap-up' ? 'warning' : null,
    accessibility: `Context ${c.known ? `${Math.round(c.percent)} percent used` : 'unknown'}${s.clean ? `, workbench ${s.clean.clean ? 'clean' : 'not clean'}` : ''}`,
  };
}

/** `compacted at 84 % without a handoff`, when the agent compacted and no packet covers it; else null. */
export function compactionNotice(s: WorkbenchUiState): string | null {
  return uncoveredCompaction(s.context, s.packets.map((p) => p.writtenAt ?? 0))?.text ?? null;
}
