// The session's own judgement in the panel: a packet whose closing words, questions and failed attempts
// carry their sources (a Claude Code session file and its lines). The panel shows the closing words and
// the questions; a click on a failed attempt's source opens the session file at that line.
import assert from 'node:assert/strict';
import fs from 'node:fs';
import path from 'node:path';
import { fixturesDir } from '../lib/paths.mjs';
import { claudeProjectSlug, FIXTURE_BRANCH } from '../lib/workspace.mjs';

const SESSION = 'e539a78b-c8ef-4346-8b12-ae6ead581e57';
const CLOSING_LINE = 93;
const FAILED_LINE = 41;
const QUESTION = 'should the cursor be written before each retry (my recommendation), or only after a batch succeeds?';
let sessionFile = '';

/** The fixture's lines at the lines a reader names: the closing message and the failing pytest call. */
function lineText(file, n) {
  return fs.readFileSync(file, 'utf8').split('\n')[n - 1] ?? '';
}

/**
 * Before the workbench opens: the Claude Code session in the agent home, and a packet on the workspace's
 * branch and topic whose items point at that session's lines, as the generator writes them.
 */
export function prepare({ workspace, claudeDir }) {
  const dir = path.join(claudeDir, 'projects', claudeProjectSlug(workspace));
  fs.mkdirSync(dir, { recursive: true });
  sessionFile = path.join(dir, `${SESSION}.jsonl`);
  const raw = fs.readFileSync(path.join(fixturesDir(), 'transcripts', 'claude-tasks.jsonl'), 'utf8');
  fs.writeFileSync(sessionFile, raw.split('__CWD__').join(JSON.stringify(workspace).slice(1, -1)));
  const closingLine = JSON.parse(lineText(sessionFile, CLOSING_LINE));
  const closing = closingLine.message.content.filter((c) => c.type === 'text').map((c) => c.text).join('\n\n');
  const failedCall = JSON.parse(lineText(sessionFile, FAILED_LINE)).message.content.find((c) => c.type === 'tool_use');
  const src = (line, what) => ({ file: sessionFile, line, what });
  const packet = {
    schema_version: 1, packet_id: 'judgement-1', session_id: SESSION, topic: 'T-004', repo: 'refund-service', branch: FIXTURE_BRANCH,
    head_commit: null, last_known_good_commit: null, status: 'active', superseded_by: null, generated_at: '2026-11-20T10:08:00.000Z',
    summary: 'Retry with backoff added; the full suite still fails on the cursor test.',
    changed_files: [],
    commands_run: [{ index: 3, command: failedCall.input.command, exit_code: 1, outcome: 'failed', started_at: null, duration_ms: null, note: null, source: src(FAILED_LINE, '`Bash` call') }],
    commands_omitted: 0,
    failed_attempts: [{ index: 3, command: failedCall.input.command, outcome: 'failed', exit_code: 1, note: null, excerpt: 'FAILED test_retries_on_429', uncertain: false, source: src(FAILED_LINE, '`Bash` call') }],
    open_risks: [],
    next_action: 'change NightlyJob.run to persist the cursor before each retry, then re-run `python -m pytest -q`.',
    next_action_source: 'derived',
    next_action_origin: { kind: 'closing-next', source: src(CLOSING_LINE, 'closing message') },
    closing: { text: closing, source: src(CLOSING_LINE, 'closing message') },
    questions: [{ text: QUESTION, from: 'closing', source: src(CLOSING_LINE, 'closing message') }],
    waiting_for_answers: true,
    sources: { commands: `claude:${SESSION}`, next_action: 'closing words' },
    next_goal: null,
    verdict_pointer: { verification: null, review: null },
    decisions: [], assumptions_to_validate: [], questions_for_human: [], next_session_prereqs: [], clean_state: null, context: null, inputs: [],
  };
  const out = path.join(workspace, 'outputs', 'handoff', 'judgement-1');
  fs.mkdirSync(out, { recursive: true });
  fs.writeFileSync(path.join(out, 'handoff.json'), `${JSON.stringify(packet, null, 2)}\n`);
}

/** @type {{name: string, timeout?: number, fn: (ui: any) => Promise<void>}[]} */
export const steps = [
  {
    name: 'the panel shows the closing words after the next action, and the questions with their source',
    timeout: 90000,
    fn: async (ui) => {
      await ui.statusBarText('sessionHandoff.context', 60000);
      await ui.runCommand('Session Handoff: Open Active Handoff');
      const closing = ui.webview().locator('[data-testid="closing"]');
      await closing.waitFor({ state: 'visible', timeout: 30000 });
      const text = await closing.innerText();
      assert.match(text, /^Status: ProviderClient now retries 429/);
      assert.match(text, /Next: change NightlyJob\.run/);
      assert.ok(text.includes(`Question for you: ${QUESTION}`), 'the closing words are whole');
      const order = await ui.webview().locator('[data-section]').evaluateAll((els) => els.map((e) => e.getAttribute('data-section')));
      assert.ok(order.indexOf('next-action') < order.indexOf('closing') && order.indexOf('closing') < order.indexOf('questions'), order.join(','));
      const question = ui.webview().locator('[data-testid="question"]').first();
      assert.ok((await question.innerText()).includes(QUESTION));
      assert.match(await question.innerText(), new RegExp(`${SESSION}\\.jsonl:${CLOSING_LINE}`));
      assert.match(await ui.webview().locator('[data-testid="waiting"]').innerText(), /waiting for the answers/);
    },
  },
  {
    name: "a click on a failed attempt's source opens the session file at its line",
    timeout: 60000,
    fn: async (ui) => {
      const link = ui.webview().locator('[data-section="failed"] button.source').first();
      assert.equal(await link.innerText(), `${SESSION}.jsonl:${FAILED_LINE}`);
      await link.click();
      const tab = ui.page.locator('.tabs-container .tab', { hasText: `${SESSION}.jsonl` }).first();
      await tab.waitFor({ state: 'visible', timeout: 30000 });
      const cursor = ui.page.locator('.part.statusbar .statusbar-item', { hasText: /Ln \d+, Col \d+/ }).first();
      await ui.waitFor(async () => /Ln 41,/.test(await cursor.innerText().catch(() => '')), 15000, 'the cursor on the failed call\'s line');
      assert.ok(fs.existsSync(sessionFile));
    },
  },
];
