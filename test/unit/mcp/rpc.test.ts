import * as assert from 'node:assert/strict';
import { PassThrough, Writable } from 'node:stream';
import { SUPPORTED_PROTOCOL_VERSIONS } from '@modelcontextprotocol/sdk/types.js';
import { PROMPT_AGENTS } from '../../../src/core/render/forAgent';
import { checkLine } from '../../../src/cli/mcp/lineGuard';
import { serveRpc } from '../../../src/cli/mcp/rpc';
import { PROMPT_AGENT_NAMES, PROTOCOL_VERSIONS } from '../../../src/cli/mcp/server';

const tick = () => new Promise((res) => setImmediate(res));

/** An output that takes nothing until told, like a client that stopped reading. */
function stuckOutput(): { out: Writable; lines: () => number; flow: () => void } {
  let written = 0;
  let waiting: (() => void)[] = [];
  let flowing = false;
  const out = new Writable({
    highWaterMark: 64,
    write(chunk: Buffer, _enc, done) {
      written += chunk.toString().split('\n').length - 1;
      if (flowing) done();
      else waiting.push(done);
    },
  });
  return {
    out,
    lines: () => written,
    flow: () => {
      flowing = true;
      waiting.forEach((d) => d());
      waiting = [];
    },
  };
}

describe('handoff mcp: the JSON-RPC layer', () => {
  it('speaks the protocol versions of the MCP SDK, and renders the prompt for the agents the renderer knows', () => {
    assert.deepEqual([...PROTOCOL_VERSIONS], [...SUPPORTED_PROTOCOL_VERSIONS]);
    assert.deepEqual([...PROMPT_AGENT_NAMES], [...PROMPT_AGENTS]);
  });

  it('tells a request, a notification and a response from a line that is none', () => {
    assert.equal(checkLine('{"jsonrpc":"2.0","id":1,"method":"ping"}'), null);
    assert.equal(checkLine('{"jsonrpc":"2.0","method":"notifications/initialized"}'), null);
    assert.equal(checkLine('{"jsonrpc":"2.0","id":"a","result":{}}'), null);
    assert.equal(checkLine('{"jsonrpc":"2.0","id":3,"error":{"code":-1,"message":"no"}}'), null);
    assert.deepEqual(checkLine('{"jsonrpc":"1.0","id":1,"method":"ping"}'), { id: null, code: -32600, message: 'Invalid Request: not a JSON-RPC 2.0 request, notification or response' });
    assert.equal(checkLine('{"jsonrpc":"2.0","id":{},"method":"ping"}')?.code, -32600);
    assert.equal(checkLine('{"jsonrpc":"2.0","id":4,"method":"ping","params":[1]}')?.id, 4);
    assert.equal(checkLine('{"jsonrpc":"2.0","id":5}')?.code, -32600);
    assert.equal(checkLine('{oops')?.code, -32700);
  });

  it('a client that stops reading stops the server reading: what is answered stays bounded until it reads again', async () => {
    const input = new PassThrough();
    const o = stuckOutput();
    let handled = 0;
    const done = serveRpc(input, o.out, async () => {
      handled++;
      return {};
    }, 8);
    const n = 2000;
    input.write(Array.from({ length: n }, (_, i) => `{"jsonrpc":"2.0","id":${i},"method":"ping"}\n`).join(''));
    for (let i = 0; i < 50; i++) await tick();
    const whileStuck = handled;
    assert.ok(whileStuck > 0 && whileStuck <= 16, `handled ${whileStuck} of ${n} while the client read nothing`);
    for (let i = 0; i < 50; i++) await tick();
    assert.equal(handled, whileStuck, 'nothing more is taken while the output is full');
    o.flow();
    for (let i = 0; i < 2000 && o.lines() < n; i++) await tick();
    assert.equal(handled, n);
    assert.equal(o.lines(), n);
    input.end();
    await done;
  });

  it('a cancelled request is not answered and its signal fires; the end of the input fires every other', async () => {
    const input = new PassThrough();
    const out = new PassThrough();
    let text = '';
    out.on('data', (d: Buffer) => (text += d.toString()));
    const signals = new Map<unknown, AbortSignal>();
    const done = serveRpc(input, out, (method, params, signal) => {
      if (method === 'ping') return Promise.resolve({});
      signals.set(params['n'], signal);
      return new Promise((_res, rej) => signal.addEventListener('abort', () => rej(new Error('stopped'))));
    });
    input.write('{"jsonrpc":"2.0","id":1,"method":"slow","params":{"n":1}}\n{"jsonrpc":"2.0","id":2,"method":"slow","params":{"n":2}}\n');
    await tick();
    input.write('{"jsonrpc":"2.0","method":"notifications/cancelled","params":{"requestId":1}}\n{"jsonrpc":"2.0","id":3,"method":"ping"}\n');
    for (let i = 0; i < 20 && !text.includes('"id":3'); i++) await tick();
    assert.equal(signals.get(1)?.aborted, true);
    assert.equal(signals.get(2)?.aborted, false);
    assert.deepEqual(text.trim().split('\n').map((l) => (JSON.parse(l) as { id: number }).id), [3]);
    input.end();
    await done;
    assert.equal(signals.get(2)?.aborted, true, 'the client went away: its call is called off');
    await tick();
    assert.doesNotMatch(text, /"id":[12]/);
  });
});
