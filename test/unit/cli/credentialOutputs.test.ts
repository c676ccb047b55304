/**
 * A credential the session saw is never shown, not even in part: a real Claude Code transcript of the
 * folder prints three credentials (a GitHub token in a command, an AWS key pair in a tool's output, an
 * Anthropic key the human typed), and no 9 consecutive characters of any of them reach any output —
 * handoff.md, handoff.json, `handoff prompt`, the SessionStart hook text, `handoff status`, `show`,
 * `show --for-pr`, `handoff secrets`, the MCP server's answers and the HTML of the editor's handoff
 * panel. Values are assembled at run time, so no literal here is a credential.
 */
import * as assert from 'node:assert/strict';
import { promises as fs } from 'node:fs';
import * as path from 'node:path';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StdioClientTransport } from '@modelcontextprotocol/sdk/client/stdio.js';
import { claudeProjectDirName } from '../../../src/core/context/discovery';
import type { Packet } from '../../../src/core/packet/schema';
import { redactDeep } from '../../../src/core/redact';
import { auditWithFiles } from '../../../src/core/workflow/audit';
import { toPanelModel } from '../../../src/ui/panel/model';
import { parseHostMessage, type HostMessage } from '../../../src/ui/protocol';
import type { WorkbenchUiState } from '../../../src/ui/state/types';
import { packetSections } from '../../../media/sections';
import { html, withFakeDocument } from '../helpers/fakeDom';
import { makeTempDir, repoRoot } from '../helpers/fixtures';
import { makeRepo, tempRepos } from '../helpers/gitRepo';
import { handoff } from '../helpers/workbenchRepo';
import { bashUse, claudeAssistant, claudeResult, claudeUserText, text } from '../session/sessionLines';

const mixed = (seed: string, n: number): string => {
  const abc = 'aB3cD5eF7gH9jK2mN4pQ6rS8tU1vW0xYz';
  let out = '';
  for (let i = 0; out.length < n; i++) out += abc[(seed.charCodeAt(i % seed.length) * 7 + i * 13) % abc.length];
  return out;
};
const GITHUB = `${'gh'}p_${mixed('github', 36)}`;
const AWS_ID = `${'AK'}IA${mixed('awsid', 16).toUpperCase()}`;
const AWS_SECRET = mixed('aws-secret-key', 40);
const ANTHROPIC = `${'sk-'}ant-api03-${mixed('anthropic', 93)}AA`;
const SECRETS = { GITHUB, AWS_SECRET, ANTHROPIC };

/** The name of the first credential of which `out` holds 9 consecutive characters, or null. */
function fragmentOf(out: string): string | null {
  for (const [name, secret] of Object.entries(SECRETS)) {
    for (let i = 0; i + 9 <= secret.length; i++) if (out.includes(secret.slice(i, i + 9))) return `${name} (…${secret.slice(i, i + 9).replace(/./g, '*')}… at ${i})`;
  }
  return null;
}
const clean = (out: string, where: string): void => {
  const hit = fragmentOf(out);
  assert.equal(hit, null, `${where} holds 9 characters of ${hit}`);
};

/**
 * The HTML the editor's handoff panel draws for a packet: the message the host builds (model, audit)
 * and redacts on its way out, as the webview validates it, drawn by the webview's own code.
 */
async function panelHtml(packet: Packet, dir: string, packetDir: string): Promise<string> {
  const state = { folder: { name: path.basename(dir), uri: { toString: () => `file://${dir}`, fsPath: dir } } } as unknown as WorkbenchUiState;
  const entry = { id: packet.packet_id, dir: packetDir, packet, freshness: { stale: false, reasons: [] } };
  const audit = await auditWithFiles(packet, dir, { stale: false, reasons: [] });
  // The host's `redactedMessage`: every string of the message redacted.
  const sent = redactDeep<HostMessage>({ type: 'render', model: toPanelModel(state, entry, [], false, audit) });
  const msg = parseHostMessage(JSON.parse(JSON.stringify(sent)));
  assert.ok(msg?.type === 'render', 'the webview accepts the message');
  return withFakeDocument(() => packetSections(msg.model, () => undefined).map(html).join('\n'));
}

describe('no 9 characters of a credential the session saw reach any output', function () {
  this.timeout(180_000);
  // No workbench file: the session is the packet's only source, as for most users.
  const make = tempRepos(() => makeRepo({ branch: 'feat/refund', files: { 'src/refund.py': 'def refund(amount):\n    return amount\n' } }));

  it('packet files, prompt, SessionStart, status, show, for-pr, secrets and the MCP answers', async () => {
    const r = make();
    const dir = await fs.realpath(r.dir);
    const home = await makeTempDir('handoff-leak-home-');
    const claude = path.join(home, '.claude');
    const env: Record<string, string> = { ...(process.env as Record<string, string>), HOME: home, CLAUDE_CONFIG_DIR: claude, CODEX_HOME: path.join(home, '.codex'), HANDOFF_STATE_DIR: path.join(home, 'state') };
    const at = { cwd: dir, sessionId: 'sess-leak', gitBranch: 'feat/refund' };
    const lines = [
      claudeUserText(`use this key for the API: ${ANTHROPIC} and push with the token`, at),
      claudeAssistant([bashUse('t1', `git push https://x-access-token:${GITHUB}@github.com/acme/shop.git feat/refund`)], { extra: at }),
      claudeResult('t1', 'remote: Permission to acme/shop.git denied.\nfatal: unable to access', { isError: true, extra: at }),
      claudeAssistant([bashUse('t2', 'cat .env.production')], { extra: at }),
      claudeResult('t2', `AWS_ACCESS_KEY_ID=${AWS_ID}\nAWS_SECRET_ACCESS_KEY=${AWS_SECRET}\nREGION=eu-west-1`, { extra: at }),
      claudeAssistant([text('The push was refused. Should I retry with a new token?')], { extra: at }),
    ];
    const file = path.join(claude, 'projects', claudeProjectDirName(dir), 'sess-leak.jsonl');
    await fs.mkdir(path.dirname(file), { recursive: true });
    await fs.writeFile(file, `${lines.join('\n')}\n`);
    assert.notEqual(fragmentOf(lines.join('\n')), null, 'the check finds the values where they are');

    const gen = handoff(['generate', '--dir', dir, '--allow-dirty'], { env });
    assert.equal(gen.code, 0, gen.stderr);
    clean(gen.stdout + gen.stderr, 'generate');
    const written = /wrote (\S+handoff\.json)/.exec(gen.stdout)?.[1];
    assert.ok(written, gen.stdout);
    const packetDir = path.dirname(written);
    const json = await fs.readFile(path.join(packetDir, 'handoff.json'), 'utf8');
    const md = await fs.readFile(path.join(packetDir, 'handoff.md'), 'utf8');
    // The test means something: the packet does flag the credentials it must not show.
    assert.equal(md.match(/\*\*block\*\* `leak:/g)?.length, 4, md);
    assert.equal((JSON.parse(json) as { open_risks: { severity: string }[] }).open_risks.filter((x) => x.severity === 'block').length, 4);
    clean(json, 'handoff.json');
    clean(md, 'handoff.md');
    // The editor's panel: it draws the packet's risks, and no part of the values.
    const packet = JSON.parse(json) as Packet;
    const page = await panelHtml(packet, dir, packetDir);
    assert.equal(page.match(/leak:/g)?.length, 4, page);
    clean(page, 'the handoff panel');
    // …also when a packet text holds one (a hand-edited or foreign packet): the message is redacted on its way out.
    const edited = { ...packet, next_action: `retry the push with ${GITHUB}`, summary: `${packet.summary} (key ${ANTHROPIC})` };
    assert.notEqual(fragmentOf(JSON.stringify(edited)), null);
    clean(await panelHtml(edited, dir, packetDir), 'the handoff panel of an edited packet');
    for (const args of [['prompt'], ['prompt', '--for', 'codex'], ['status'], ['status', '--json'], ['show'], ['show', '--json'], ['show', '--for-pr'], ['secrets'], ['secrets', '--json'], ['risks'], ['audit']]) {
      const out = handoff([...args, '--dir', dir], { env });
      assert.ok(out.stdout.length > 0 || args[0] === 'risks', `${args.join(' ')}: ${out.stderr}`);
      clean(out.stdout + out.stderr, `handoff ${args.join(' ')}`);
    }
    const start = handoff(['hook'], { env, input: JSON.stringify({ session_id: 'next', cwd: dir, hook_event_name: 'SessionStart', source: 'startup' }) });
    assert.equal(start.code, 0, start.stderr);
    assert.match(start.stdout, /additionalContext/);
    clean(start.stdout, 'the SessionStart hook');

    const client = new Client({ name: 'test', version: '1' });
    await client.connect(new StdioClientTransport({ command: process.execPath, args: [path.join(repoRoot(), 'dist', 'cli.js'), 'mcp'], cwd: dir, env, stderr: 'pipe' }));
    try {
      for (const name of ['handoff_prompt', 'handoff_status', 'handoff_risks']) {
        const res = (await client.callTool({ name, arguments: {} }, undefined, { timeout: 120_000 })) as { content: { text?: string }[] };
        const answer = res.content.map((c) => c.text ?? '').join('\n');
        assert.ok(answer.length > 20, `${name}: ${answer}`);
        clean(answer, `MCP ${name}`);
      }
      for (const uri of ['handoff://active/handoff.md', 'handoff://active/handoff.json']) {
        const res = await client.readResource({ uri });
        clean(JSON.stringify(res.contents), `MCP ${uri}`);
      }
    } finally {
      await client.close().catch(() => undefined);
    }
  });
});
