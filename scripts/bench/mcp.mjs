// MCP server benchmark, on a workbench whose Claude Code transcript is 200 MB (HANDOFF_BENCH_MCP_MB):
// the time each tool of `handoff mcp` takes to answer its first call (driven through the SDK's own
// client over stdio), and the time until handoff_generate hands back the finished packet.
// Exits non-zero when a first answer takes longer than 5 s (MCP clients time out past that).
import { once } from 'node:events';
import fs from 'node:fs';
import { createRequire } from 'node:module';
import path from 'node:path';
import { builtCli, gitWorkspace, root, tempDir } from './lib.mjs';

const MB = Number(process.env.HANDOFF_BENCH_MCP_MB ?? 200);
const MAX_FIRST_MS = 5000;
const cli = builtCli();
const require = createRequire(path.join(root, 'package.json'));
const { Client } = require('@modelcontextprotocol/sdk/client/index.js');
const { StdioClientTransport } = require('@modelcontextprotocol/sdk/client/stdio.js');

const dir = tempDir('handoff-bench-mcp-');
try {
  const ws = gitWorkspace(path.join(dir, 'ws'), {
    'app.py': 'print("hi")\n',
    'agent_state.json': JSON.stringify({ schema_version: 1, session_id: 'bench', branch: 'main', active_task_id: 'T-1', next_action: 'Run the tests in app.py' }),
    '.gitignore': 'outputs/\n',
  });

  const claude = path.join(dir, 'claude');
  const projects = path.join(claude, 'projects', path.resolve(ws).replace(/[^a-zA-Z0-9]/g, '-'));
  fs.mkdirSync(projects, { recursive: true });
  const out = fs.createWriteStream(path.join(projects, 'bench.jsonl'));
  let written = 0;
  for (let n = 1; written < MB * 1024 * 1024; n++) {
    const base = { parentUuid: `u${n - 1}`, isSidechain: false, cwd: ws, sessionId: 'bench', uuid: `u${n}`, timestamp: '2026-11-20T09:00:00.000Z' };
    const l = `${JSON.stringify(n % 3 === 0
      ? { ...base, type: 'assistant', message: { model: 'claude-sonnet-4-5', id: `msg_${n}`, role: 'assistant', content: [{ type: 'text', text: 'a'.repeat(800) }], usage: { input_tokens: 3, cache_creation_input_tokens: 1000, cache_read_input_tokens: 119_000, output_tokens: 50 } } }
      : { ...base, type: 'user', message: { role: 'user', content: [{ type: 'tool_result', tool_use_id: `t${n}`, content: 'x'.repeat(2500) }] } })}\n`;
    written += Buffer.byteLength(l);
    if (!out.write(l)) await once(out, 'drain');
  }
  out.end();
  await once(out, 'finish');

  const env = { HOME: dir, PATH: process.env.PATH ?? '', CLAUDE_CONFIG_DIR: claude, CODEX_HOME: path.join(dir, 'codex'), XDG_STATE_HOME: path.join(dir, 'state') };
  const client = new Client({ name: 'bench', version: '1' });
  await client.connect(new StdioClientTransport({ command: process.execPath, args: [cli, 'mcp'], cwd: ws, env, stderr: 'ignore' }));
  let failed = false;
  for (const name of ['handoff_status', 'handoff_risks', 'handoff_prompt', 'handoff_generate']) {
    const t = performance.now();
    const r = await client.callTool({ name, arguments: {} }, undefined, { timeout: 120_000 });
    const ms = performance.now() - t;
    const partial = /(^|\n)Still /.test(r.content[0]?.text ?? '');
    console.log(`${name.padEnd(17)} first answer ${ms.toFixed(0).padStart(5)} ms${partial ? ' (what is known; still reading)' : ''}`);
    if (ms > MAX_FIRST_MS) failed = true;
  }
  const t = performance.now();
  for (;;) {
    const r = await client.callTool({ name: 'handoff_generate', arguments: {} }, undefined, { timeout: 120_000 });
    if ((r.content[0]?.text ?? '').startsWith('{')) break;
    await new Promise((res) => setTimeout(res, 500));
  }
  console.log(`handoff_generate  packet handed back ${(performance.now() - t).toFixed(0)} ms after the first answer (${MB} MB session)`);
  await client.close();
  if (failed) {
    console.error(`bench: a first answer took longer than ${MAX_FIRST_MS} ms`);
    process.exitCode = 1;
  }
} finally {
  fs.rmSync(dir, { recursive: true, force: true });
}
