import * as assert from 'node:assert/strict';
import * as path from 'node:path';
import { secretRisks, sessionSecretFindings } from '../../../src/core/packet/secretRisks';
import { fingerprintOf } from '../../../src/core/redact/scan';
import { promises as fs } from 'node:fs';
import { ClineSdkReader } from '../../../src/core/session/clineSdk';
import { taskCredentials } from '../../../src/core/session/taskCredentials';
import { VscodeTaskReader } from '../../../src/core/session/taskReader';
import { makeTempDir } from '../helpers/fixtures';
import { placeTasks, TASK_IDS, taskDir } from './vscodeAgentFixture';
import { editTaskFile, githubToken, openaiKey, stripeKey, taskWithCatEnv } from './taskSecrets';

describe('credentials a Cline / Roo Code / Kilo Code task saw', () => {
  it('Cline: `cat .env` printed a Stripe key — one credential, both files, the command and where, one block risk naming the task', async () => {
    const cwd = await makeTempDir('handoff-cwd-');
    const { dir, key } = await taskWithCatEnv('cline-native', cwd);
    const facts = await new VscodeTaskReader(dir, 'cline', { cwd }).facts();
    assert.ok(facts);
    const [c, ...more] = facts.credentials ?? [];
    assert.equal(more.length, 0, JSON.stringify(facts.credentials));
    assert.equal(c?.kind, 'a Stripe live key (STRIPE_SECRET_KEY)');
    assert.equal(c.fingerprint, fingerprintOf(key));
    assert.equal(c.printedBy, '`cat .env`');
    const ui = path.join(dir, 'ui_messages.json');
    const api = path.join(dir, 'api_conversation_history.json');
    // The chat is one line; the api history is indented, so its message 4 starts further down.
    assert.deepEqual(
      c.places?.map((p) => [path.basename(p.file), p.index, p.line > 1]),
      [
        ['ui_messages.json', 6, false],
        ['api_conversation_history.json', 4, true],
      ],
    );
    assert.ok(c.places?.every((p) => p.file === ui || p.file === api));
    assert.ok(!JSON.stringify(facts.credentials).includes(key.slice(8)), 'the value is never kept');

    const risks = secretRisks(sessionSecretFindings(facts), {}, facts.agent);
    assert.equal(risks.length, 1);
    const r = risks[0]!;
    assert.equal(r.severity, 'block');
    assert.equal(r.id, `leak:${TASK_IDS['cline-native']}/ui_messages.json#6`);
    assert.match(r.detail, new RegExp(`^\`cat \\.env\` printed a Stripe live key \\(STRIPE_SECRET_KEY\\) into Cline task ${TASK_IDS['cline-native']}, whose files now hold a copy \\(masked in this packet\\)\\. Fix: `));
    assert.match(r.detail, new RegExp(`Seen in .*tasks/${TASK_IDS['cline-native']}/: ui_messages\\.json message index 6; api_conversation_history\\.json message index 4 \\(line \\d+\\)\\.$`));
    assert.match(r.detail, /Fix: rotate the credential now; remove it from the file it came from and from git history .*; delete the task in Cline or scrub it \(handoff secrets --scrub, with the task closed/);
    assert.ok(!r.detail.includes(key.slice(8)));
  });

  it('Roo Code: a file read, a user message and assistant text are told apart', async () => {
    const cwd = await makeTempDir('handoff-cwd-');
    const root = await placeTasks('roo-legacy', cwd);
    const dir = taskDir(root, 'roo-legacy');
    const [token, openai] = [githubToken(), openaiKey()];
    const envLocal = `OPENAI_API_KEY=${openai}`;
    await editTaskFile(path.join(dir, 'ui_messages.json'), (v) => {
      v.push({ ts: 1764300011000, type: 'say', say: 'user_feedback', text: `use this token: ${token}` });
      v.push({ ts: 1764300012000, type: 'ask', ask: 'tool', text: JSON.stringify({ tool: 'readFile', path: '.env.local' }) });
      v.push({ ts: 1764300014000, type: 'say', say: 'text', text: `The key ${stripeKey(612)} in the config looks live.` });
    });
    await editTaskFile(path.join(dir, 'api_conversation_history.json'), (v) => {
      v.push({ role: 'assistant', content: [{ type: 'tool_use', id: 'toolu_r', name: 'read_file', input: { path: '.env.local' } }], ts: 1764300012000 });
      v.push({ role: 'user', content: [{ type: 'tool_result', tool_use_id: 'toolu_r', content: `File: .env.local\n1 | ${envLocal}` }], ts: 1764300013000 });
    });
    const facts = await new VscodeTaskReader(dir, 'roo', { cwd }).facts();
    const got = (facts?.credentials ?? []).map((c) => [c.kind, c.printedBy, c.places?.map((p) => `${path.basename(p.file)}#${p.index}`)]);
    assert.deepEqual(got, [
      ['a GitHub token', 'a user message', ['ui_messages.json#11']],
      ['a Stripe live key', 'assistant text', ['ui_messages.json#13']],
      ['an OpenAI API key (OPENAI_API_KEY)', 'read_file of .env.local', ['api_conversation_history.json#7']],
    ]);
    const risks = secretRisks(sessionSecretFindings({ ...facts!, cwd }), {}, 'roo');
    assert.equal(risks.length, 3);
    assert.match(risks[1]!.detail, /^A Stripe live key is in assistant text of Roo Code task /);
    assert.match(risks[2]!.detail, new RegExp(`^read_file of \\.env\\.local printed an OpenAI API key \\(OPENAI_API_KEY\\) into Roo Code task ${TASK_IDS['roo-legacy']}, whose files`));
    assert.match(risks[0]!.detail, /^A GitHub token is in a user message of Roo Code task /);
    assert.match(risks[0]!.detail, /delete the task in Roo Code or scrub it/);
  });

  it('the same key in a workbench file and a task is one risk that names both', async () => {
    const cwd = await makeTempDir('handoff-cwd-');
    const { dir, key } = await taskWithCatEnv('roo-legacy', cwd);
    const facts = await new VscodeTaskReader(dir, 'kilo', { cwd }).facts();
    const workbench = { file: 'feedback_record.jsonl', line: 3, rule: 'stripe', label: 'a Stripe live key', fingerprint: fingerprintOf(key) };
    const risks = secretRisks([workbench, ...sessionSecretFindings(facts!)], {}, 'kilo');
    assert.equal(risks.length, 1);
    assert.match(risks[0]!.detail, /^A Stripe live key in feedback_record\.jsonl line 3 .* Also seen in `cat \.env` output in Kilo Code task .*ui_messages\.json message index 6.*delete the task in Kilo Code or scrub it/);
  });

  it("Cline's SDK bundle: the messages file is scanned like an api history", async () => {
    const dir = path.join(await makeTempDir('handoff-cline-sdk-'), 'sess_02');
    await fs.mkdir(dir);
    const t = Date.now() - 60_000;
    await fs.writeFile(path.join(dir, 'sess_02.json'), JSON.stringify({ version: 1, session_id: 'sess_02', started_at: new Date(t).toISOString(), model: 'claude-sonnet-4-5', cwd: dir, workspace_root: dir, prompt: 'Check the deploy' }));
    const token = githubToken(611);
    const file = path.join(dir, 'sess_02.messages.json');
    await fs.writeFile(
      file,
      JSON.stringify([
        { role: 'user', content: [{ type: 'text', text: 'Check the deploy' }], ts: t },
        { role: 'assistant', content: [{ type: 'tool_use', id: 'tu1', name: 'execute_command', input: { command: 'git remote -v' } }], ts: t + 1000 },
        { role: 'user', content: [{ type: 'tool_result', tool_use_id: 'tu1', content: `origin\thttps://${token}@github.com/o/r.git (fetch)` }], ts: t + 2000 },
      ]),
    );
    const facts = await new ClineSdkReader(file).facts();
    assert.deepEqual(
      facts?.credentials?.map((c) => [c.kind, c.printedBy, c.callLine, c.places?.map((p) => [p.file, p.index])]),
      [['a GitHub token (github.com)', '`git remote -v`', 1, [[file, 2]]]],
    );
  });

  it('a task without credentials has none, and the scan ignores what is not an array of messages', () => {
    assert.deepEqual(taskCredentials({ ui: { file: '/t/ui_messages.json', value: [{ type: 'say', say: 'text', text: 'sk-your-key-here is a placeholder' }], lines: [1] }, api: { file: '/t/api.json', value: { not: 'an array' }, lines: [] } }, 'cline'), []);
  });
});
