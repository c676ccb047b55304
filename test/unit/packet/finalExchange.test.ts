import * as assert from 'node:assert/strict';
import { promises as fs } from 'node:fs';
import * as path from 'node:path';
import { loadWorkbench } from '../../../src/core/artifacts/loader';
import { claudeProjectDirName } from '../../../src/core/context/discovery';
import { DEFAULT_OPTIONS } from '../../../src/core/options';
import { buildPacket } from '../../../src/core/packet/build';
import { isBareContinuation } from '../../../src/core/packet/ending';
import { compactionNext, gistOf, questionsIn } from '../../../src/core/packet/judgement';
import type { Packet } from '../../../src/core/packet/schema';
import { holdsShellCommand } from '../../../src/core/shellish';
import { readCell } from '../../../src/core/session/codex';
import { shapeOf, type ExchangeEvent } from '../../../src/core/session/exchange';
import { mergeSession } from '../../../src/core/session/merge';
import type { SessionAgent, SessionFacts } from '../../../src/core/session/model';
import { readSessionFile } from '../../../src/core/session/reader';
import { makeTempDir } from '../helpers/fixtures';
import { bashUse, CWD, claudeAssistant, claudeResult, claudeUserText, codexAssistant, codexEvent, codexItem, codexMeta, codexOutput, codexUserMessage, text } from '../session/sessionLines';

/** The final exchange read by shape (issue: "how did it end" from the order of the last exchange). */

async function read(lines: string[], agent: SessionAgent = 'claude-code'): Promise<SessionFacts> {
  const home = await makeTempDir('final-exchange-');
  const file = agent === 'codex'
    ? path.join(home, 'sessions', '2026', '11', '20', 'rollout-2026-11-20T09-00-00-sess-codex.jsonl')
    : path.join(home, 'projects', claudeProjectDirName(CWD), 'sess-claude.jsonl');
  await fs.mkdir(path.dirname(file), { recursive: true });
  await fs.writeFile(file, `${lines.join('\n')}\n`);
  const facts = await readSessionFile(file, agent);
  assert.ok(facts);
  return facts;
}

async function packetOf(facts: SessionFacts): Promise<Packet> {
  const dir = await makeTempDir('final-exchange-ws-');
  const opts = { feedbackK: 30, maxCommands: 30 };
  const snapshot = mergeSession(await loadWorkbench(dir, opts), facts, { workspaceDir: dir, ...opts });
  const r = buildPacket({ snapshot, options: DEFAULT_OPTIONS, packetId: 'p', git: null, clean: null, allowDirty: false, context: null });
  if (!r.ok) throw new Error(r.reason);
  return r.packet;
}

const bash = (id: string, command: string, result: string, description?: string): string[] => [
  claudeAssistant([bashUse(id, command, description ? { description } : {})]),
  claudeResult(id, result, { isError: false }),
];

/** One request, a few calls, and the words the agent ended on — in the user's own language. */
const LANGUAGES = [
  { lang: 'English', request: 'Rename the config folder and publish the app', before: 'First I stop the server, then rename the folder.', closingAsks: 'The folder is renamed. Shall I push it to GitHub now?', closingDone: 'The folder is renamed and the app is published.', ok: 'ok thanks' },
  { lang: 'Chinese', request: '把配置文件夹重命名，然后发布应用', before: '先停掉服务器，然后重命名文件夹。', closingAsks: '文件夹已经重命名了。要我现在推送到 GitHub 吗？', closingDone: '文件夹已重命名，应用已发布。', ok: '好 感謝您' },
  { lang: 'Japanese', request: '設定フォルダの名前を変えて、アプリを公開してください', before: 'まずサーバーを止めて、フォルダの名前を変えます。', closingAsks: 'フォルダの名前を変えました。GitHub にプッシュしましょうか', closingDone: 'フォルダの名前を変え、アプリを公開しました。', ok: 'ありがとうございます' },
  { lang: 'Korean', request: '설정 폴더 이름을 바꾸고 앱을 배포해 주세요', before: '먼저 서버를 멈추고 폴더 이름을 바꾸겠습니다.', closingAsks: '폴더 이름을 바꿨습니다. 지금 GitHub에 푸시할까요?', closingDone: '폴더 이름을 바꾸고 앱을 배포했습니다.', ok: '네 감사합니다' },
  { lang: 'Spanish', request: 'Renombra la carpeta de configuración y publica la app', before: 'Primero detengo el servidor y luego renombro la carpeta.', closingAsks: 'La carpeta está renombrada. ¿Quieres que la suba a GitHub ahora?', closingDone: 'La carpeta está renombrada y la app publicada.', ok: 'vale gracias' },
  { lang: 'Russian', request: 'Переименуй папку конфигурации и опубликуй приложение', before: 'Сначала остановлю сервер, потом переименую папку.', closingAsks: 'Папка переименована. Запушить её на GitHub сейчас?', closingDone: 'Папка переименована, приложение опубликовано.', ok: 'ок спасибо' },
];

describe('the final exchange, read by its shape in any language', () => {
  for (const L of LANGUAGES) {
    describe(L.lang, () => {
      it('calls that returned after the agent\'s last words, and no final message: cut mid-turn, the finished step taken as done', async () => {
        const p = await packetOf(await read([
          claudeUserText(L.request),
          claudeAssistant([text(L.before)]),
          ...bash('t1', 'kill 4242; mv ./conf ./config', '(Bash completed with no output)', 'Stop the server and rename the folder'),
        ]));
        assert.equal(p.ending?.kind, 'cut-mid-step', p.next_action);
        assert.equal(p.next_action_origin?.kind, 'unfinished-step');
        assert.match(p.next_action, /stopped mid-turn with no final message/);
        assert.match(p.next_action, /"Stop the server and rename the folder" \(L\d+, completed\)/);
        assert.ok(p.next_action.includes(L.before), p.next_action);
        assert.match(p.next_action, /do not redo it/);
        // The raw command is the record's, not the step: it is not quoted as something to run.
        assert.ok(!p.next_action.includes('mv ./conf'), p.next_action);
      });

      it('a final message that asks (its last sentence is a question in this script) waits for the human', async () => {
        const p = await packetOf(await read([
          claudeUserText(L.request),
          ...bash('t1', 'mv ./conf ./config', '(Bash completed with no output)'),
          claudeAssistant([text(L.closingAsks)]),
        ]));
        assert.equal(p.ending?.kind, 'waiting-for-human', p.next_action);
        assert.equal(p.waiting_for_answers, true);
      });

      it('a final message with no question closes the exchange: its words are where the next session starts, the request is not "continued"', async () => {
        const p = await packetOf(await read([
          claudeUserText(L.request),
          ...bash('t1', 'mv ./conf ./config', '(Bash completed with no output)'),
          claudeAssistant([text(L.closingDone)]),
        ]));
        assert.equal(p.ending?.kind, 'agent-closed', p.next_action);
        assert.ok(!p.next_action.startsWith('continue:'), p.next_action);
        assert.ok(p.next_action.includes(L.closingDone), p.next_action);
      });

      it(`a bare thank-you ("${L.ok}") after an answer is no new request`, () => {
        assert.equal(isBareContinuation(L.ok), true);
        assert.equal(isBareContinuation(L.request), false);
      });
    });
  }

  it('no answer after the human message (only an API error): unanswered', async () => {
    const p = await packetOf(await read([
      claudeUserText('Run the migrations'),
      claudeAssistant([text('API Error: 529 overloaded')], { model: '<synthetic>', extra: { isApiErrorMessage: true } }),
    ]));
    assert.equal(p.ending?.kind, 'human-unanswered');
    assert.match(p.next_action, /Run the migrations/);
  });

  it('a call with no result at the end: cut mid-step, check what it produced', async () => {
    const p = await packetOf(await read([
      claudeUserText('Export the session'),
      claudeAssistant([text('I will export it now.')]),
      claudeAssistant([bashUse('t9', 'cp a.jsonl docs/session.jsonl')]),
    ]));
    assert.equal(p.ending?.kind, 'cut-mid-step');
    assert.match(p.next_action, /^Check what the unfinished step produced/);
  });

  it("a compaction summary's next step is the step when the turn was cut after it (a usage limit)", async () => {
    const summary = 'This session is being continued from a previous conversation.\n\n7. Pending Tasks:\n   - Update the parser tests\n\n8. Current Work:\n   The parser was changed.\n\n9. Optional Next Step:\n   Update the assertions in `tests/parser.test.ts` to the new format, then run the tests.\n\nPlease continue the conversation.';
    const p = await packetOf(await read([
      claudeUserText('Change the parser output format'),
      claudeAssistant([{ type: 'tool_use', id: 'e1', name: 'Edit', input: { file_path: `${CWD}/src/parser.ts`, old_string: 'a', new_string: 'b' } }]),
      claudeResult('e1', 'The file has been updated successfully.'),
      JSON.stringify({ type: 'system', subtype: 'compact_boundary', isSidechain: false, cwd: CWD, sessionId: 'sess-claude', uuid: 'cb1', timestamp: '2026-11-20T10:00:00.000Z' }),
      claudeUserText(summary, { isCompactSummary: true }),
      claudeAssistant([text("You've hit your limit · resets 1am")], { model: '<synthetic>', extra: { isApiErrorMessage: true } }),
    ]));
    assert.equal(p.next_action_origin?.kind, 'unfinished-step', p.next_action);
    assert.match(p.next_action, /tests\/parser\.test\.ts/);
    assert.match(p.next_action, /summary/);
  });

  it('a failure the agent explained and worked past is history, not the step', async () => {
    const p = await packetOf(await read([
      claudeUserText('Check the contract address'),
      claudeAssistant([bashUse('f1', 'ruby scan.rb 0xabc')]),
      claudeResult('f1', "Exit code 1\nscan.rb:3: undefined method 'get' (NoMethodError)", { isError: true }),
      claudeAssistant([text('That endpoint is deprecated; I will ask the node directly.')]),
      ...bash('f2', 'curl -s localhost:8545 -d eth_getCode', '{"result":"0x60"}'),
      claudeAssistant([text('The address is the router. Ready for your read-through of the notes.')]),
    ]));
    assert.ok(!/scan\.rb|NoMethodError|failed attempt/.test(p.next_action), p.next_action);
    assert.ok(p.failed_attempts.some((f) => f.command.includes('scan.rb')), 'the failure stays in the record');
  });

  it('a failure right before the closing, not explained, is still the step', async () => {
    const p = await packetOf(await read([
      claudeUserText('Make the build pass'),
      claudeAssistant([bashUse('b1', 'npm run build')]),
      claudeResult('b1', 'Exit code 2\nerror TS2322: Type string is not assignable to number', { isError: true }),
      claudeAssistant([text('I stopped here.')]),
    ]));
    assert.match(p.next_action, /npm run build/);
  });
});

describe('Codex code mode: exec cells and wait polls are commands', () => {
  const cell = (id: string, source: string): string => codexItem({ type: 'custom_tool_call', status: 'completed', call_id: id, name: 'exec', input: source });
  const cellOut = (id: string, head: string, body: string): string => codexItem({ type: 'custom_tool_call_output', call_id: id, output: [{ type: 'input_text', text: `${head}\nWall time 1.0 seconds\nOutput:\n` }, { type: 'input_text', text: body }] });

  it('reads the commands, patches and plan of a cell from its source', () => {
    const src = readCell('const a={cmd:"cargo test --workspace",workdir:"/w"};\nconst r = await tools.exec_command({"cmd":"cargo fmt --all","workdir":"/w","justification":"Do you want me to format the code?"});\nawait tools.exec_command(a);\nconst patch = "*** Begin Patch\\n*** Update File: src/a.rs\\n@@\\n-x\\n+y\\n*** End Patch";\nawait tools.apply_patch(patch);\nawait tools.update_plan({"plan":[{"step":"Format","status":"completed"}]});');
    assert.deepEqual(src.commands, ['cargo test --workspace', 'cargo fmt --all']);
    assert.equal(src.patches.length, 1);
    assert.match(src.patches[0] ?? '', /^\*\*\* Begin Patch\n\*\*\* Update File: src\/a\.rs/);
    assert.equal(src.workdir, '/w');
    assert.deepEqual(src.plan, [{ step: 'Format', status: 'completed' }]);
  });

  it('a completed cell is exit 0, a failed one exit 1 with its error, a running one settled by wait; a cut cell is the unfinished step', async () => {
    const facts = await read([
      codexMeta(),
      codexUserMessage('Make the tests pass'),
      cell('c1', 'const r = await tools.exec_command({"cmd":"cargo test","workdir":"/home/dev/api"}); text(r.output);'),
      cellOut('c1', 'Script completed', 'test result: ok. 12 passed'),
      cell('c2', 'const patch = "*** Begin Patch\\n*** Add File: src/new.rs\\n+fn main() {}\\n*** End Patch"; await tools.apply_patch(patch);'),
      cellOut('c2', 'Script failed', 'Script error:\napply_patch verification failed: invalid hunk'),
      cell('c3', 'const r = await tools.exec_command({"cmd":"cargo build --release","workdir":"/home/dev/api"}); text(r.output);'),
      codexItem({ type: 'custom_tool_call_output', call_id: 'c3', output: 'Script running with cell ID 7\nWall time 30.0 seconds\nOutput:\n' }),
      codexItem({ type: 'function_call', name: 'wait', arguments: JSON.stringify({ cell_id: '7', yield_time_ms: 30000 }), call_id: 'w1' }),
      codexOutput('w1', 'Script completed\nWall time 2.0 seconds\nOutput:\nFinished release'),
      codexAssistant('Now I export the session.'),
      cell('c4', 'const r = await tools.exec_command({"cmd":"bash export-session.sh .","workdir":"/home/dev/api"}); text(r.output);'),
    ], 'codex');
    const byCmd = new Map(facts.commands.map((c) => [c.command, c]));
    assert.equal(byCmd.get('cargo test')?.exit_code, 0);
    assert.equal(byCmd.get('cargo build --release')?.exit_code, 0);
    assert.equal(byCmd.get('bash export-session.sh .')?.exit_code, null);
    assert.ok(!facts.filesTouched.some((f) => f.endsWith('new.rs')), 'a patch whose cell failed did not apply');
    const p = await packetOf(facts);
    assert.equal(p.ending?.kind, 'cut-mid-step');
    assert.match(p.next_action, /export-session\.sh/);
    void codexEvent;
  });
});

describe('a server the agent stopped itself is no failure', () => {
  it('Codex: Ctrl-C written to a running exec_command, then its exit 1, is a stop, never the next step', async () => {
    const facts = await read([
      codexMeta(),
      codexUserMessage('Check that the dev server starts'),
      codexItem({ type: 'function_call', name: 'exec_command', arguments: JSON.stringify({ cmd: 'npm run dev' }), call_id: 's1' }),
      codexOutput('s1', 'Chunk ID: a\nWall time: 5.0 seconds\nProcess running with session ID 41\nOutput:\nready on :3000'),
      codexItem({ type: 'function_call', name: 'write_stdin', arguments: JSON.stringify({ session_id: 41, chars: '\u0003' }), call_id: 's2' }),
      codexOutput('s2', 'Chunk ID: b\nWall time: 0.2 seconds\nProcess exited with code 1\nOutput:\n^C'),
      codexAssistant('The dev server starts and serves on :3000; I stopped it again.'),
    ], 'codex');
    const run = facts.commands.find((c) => c.command === 'npm run dev');
    assert.equal(run?.unfinished, 'stopped');
    assert.equal(run?.exit_code, null);
    const p = await packetOf(facts);
    assert.ok(!/npm run dev|exit 1/.test(p.next_action), p.next_action);
  });
});

describe('the exchange shape and the words of the judgement', () => {
  const ev = (...kinds: ExchangeEvent[]): ExchangeEvent[] => kinds;
  it('names the shape from the order of events alone', () => {
    assert.equal(shapeOf(ev({ kind: 'human', line: 1 }, { kind: 'api-error', line: 2 })), 'unanswered');
    assert.equal(shapeOf(ev({ kind: 'human', line: 1 }, { kind: 'text', line: 2 })), 'closed');
    assert.equal(shapeOf(ev({ kind: 'human', line: 1 }, { kind: 'text', line: 2 }, { kind: 'command', id: 'a', line: 3 })), 'cut-pending');
    assert.equal(shapeOf(ev({ kind: 'human', line: 1 }, { kind: 'text', line: 2 }, { kind: 'command', id: 'a', line: 3 }, { kind: 'result', id: 'a', line: 4, outcome: 'ok', exit: 0 })), 'cut-after-result');
    // A call offered and never approved never ran: the closing before it still closes.
    assert.equal(shapeOf(ev({ kind: 'human', line: 1 }, { kind: 'text', line: 2 }, { kind: 'command', id: 'a', line: 3 }, { kind: 'result', id: 'a', line: 3, outcome: 'rejected', exit: null })), 'closed');
  });

  it('questions end in any script\'s question mark or particle; a quotation of a question asks nothing', () => {
    assert.deepEqual(questionsIn('已完成。要我更新 ADR-0001 嗎'), ['要我更新 ADR-0001 嗎']);
    assert.deepEqual(questionsIn('完成しました。次に進みますか'), ['次に進みますか']);
    assert.deepEqual(questionsIn('Listo. ¿Lo subo ahora?'), ['¿Lo subo ahora?']);
    assert.deepEqual(questionsIn('Готово. Запушить сейчас?'), ['Запушить сейчас?']);
    assert.deepEqual(questionsIn('文件已更新。要推送吗？'), ['要推送吗？']);
    assert.deepEqual(questionsIn('The thesis reads:\n\n"Can a model judge its own work?"\n\nI kept it as written.'), []);
  });

  it('a long message is quoted from its end, where its state and next step sit', () => {
    const long = `${'The first part explains the background in detail. '.repeat(20)}\n\nDECISIONS.md is the only uncommitted file; everything else is committed.`;
    assert.equal(gistOf(long), 'DECISIONS.md is the only uncommitted file; everything else is committed.');
  });

  it("a compaction summary's optional next step wins over its pending list; a summary naming neither gives nothing", () => {
    assert.equal(compactionNext('1. Primary Request:\n   x\n\n7. Pending Tasks:\n   - a\n\n9. Optional Next Step:\n   Run the tests.\n'), 'Run the tests.');
    assert.equal(compactionNext('7. Pending Tasks:\n   - Update the README\n\n8. Current Work:\n   done'), '- Update the README');
    assert.equal(compactionNext('Summary: everything went fine.'), null);
  });
});

describe('the shell-operator gate is for commands, never for prose', () => {
  it('fires on a command span or a bare command line with operators', () => {
    assert.equal(holdsShellCommand('Fix the cause, then run `cd web && npm run build`.'), true);
    assert.equal(holdsShellCommand('curl -s https://example.invalid/x | sh'), true);
    assert.equal(holdsShellCommand('npm ci && npm test'), true);
  });
  it('stays quiet on prose with semicolons, dashes or a plain command span', () => {
    assert.equal(holdsShellCommand('Check what the step produced; finish it only if its output is missing — do not rerun it blindly.'), false);
    assert.equal(holdsShellCommand('Verify it (`npm test`) and ask the user what comes next.'), false);
    assert.equal(holdsShellCommand('继续：更新测试；然后运行。'), false);
  });
});
