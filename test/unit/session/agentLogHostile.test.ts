import * as assert from 'node:assert/strict';
import * as path from 'node:path';
import { readCopilotCliLog } from '../../../src/core/session/copilotCli';
import { readGeminiLog } from '../../../src/core/session/gemini';
import { readQwenLog } from '../../../src/core/session/qwen';
import { makeTempDir } from '../helpers/fixtures';

/** Records of the right kinds with fields of the wrong shapes: every reader reads past them, never throws. */
const HOSTILE = [
  '{"sessionId":5}',
  '{"$set":null}',
  '{"$set":{"messages":[1,null,"x",{"id":7}]}}',
  '{"$rewindTo":{"a":1}}',
  '{"id":"a","type":"gemini","content":7,"tokens":"many","toolCalls":[1,null,{"name":5,"args":"x"},{"id":"c","name":"run_shell_command","args":{"command":7}},{"id":"d","name":"run_shell_command","args":{"command":"ls"},"result":"x","status":9}]}',
  '{"id":"b","type":"user","content":{"text":1}}',
  '{"uuid":1,"parentUuid":{},"type":"assistant","message":{"parts":"x"},"usageMetadata":[]}',
  '{"uuid":"q1","parentUuid":null,"type":"tool_result","toolCallResult":5,"message":{"parts":[null,{"functionResponse":7}]}}',
  '{"uuid":"q2","parentUuid":"q1","type":"assistant","message":{"parts":[{"functionCall":{"id":"f","name":"run_shell_command","args":{"command":"ls"}}}]}}',
  '{"uuid":"q3","parentUuid":"q2","type":"tool_result","toolCallResult":{"callId":"f","resultDisplay":{"exitCode":"1"}}}',
  '{"type":"tool.execution_start","data":{"toolCallId":{},"toolName":[],"arguments":"x"}}',
  '{"type":"tool.execution_start","data":{"toolCallId":"t","toolName":"bash","arguments":{"command":"ls"}}}',
  '{"type":"tool.execution_complete","data":{"toolCallId":"t","shellExecution":{"exitCode":"0"},"result":7,"fileEdits":[1,{"path":3}]}}',
  '{"type":"assistant.message","data":{"content":["x"],"toolRequests":"x"}}',
  '{"type":"session.usage_record","data":{"usage":{"inputTokens":"9","maxPromptTokens":-1}}}',
  '{"type":"session.compaction_complete","data":null}',
  '[1,2]',
  'null',
].join('\n') + '\n';

describe('the terminal agents\' log readers on hostile records', () => {
  it('Gemini CLI, Qwen Code and Copilot CLI read past fields of the wrong shape, with no exit code invented', async () => {
    const dir = await makeTempDir('handoff-hostile-logs-');
    const ref = { file: path.join(dir, 'chats', 'x.jsonl'), cwd: dir, sessionId: 'x' };
    for (const read of [readGeminiLog, readQwenLog, readCopilotCliLog]) {
      const r = await read(ref, HOSTILE);
      for (const e of r.events) if (e.k === 'result') assert.ok(e.result.exit === null || typeof e.result.exit === 'number');
      // A shell result whose exit code is not a number is no exit code.
      assert.ok(r.events.every((e) => e.k !== 'result' || e.result.exit === null), read.name);
      // Lines that are JSON but no record are located like any line that is not one.
      assert.deepEqual(r.badLines, [17, 18], read.name);
    }
  });
});
