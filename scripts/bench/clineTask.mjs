// Benchmark: a Cline task whose ui_messages.json is 250 MB (HANDOFF_BENCH_CLINE_MB), through the built
// `handoff status` and `handoff generate`. Such a file is read from its end (its last messages) and the
// packet says what was not read; `handoff secrets` scans it whole, message by message, and must find the
// credential near its start. Then the same task listed in a 100 MB task history. Fails when status or
// generate takes over 2 s, secrets over 2 s per 100 MB, any reaches 200 MB of memory, or one does not
// say what it left out.
import { once } from 'node:events';
import fs from 'node:fs';
import path from 'node:path';
import { builtCli, gitWorkspace, measuredCli, tempDir } from './lib.mjs';

const MB = Number(process.env.HANDOFF_BENCH_CLINE_MB ?? 250);
const LIMIT_S = 2;
const LIMIT_MB = 200;
const cli = builtCli();
const dir = tempDir('handoff-bench-cline-');
const ws = gitWorkspace(path.join(dir, 'ws'), { 'app.py': 'print("hi")\n', '.gitignore': 'outputs/\n' });

const home = path.join(dir, 'home');
const storage = path.join(home, '.config', 'Code', 'User', 'globalStorage', 'saoudrizwan.claude-dev');
const id = '1764400000000';
const task = path.join(storage, 'tasks', id);
fs.mkdirSync(task, { recursive: true });
fs.mkdirSync(path.join(storage, 'state'), { recursive: true });
fs.writeFileSync(path.join(storage, 'state', 'taskHistory.json'), JSON.stringify([{ id, ts: Date.now(), task: 'Fix the flaky date test', cwdOnTaskInitialization: ws }]));
fs.writeFileSync(path.join(task, 'api_conversation_history.json'), JSON.stringify([
  { role: 'user', content: [{ type: 'text', text: `<task>\nFix the flaky date test\n</task>\n# Current Working Directory (${ws}) Files` }], ts: 1764400000000 },
  { role: 'assistant', content: [{ type: 'text', text: 'On it.' }], ts: 1764400001000, modelInfo: { modelId: 'claude-sonnet-4-5', providerId: 'anthropic' } },
]));

// The chat: a request, then turns of text, a command, its output and an API request with usage.
const ui = path.join(task, 'ui_messages.json');
const out = fs.createWriteStream(ui);
let written = 0;
let n = 0;
const put = async (s) => {
  written += Buffer.byteLength(s);
  if (!out.write(s)) await once(out, 'drain');
};
await put(`[${JSON.stringify({ ts: 1764400000000, type: 'say', say: 'task', text: 'Fix the flaky date test' })}`);
// A credential near the start, far before the part the packet reads: `handoff secrets` must find it.
const key = ['sk', 'live', '51Hx9KqLmN0pQrStUvWxYz12'].join('_');
await put(`,${JSON.stringify({ ts: 1764400000500, type: 'say', say: 'command', text: 'cat .env' })},${JSON.stringify({ ts: 1764400000600, type: 'say', say: 'command_output', text: `STRIPE_SECRET_KEY=${key}\n` })}`);
while (written < MB * 1024 * 1024) {
  n++;
  const ts = 1764400000000 + n * 1000;
  const kind = n % 4;
  const m = kind === 0 ? { ts, type: 'say', say: 'api_req_started', text: JSON.stringify({ request: '[execute_command]', tokensIn: 30000 + (n % 1000), tokensOut: 500, cacheWrites: 0, cacheReads: 0 }) }
    : kind === 1 ? { ts, type: 'say', say: 'text', text: `Step ${n}: looking at the date helpers. ${'x'.repeat(1500)}` }
    : kind === 2 ? { ts, type: 'say', say: 'command', text: 'npm test -- utils/date' }
    : { ts, type: 'say', say: 'command_output', text: `PASS utils/date.test.js\n${'line of output\n'.repeat(80)}` };
  await put(`,${JSON.stringify(m)}`);
}
await put(']');
out.end();
await once(out, 'finish');
const size = fs.statSync(ui).size;

const env = { ...process.env, HOME: home, XDG_CONFIG_HOME: '', CLAUDE_CONFIG_DIR: path.join(home, 'claude'), CODEX_HOME: path.join(home, 'codex'), HANDOFF_STATE_DIR: path.join(dir, 'state') };
const run = (args) => measuredCli(cli, args, env, dir);

let ok = true;
const status = run(['status', '--dir', ws]);
const statusSays = /Cline/.test(status.r.stdout);
console.log(`Cline task, ui_messages.json ${(size / 1048576).toFixed(0)} MB (${n + 1} messages):`);
console.log(`  handoff status: ${status.seconds.toFixed(2)} s (CPU ${status.cpu.toFixed(2)} s), peak ${status.mb.toFixed(0)} MB, exit ${status.r.status}${statusSays ? '' : ' (no Cline reading!)'}`);
const gen = run(['generate', '--dir', ws, '--allow-dirty', '--json']);
const told = /only (the first message and )?the last \d+ messages? \([^)]*\) of its [\d.]+ MB were read; the [\d.]+ MB (before|between) them were not/.test(`${gen.r.stdout}${gen.r.stderr}`);
let packetOk = false;
try {
  const packet = JSON.parse(fs.readFileSync(JSON.parse(gen.r.stdout).json, 'utf8'));
  packetOk = packet.session_id === id;
} catch {
  // reported below
}
console.log(`  handoff generate: ${gen.seconds.toFixed(2)} s (CPU ${gen.cpu.toFixed(2)} s), peak ${gen.mb.toFixed(0)} MB, exit ${gen.r.status}; packet from the task written: ${packetOk}; says what was not read: ${told}`);
// `handoff secrets` scans the whole file, message by message.
const secrets = run(['secrets', '--dir', ws]);
const found = /^1 credential found for /.test(secrets.r.stdout) && !/NOT fully scanned/.test(secrets.r.stdout);
console.log(`  handoff secrets (the whole file scanned): ${secrets.seconds.toFixed(2)} s (CPU ${secrets.cpu.toFixed(2)} s), peak ${secrets.mb.toFixed(0)} MB, exit ${secrets.r.status}; the credential near its start found: ${found}`);
if (!found) {
  console.error(`bench: handoff secrets did not find the credential:\n${secrets.r.stdout}${secrets.r.stderr}`.slice(0, 4000));
  ok = false;
}
// Reading every byte is the point of `secrets`: its bound grows with the file (2 s per 100 MB).
const secretsLimit = Math.max(LIMIT_S, (LIMIT_S * size) / (100 * 1048576));
if (secrets.seconds > secretsLimit) { console.error(`bench: handoff secrets took ${secrets.seconds.toFixed(2)} s (limit ${secretsLimit.toFixed(1)} s for ${(size / 1048576).toFixed(0)} MB)`); ok = false; }
if (secrets.mb >= LIMIT_MB) { console.error(`bench: handoff secrets peaked at ${secrets.mb.toFixed(0)} MB (limit ${LIMIT_MB} MB)`); ok = false; }
for (const [name, m] of [['status', status], ['generate', gen]]) {
  if (m.seconds > LIMIT_S) { console.error(`bench: handoff ${name} took ${m.seconds.toFixed(2)} s (limit ${LIMIT_S} s)`); ok = false; }
  if (m.mb >= LIMIT_MB) { console.error(`bench: handoff ${name} peaked at ${m.mb.toFixed(0)} MB (limit ${LIMIT_MB} MB)`); ok = false; }
}
if (status.r.status !== 0 || !statusSays || gen.r.status !== 0 || !packetOk || !told) {
  console.error(`bench: the Cline task was not read as expected:\n${status.r.stdout}${status.r.stderr}\n${gen.r.stdout}${gen.r.stderr}`.slice(0, 4000));
  ok = false;
}

// A Cline task history of 100 MB (HANDOFF_BENCH_HISTORY_MB) listing tens of thousands of tasks: streamed
// for each entry's id, time and folder, never parsed whole. The task's own chat is small here.
const HISTORY_MB = Number(process.env.HANDOFF_BENCH_HISTORY_MB ?? 100);
fs.writeFileSync(ui, JSON.stringify([
  { ts: 1764400000000, type: 'say', say: 'task', text: 'Fix the flaky date test' },
  { ts: 1764400001000, type: 'say', say: 'api_req_started', text: JSON.stringify({ request: '[read_file]', tokensIn: 30000, tokensOut: 500, cacheWrites: 0, cacheReads: 0 }) },
  { ts: 1764400002000, type: 'say', say: 'command', text: 'npm test -- utils/date' },
]));
const historyFile = path.join(storage, 'state', 'taskHistory.json');
const hist = fs.createWriteStream(historyFile);
let histBytes = 0;
let entries = 0;
let placed = false;
const putHist = async (s) => {
  histBytes += Buffer.byteLength(s);
  if (!hist.write(s)) await once(hist, 'drain');
};
await putHist('[');
while (histBytes < HISTORY_MB * 1024 * 1024) {
  const t = 1764000000000 + entries * 60_000;
  const folder = `/home/dev/project-${entries % 40}`;
  // The task itself sits in the middle of the history.
  if (!placed && histBytes >= (HISTORY_MB * 1024 * 1024) / 2) placed = await putHist(`,${JSON.stringify({ id, ts: Date.now(), task: 'Fix the flaky date test', tokensIn: 30000, tokensOut: 500, cacheWrites: 0, cacheReads: 0, totalCost: 0.1, size: 4096, cwdOnTaskInitialization: ws, shadowGitConfigWorkTree: ws, isFavorited: false })}`).then(() => true);
  const task = `Task ${entries}: refactor the "date" helpers in src\\utils and run the tests.\n${'Details of the request, pasted logs and code. '.repeat(20 + (entries % 60))}`;
  await putHist(`${entries ? ',' : ''}${JSON.stringify({ id: String(t), ts: t, task, tokensIn: 1000 + entries, tokensOut: 200, cacheWrites: 0, cacheReads: 0, totalCost: 0.01, size: 2048, conversationHistoryDeletedRange: [2, 5], cwdOnTaskInitialization: folder, shadowGitConfigWorkTree: folder, isFavorited: entries % 9 === 0 })}`);
  entries++;
}
await putHist(']');
hist.end();
await once(hist, 'finish');
const histSize = fs.statSync(historyFile).size;
const hStatus = run(['status', '--dir', ws]);
const hStatusSays = /Cline/.test(hStatus.r.stdout);
console.log(`Cline task history ${(histSize / 1048576).toFixed(0)} MB (${entries + 1} tasks):`);
console.log(`  handoff status: ${hStatus.seconds.toFixed(2)} s (CPU ${hStatus.cpu.toFixed(2)} s), peak ${hStatus.mb.toFixed(0)} MB, exit ${hStatus.r.status}${hStatusSays ? '' : ' (no Cline reading!)'}`);
const hGen = run(['generate', '--dir', ws, '--allow-dirty', '--json']);
let hPacketOk = false;
try {
  hPacketOk = JSON.parse(fs.readFileSync(JSON.parse(hGen.r.stdout).json, 'utf8')).session_id === id;
} catch {
  // reported below
}
console.log(`  handoff generate: ${hGen.seconds.toFixed(2)} s (CPU ${hGen.cpu.toFixed(2)} s), peak ${hGen.mb.toFixed(0)} MB, exit ${hGen.r.status}; packet from the task written: ${hPacketOk}`);
for (const [name, m] of [['status', hStatus], ['generate', hGen]]) {
  if (m.seconds > LIMIT_S) { console.error(`bench: with the big history, handoff ${name} took ${m.seconds.toFixed(2)} s (limit ${LIMIT_S} s)`); ok = false; }
  if (m.mb >= LIMIT_MB) { console.error(`bench: with the big history, handoff ${name} peaked at ${m.mb.toFixed(0)} MB (limit ${LIMIT_MB} MB)`); ok = false; }
}
if (hStatus.r.status !== 0 || !hStatusSays || hGen.r.status !== 0 || !hPacketOk) {
  console.error(`bench: the Cline task was not found through the big history:\n${hStatus.r.stdout}${hStatus.r.stderr}\n${hGen.r.stdout}${hGen.r.stderr}`.slice(0, 4000));
  ok = false;
}
fs.rmSync(dir, { recursive: true, force: true });
process.exit(ok ? 0 : 1);
