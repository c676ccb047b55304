import * as assert from 'node:assert/strict';
import { promises as fs } from 'node:fs';
import * as path from 'node:path';
import { claudeHead } from '../../../src/core/context/heads';
import { claudeCall } from '../helpers/agentLines';
import { makeTempDir } from '../helpers/fixtures';

async function put(file: string, text: string, mtimeSec?: number): Promise<string> {
  await fs.mkdir(path.dirname(file), { recursive: true });
  await fs.writeFile(file, text);
  if (mtimeSec !== undefined) await fs.utimes(file, mtimeSec, mtimeSec);
  return file;
}

describe('agent log heads', () => {
  it('decodes a character whose bytes are cut between two reading steps', async () => {
    const dir = await makeTempDir('ctxdisc-');
    const cwd = '/home/josé/app';
    const line = claudeCall({ cwd, sessionId: 's' });
    // A first line of such a length that the "é" of the cwd starts on the last byte of the first 64 KiB.
    const before = Buffer.byteLength(line.slice(0, line.indexOf('é')));
    const filler = (n: number) => `${JSON.stringify({ type: 'summary', summary: 'x'.repeat(n) })}\n`;
    const pad = 64 * 1024 - 1 - before - filler(0).length;
    const file = await put(path.join(dir, 'c.jsonl'), filler(pad) + line);
    assert.equal(Buffer.byteLength(filler(pad)) + before, 64 * 1024 - 1);
    assert.deepEqual(await claudeHead(file), { cwd, sessionId: 's', subAgent: false, settled: true });
  });
});
