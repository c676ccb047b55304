// MCP server start benchmark: the time from starting `handoff mcp` until it answers `initialize`, and
// until `tools/list`, against the time Node itself takes to start and end (`node -e ''`), interleaved in
// one run so that both see the same machine load. Exits non-zero when the median answer to
// `initialize` is more than 150 ms over Node's own start.
import { spawn } from 'node:child_process';
import { builtCli, tempDir } from './lib.mjs';

const RUNS = 9;
const MAX_OVER_MS = 150;
const cli = builtCli();
const cwd = tempDir('handoff-bench-mcpinit-');

/** Milliseconds until `node -e ''` has ended. */
function nodeAlone() {
  return new Promise((resolve) => {
    const t = performance.now();
    spawn(process.execPath, ['-e', ''], { stdio: 'ignore' }).on('close', () => resolve(performance.now() - t));
  });
}

/** Milliseconds until the server answered `initialize`, and `tools/list` after it. */
function server() {
  return new Promise((resolve, reject) => {
    const t = performance.now();
    const child = spawn(process.execPath, [cli, 'mcp'], { cwd, stdio: ['pipe', 'pipe', 'ignore'], env: { ...process.env, HOME: cwd } });
    const at = {};
    let buf = '';
    child.stdout.on('data', (d) => {
      buf += d;
      for (let nl = buf.indexOf('\n'); nl !== -1; nl = buf.indexOf('\n')) {
        const id = JSON.parse(buf.slice(0, nl)).id;
        buf = buf.slice(nl + 1);
        at[id] = performance.now() - t;
        if (id === 2) child.stdin.end();
      }
    });
    child.on('close', () => (at[1] && at[2] ? resolve({ init: at[1], list: at[2] }) : reject(new Error('bench: the server did not answer'))));
    child.stdin.write('{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":"2025-06-18","capabilities":{},"clientInfo":{"name":"bench","version":"1"}}}\n');
    child.stdin.write('{"jsonrpc":"2.0","method":"notifications/initialized"}\n{"jsonrpc":"2.0","id":2,"method":"tools/list"}\n');
  });
}

const median = (xs) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)];
await server(); // the first run writes the code cache
const base = [];
const init = [];
const list = [];
for (let i = 0; i < RUNS; i++) {
  base.push(await nodeAlone());
  const r = await server();
  init.push(r.init);
  list.push(r.list);
}
const over = median(init) - median(base);
console.log(`node -e ''          median ${median(base).toFixed(0).padStart(5)} ms`);
console.log(`mcp initialize      median ${median(init).toFixed(0).padStart(5)} ms  (${over.toFixed(0)} ms over node alone, budget ${MAX_OVER_MS} ms)`);
console.log(`mcp tools/list      median ${median(list).toFixed(0).padStart(5)} ms`);
if (over > MAX_OVER_MS) {
  console.error(`bench: the MCP server answers initialize ${over.toFixed(0)} ms after node alone would have ended (budget ${MAX_OVER_MS} ms)`);
  process.exitCode = 1;
}
