import * as assert from 'node:assert/strict';
import { promises as fs } from 'node:fs';
import * as path from 'node:path';
import { COPILOT_INSTRUCTIONS } from '../../../src/core/setup/copilotInstructions';
import { makeTempDir } from '../helpers/fixtures';
import { handoff } from '../helpers/workbenchRepo';

const LAUNCHER = '/opt/handoff/handoff';
const exists = (f: string) => fs.lstat(f).then(() => true, () => false);
const read = (f: string) => fs.readFile(f, 'utf8');
const esc = (s: string) => s.replace(/[.*+?^${}()|[\]\\/]/g, '\\$&');

async function copilotHome() {
  const home = await makeTempDir('copilot-instr-');
  const env: NodeJS.ProcessEnv = { ...process.env, HOME: home, HANDOFF_STATE_DIR: path.join(home, 'state') };
  delete env['COPILOT_HOME'];
  const dir = path.join(home, '.copilot');
  await fs.mkdir(dir, { recursive: true });
  return { env, dir, mcp: path.join(dir, 'mcp-config.json'), instructions: path.join(dir, 'copilot-instructions.md'), run: (...a: string[]) => handoff(['setup', 'copilot', '--launcher', LAUNCHER, ...a], { env }) };
}

describe("handoff setup copilot: the instruction to ask the MCP server for the handoff (Copilot CLI's hook output is not processed)", () => {
  it('no instructions file → ours, shown as a diff first; --check says it is there; --remove takes it away', async () => {
    const t = await copilotHome();
    const dry = t.run('--dry-run');
    assert.equal(dry.code, 0, dry.stderr);
    assert.match(dry.stdout, new RegExp(`--- /dev/null\\n\\+\\+\\+ ${esc(t.instructions)}\\n`));
    assert.equal(await exists(t.instructions), false, '--dry-run writes nothing');
    assert.equal(t.run('--check').code, 1, 'not set up yet');
    const r = t.run();
    assert.equal(r.code, 0, r.stderr);
    assert.equal(await read(t.instructions), COPILOT_INSTRUCTIONS);
    assert.match(COPILOT_INSTRUCTIONS, /`handoff_prompt` tool of the `handoff` MCP server with `for: "copilot"`/);
    assert.equal(t.run('--check').code, 0);
    assert.equal(t.run().stdout.includes(`wrote ${t.instructions}`), false, 'a second run changes nothing');
    const removed = t.run('--remove');
    assert.equal(removed.code, 0, removed.stderr);
    assert.equal(await exists(t.instructions), false);
    assert.equal(await exists(t.mcp), false);
    assert.equal(t.run('--check').code, 1);
  });

  it("the user's own instructions are kept, ours after them, a backup first; --remove restores their bytes", async () => {
    const t = await copilotHome();
    const before = '# Mine\n\nAnswer in French.';
    await fs.writeFile(t.instructions, before);
    const r = t.run();
    assert.equal(r.code, 0, r.stderr);
    assert.match(r.stdout, new RegExp(`backup ${esc(t.instructions)}\\.handoff-backup`));
    assert.equal(await read(t.instructions), `${before}\n\n${COPILOT_INSTRUCTIONS}`);
    assert.equal(await read(`${t.instructions}.handoff-backup`), before);
    const removed = t.run('--remove');
    assert.equal(removed.code, 0, removed.stderr);
    assert.equal(await read(t.instructions), before, 'the bytes from before set-up');
    assert.equal(await exists(`${t.instructions}.handoff-backup`), false);

    // Edited since set-up: only our block goes, their lines stay, the backup is kept.
    assert.equal(t.run().code, 0);
    await fs.appendFile(t.instructions, '\nAlso: short answers.\n');
    assert.equal(t.run('--remove').code, 0);
    assert.equal(await read(t.instructions), `${before}\n\nAlso: short answers.\n`);
    assert.equal(await exists(`${t.instructions}.handoff-backup`), true);
  });

  it('a "handoff" server of the user\'s own: kept, and no instruction names ours', async () => {
    const t = await copilotHome();
    const theirs = '{"mcpServers": {"handoff": {"type": "local", "command": "my-wrapper", "args": ["serve"]}}}\n';
    await fs.writeFile(t.mcp, theirs);
    const r = t.run();
    assert.equal(r.code, 0, r.stderr);
    assert.match(r.stdout, /of your own/);
    assert.equal(await read(t.mcp), theirs);
    assert.equal(await exists(t.instructions), false);
  });
});
