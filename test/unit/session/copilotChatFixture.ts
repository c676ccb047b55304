import { promises as fs } from 'node:fs';
import * as path from 'node:path';
import { pathToFileURL } from 'node:url';
import { loadSqlJs } from './kiloDbFixture';

/**
 * Copilot Chat session stores of each generation, written by the test (no real store exists in the
 * fixtures): the shapes are those of FORMATS (more-agents §5, vscode-agents "GitHub Copilot Chat"),
 * which rest on VS Code's `chatSessionStore.ts` / `objectMutationLog.ts`, the Copilot extension's
 * `sessionTranscriptService.ts`, and third-party readers' issue threads — not on a file VS Code wrote.
 *
 * The session is the more-agents one: a request, `node test/slug.test.js` failing (exit 1), an edit of
 * `src/slug.js`, the test passing (exit 0), closing words that ask a question.
 */
export const CHAT = {
  request: 'The slug test fails on accented titles. Fix slugify in src/slug.js so `node test/slug.test.js` passes, and keep the change small.',
  command: 'node test/slug.test.js',
  failOutput: "AssertionError [ERR_ASSERTION]: 'crème-brûlée!' !== 'creme-brulee'",
  passOutput: 'ok - 2 slug tests passed',
  closing: 'Fixed `slugify` in `src/slug.js`: it strips accents now. Should I add a test and fall back to `untitled` for that case?',
  t0: Date.parse('2026-11-10T09:00:00Z'),
} as const;

/** The generation-1 session object (`version: 3`) of the session, in `folder`. */
export function sessionObject(folder: string, sessionId: string): Record<string, unknown> {
  const slug = path.join(folder, 'src', 'slug.js');
  const terminal = (id: string, exitCode: number, text: string) => ({
    kind: 'toolInvocationSerialized',
    toolId: 'run_in_terminal',
    toolCallId: id,
    isConfirmed: true,
    toolSpecificData: { kind: 'terminal', commandLine: { original: CHAT.command }, terminalCommandOutput: { text }, terminalCommandState: { exitCode, timestamp: CHAT.t0 + 5000, duration: 400 } },
  });
  return {
    version: 3,
    sessionId,
    creationDate: CHAT.t0,
    lastMessageDate: CHAT.t0 + 60_000,
    requesterUsername: 'dev',
    responderUsername: 'GitHub Copilot',
    initialLocation: 'panel',
    requests: [
      {
        requestId: 'request_1',
        timestamp: CHAT.t0 + 1000,
        message: { text: CHAT.request, parts: [] },
        modelId: 'copilot/gpt-4.1',
        response: [
          { kind: 'markdownContent', content: { value: 'Reproducing the failure first.' } },
          terminal('call_1', 1, CHAT.failOutput),
          { kind: 'markdownContent', content: { value: 'The regex keeps accents.' } },
          { kind: 'textEditGroup', uri: { $mid: 1, scheme: 'file', path: slug, fsPath: slug }, edits: [] },
          terminal('call_2', 0, CHAT.passOutput),
          { kind: 'markdownContent', content: { value: CHAT.closing } },
        ],
        result: { timings: { firstProgress: 800, totalElapsed: 40_000 }, metadata: {} },
        editedFileEvents: [{ uri: { scheme: 'file', path: slug, fsPath: slug }, eventKind: 1 }],
      },
    ],
  };
}

/** A `workspaceStorage/<hash>/` with its `workspace.json` naming `folder`. */
async function hashDir(root: string, hash: string, folder: string): Promise<string> {
  const dir = path.join(root, hash);
  await fs.mkdir(dir, { recursive: true });
  await fs.writeFile(path.join(dir, 'workspace.json'), JSON.stringify({ folder: pathToFileURL(folder).href }));
  return dir;
}

/** Generation 1: `chatSessions/<id>.json`. */
export async function placeGen1(root: string, folder: string, sessionId = 'gen1-session'): Promise<string> {
  const dir = path.join(await hashDir(root, 'a1', folder), 'chatSessions');
  await fs.mkdir(dir, { recursive: true });
  const file = path.join(dir, `${sessionId}.json`);
  await fs.writeFile(file, JSON.stringify(sessionObject(folder, sessionId), null, 2));
  return file;
}

/**
 * Generation 2: `chatSessions/<id>.jsonl`, a mutation log: the object without its request (kind 0),
 * the request pushed without its response (kind 2), the response parts pushed in two steps, the
 * result set (kind 1), a stray property set and deleted (kind 3).
 */
export async function placeGen2(root: string, folder: string, sessionId = 'gen2-session'): Promise<string> {
  const dir = path.join(await hashDir(root, 'b2', folder), 'chatSessions');
  await fs.mkdir(dir, { recursive: true });
  const whole = sessionObject(folder, sessionId);
  const request = (whole['requests'] as Record<string, unknown>[])[0] as Record<string, unknown>;
  const response = request['response'] as unknown[];
  const lines = [
    { kind: 0, v: { ...whole, requests: [] } },
    { kind: 2, k: ['requests'], v: [{ ...request, response: [{ kind: 'markdownContent', content: { value: 'a draft that is replaced' } }], result: undefined }] },
    { kind: 2, k: ['requests', 0, 'response'], v: response.slice(0, 3), i: 0 },
    { kind: 2, k: ['requests', 0, 'response'], v: response.slice(3) },
    { kind: 1, k: ['requests', 0, 'result'], v: request['result'] },
    { kind: 1, k: ['inputState'], v: { text: 'half typed' } },
    { kind: 3, k: ['inputState'] },
  ];
  const file = path.join(dir, `${sessionId}.jsonl`);
  await fs.writeFile(file, lines.map((l) => JSON.stringify(l)).join('\n') + '\n');
  return file;
}

/** Generation 3: `GitHub.copilot-chat/transcripts/<id>.jsonl`, with `assistant.usage` entries (newer builds). */
export async function placeGen3(root: string, folder: string, sessionId = 'gen3-session', o: { usage?: boolean } = {}): Promise<string> {
  const dir = path.join(await hashDir(root, 'c3', folder), 'GitHub.copilot-chat', 'transcripts');
  await fs.mkdir(dir, { recursive: true });
  const slug = path.join(folder, 'src', 'slug.js');
  let n = 0;
  const at = () => new Date(CHAT.t0 + 1000 * ++n).toISOString();
  const entries: { type: string; data: Record<string, unknown> }[] = [
    { type: 'session.start', data: { sessionId, version: 1, producer: 'copilot-agent', copilotVersion: '0.40.0', vscodeVersion: '1.137.0', startTime: new Date(CHAT.t0).toISOString(), context: { cwd: folder } } },
    { type: 'user.message', data: { content: CHAT.request, attachments: [] } },
    { type: 'assistant.turn_start', data: { turnId: 't1' } },
    { type: 'assistant.message', data: { messageId: 'm1', content: 'Reproducing the failure first.', toolRequests: [{ toolCallId: 'call_1', name: 'run_in_terminal', arguments: JSON.stringify({ command: CHAT.command, explanation: 'run the test' }), type: 'function' }] } },
    { type: 'tool.execution_start', data: { toolCallId: 'call_1', toolName: 'run_in_terminal', arguments: { command: CHAT.command } } },
    { type: 'tool.execution_complete', data: { toolCallId: 'call_1', success: true, result: { content: CHAT.failOutput } } },
    ...(o.usage === false ? [] : [{ type: 'assistant.usage', data: { model: 'gpt-4.1', inputTokens: 8000, outputTokens: 120, totalTokens: 8120, cacheReadTokens: 6000, cacheCreationInputTokens: 0 } }]),
    { type: 'assistant.message', data: { messageId: 'm2', content: 'The regex keeps accents.', toolRequests: [{ toolCallId: 'call_e', name: 'replace_string_in_file', arguments: '{}', type: 'function' }] } },
    { type: 'tool.execution_start', data: { toolCallId: 'call_e', toolName: 'replace_string_in_file', arguments: { filePath: slug, oldString: 'a', newString: 'b' } } },
    { type: 'tool.execution_complete', data: { toolCallId: 'call_e', success: true, result: { content: 'The file was edited.' } } },
    { type: 'assistant.message', data: { messageId: 'm3', content: '', toolRequests: [{ toolCallId: 'call_2', name: 'run_in_terminal', arguments: '{}', type: 'function' }] } },
    { type: 'tool.execution_start', data: { toolCallId: 'call_2', toolName: 'run_in_terminal', arguments: JSON.stringify({ command: CHAT.command }) } },
    { type: 'tool.execution_complete', data: { toolCallId: 'call_2', success: true, result: { content: CHAT.passOutput } } },
    { type: 'assistant.message', data: { messageId: 'm4', content: CHAT.closing, toolRequests: [] } },
    ...(o.usage === false ? [] : [{ type: 'assistant.usage', data: { model: 'gpt-4.1', inputTokens: 10_476, outputTokens: 90, totalTokens: 10_566, cacheReadTokens: 9000, cacheCreationInputTokens: 0 } }]),
    { type: 'assistant.turn_end', data: { turnId: 't1' } },
  ];
  let parent: string | null = null;
  const lines = entries.map((e, i) => {
    const id = `e${i}`;
    const line = JSON.stringify({ type: e.type, data: e.data, id, timestamp: at(), parentId: parent });
    parent = id;
    return line;
  });
  const file = path.join(dir, `${sessionId}.jsonl`);
  await fs.writeFile(file, lines.join('\n') + '\n');
  return file;
}

/** Generation 0: `state.vscdb` with the session under ItemTable key `interactive.sessions`. */
export async function placeGen0(root: string, folder: string, sessionId = 'gen0-session'): Promise<string> {
  const dir = await hashDir(root, 'd0', folder);
  const SQL = await loadSqlJs();
  const db = new SQL.Database();
  db.run('CREATE TABLE ItemTable (key TEXT UNIQUE ON CONFLICT REPLACE, value BLOB)');
  db.run('INSERT INTO ItemTable VALUES (?, ?)', ['interactive.sessions', JSON.stringify([sessionObject(folder, sessionId)])]);
  db.run('INSERT INTO ItemTable VALUES (?, ?)', ['workbench.panel.chat', '{}']);
  const file = path.join(dir, 'state.vscdb');
  await fs.writeFile(file, db.export());
  db.close();
  return file;
}
