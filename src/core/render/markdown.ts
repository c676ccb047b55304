import type { Packet } from '../packet/schema';
import { orderRisks } from '../packet/severity';

/** Inline code that survives backticks inside the text. */
export function code(text: string): string {
  const oneLine = text.replace(/\s*\n\s*/g, ' ');
  const fence = oneLine.includes('`') ? '``' : '`';
  return `${fence}${fence === '``' ? ' ' : ''}${oneLine}${fence === '``' ? ' ' : ''}${fence}`;
}

/**
 * Agent text goes into markdown as one line, with the characters that could restructure the page or
 * inject HTML escaped (`_` stays: intraword underscores are not emphasis and paths are full of them).
 */
export function inline(text: string): string {
  return text.replace(/\s*\n\s*/g, ' ').replace(/([\\`*[\]<>|])/g, '\\$1');
}

const short = (sha: string | null): string => (sha ? sha.slice(0, 12) : 'unknown');

/**
 * Renders `handoff.md` from the packet alone: every statement here is a field of the JSON, so the two
 * can never disagree. Deterministic like the JSON.
 */
export function renderMarkdown(p: Packet): string {
  const out: string[] = [];
  out.push(`# Handoff: ${inline(p.topic)}`, '');
  out.push(`- Session: ${code(p.session_id)} · packet ${code(p.packet_id)} · status **${p.status}**${p.superseded_by ? ` by ${code(p.superseded_by)}` : ''}`);
  out.push(`- Repository: ${p.repo ? code(p.repo) : 'unknown'} · branch ${p.branch ? code(p.branch) : 'unknown'} · HEAD ${code(short(p.head_commit))}`);
  out.push(`- Last known good commit: ${code(short(p.last_known_good_commit))}`);
  out.push(`- Generated at: ${p.generated_at}`);
  if (p.context) {
    out.push(p.context.known
      ? `- Context at generation: ${p.context.percent.toFixed(1)} % (${p.context.usedTokens} of ${p.context.windowTokens} tokens, ${p.context.source})`
      : `- Context at generation: unknown (${inline(p.context.reason)})`);
  }
  out.push('', '## Next action', '', inline(p.next_action), '', `_(${p.next_action_source === 'agent_state' ? 'recorded by the agent' : 'derived from the artifacts'})_`);
  out.push('', '## Summary', '', inline(p.summary));

  out.push('', '## Open risks', '');
  if (!p.open_risks.length) out.push('None recorded.');
  for (const r of orderRisks(p.open_risks)) {
    const extra = [r.owner ? `owner: ${r.owner}` : '', r.verify ? `verify: ${code(r.verify)}` : '', r.paths?.length ? `paths: ${r.paths.map(code).join(', ')}` : '']
      .filter(Boolean).join(' · ');
    out.push(`- **${r.severity}** ${code(r.id)} ${inline(r.detail)} _(source: ${inline(r.source)})_${extra ? ` — ${extra}` : ''}`);
  }

  out.push('', '## Failed attempts', '');
  if (!p.failed_attempts.length) out.push('None.');
  for (const f of p.failed_attempts) {
    const how = f.outcome === 'failed' ? `failed (exit ${f.exit_code})` : f.outcome === 'timeout' ? 'timed out' : 'did not complete';
    out.push(`- #${f.index} ${code(f.command)} — ${how}${f.uncertain ? ' — **uncertain: may have partly applied, check before re-running**' : ''}`);
    if (f.note) out.push(`  - note: ${inline(f.note)}`);
    out.push(`  - output: ${code(f.excerpt)}`);
  }

  out.push('', `## Commands run (${p.commands_run.length} kept, ${p.commands_omitted} left out)`, '');
  out.push('| # | command | outcome | exit | note |', '|---|---|---|---|---|');
  for (const c of p.commands_run) {
    out.push(`| ${c.index} | ${code(c.command).replace(/\|/g, '\\|')} | ${c.outcome} | ${c.exit_code ?? 'null'} | ${c.note ? inline(c.note) : ''} |`);
  }

  out.push('', '## Changed files', '');
  if (!p.changed_files.length) out.push('None recorded.');
  for (const f of p.changed_files) out.push(`- ${code(f.path)} (${f.kind}${f.from ? ` from ${code(f.from)}` : ''})`);

  const list = (title: string, items: string[], empty: string): void => {
    out.push('', `## ${title}`, '');
    if (!items.length) out.push(empty);
    for (const i of items) out.push(`- ${i}`);
  };
  list('Decisions', p.decisions.map((d) => `${d.status === 'rejected' ? '**rejected** — do not retry: ' : 'made: '}${inline(d.text)}`), 'None recorded.');
  list('Assumptions to validate (unverified)', p.assumptions_to_validate.map((a) => inline(a.text)), 'None recorded.');
  list('Questions for a human', p.questions_for_human.map(inline), 'None.');
  list('Read before acting', p.next_session_prereqs.map(code), 'Nothing listed.');

  out.push('', '## Verdicts', '');
  const v = p.verdict_pointer.verification;
  const r = p.verdict_pointer.review;
  out.push(`- Verification: ${v ? `${v.passed ? 'passed' : 'failed'} (${code(v.file)}${v.task_id ? `, task ${code(v.task_id)}` : ''})` : 'none'}`);
  out.push(`- Review: ${r ? `${r.verdict} ${r.total}/10 (${code(r.file)}${r.task_id ? `, task ${code(r.task_id)}` : ''})` : 'none'}`);
  if (p.clean_state) {
    out.push(`- Clean state: ${p.clean_state.clean ? 'clean' : `dirty (${p.clean_state.findings.length} findings)`}`);
    for (const f of p.clean_state.findings) out.push(`  - ${f.check}: ${inline(f.detail)} — fix: ${inline(f.fix)}`);
  }
  out.push('', '## Inputs', '');
  for (const i of p.inputs) out.push(`- ${code(i.file)} sha256 ${code(i.sha256.slice(0, 16))}`);
  return `${out.join('\n')}\n`;
}
