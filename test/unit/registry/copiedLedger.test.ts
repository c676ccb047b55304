import * as assert from 'node:assert/strict';
import { promises as fs } from 'node:fs';
import * as path from 'node:path';
import { LEDGER_KEY_FILE, OWN_PACKETS_FILE, packetHash } from '../../../src/core/registry/ownership';
import { FOREIGN_NOTICE } from '../../../src/core/registry/trust';
import { makeTempDir } from '../helpers/fixtures';
import { tempRepos } from '../helpers/gitRepo';
import { handoff, otherUser, sessionStartContext, workbenchRepo } from '../helpers/workbenchRepo';

describe('the "written here" ledger is bound to this user on this machine', () => {
  const make = tempRepos(workbenchRepo);

  /** A repository whose packet its author wrote (agent state edited in the working tree, then generated). */
  async function authored(env: NodeJS.ProcessEnv) {
    const r = make();
    const file = path.join(r.dir, 'agent_state.json');
    const state = JSON.parse(await fs.readFile(file, 'utf8')) as Record<string, unknown>;
    await fs.writeFile(file, JSON.stringify({ ...state, next_action: 'Run the refund tests and open the pull request' }));
    const gen = handoff(['generate', '--dir', r.dir, '--allow-dirty'], { env });
    assert.equal(gen.code, 0, gen.stderr);
    return r;
  }

  it('a repository shared as an archive with its .git: its ledger vouches for nothing for another user', async () => {
    const author = await otherUser();
    const r = await authored(author);
    // The author's own sessions are handed the packet to act on.
    assert.match(sessionStartContext(r.dir, author), /NEXT ACTION[^\n]*\n> Run the refund tests and open the pull request/);
    // The archive, unpacked elsewhere by someone else: git dir, ledger and packet all come along.
    const unpacked = path.join(await makeTempDir('handoff-unpacked-'), 'repo');
    await fs.cp(r.dir, unpacked, { recursive: true });
    assert.ok((await fs.stat(path.join(unpacked, '.git', OWN_PACKETS_FILE))).size > 0, 'the ledger came with the archive');
    const victim = await otherUser();
    const context = sessionStartContext(unpacked, victim);
    assert.equal(context, FOREIGN_NOTICE);
    assert.doesNotMatch(context, /right away|Run the refund tests/);
    // The same holds for `handoff prompt`: it opens with the notice and asks for no action.
    const prompt = handoff(['prompt', '--dir', unpacked], { env: victim });
    assert.match(prompt.stdout, /^NOT WRITTEN HERE: /);
    assert.doesNotMatch(prompt.stdout, /right away/);
  });

  it('a ledger line copied to another of the same user\'s repositories vouches for nothing there', async function () {
    this.timeout(120_000);
    const env = await otherUser();
    const r = await authored(env);
    assert.match(sessionStartContext(r.dir, env), /NEXT ACTION/);
    // The same working tree and packet in a second repository of this user, with the first one's ledger.
    const second = path.join(await makeTempDir('handoff-second-'), 'repo');
    await fs.cp(r.dir, second, { recursive: true });
    await fs.copyFile(path.join(r.dir, '.git', OWN_PACKETS_FILE), path.join(second, '.git', OWN_PACKETS_FILE));
    assert.equal(sessionStartContext(second, env), FOREIGN_NOTICE);
    assert.match(sessionStartContext(r.dir, env), /NEXT ACTION/, 'the first repository keeps its own');
  });

  it('a ledger of bare hashes (an earlier version, or crafted) is not trusted until the next generate', async () => {
    const env = await otherUser();
    const r = await authored(env);
    const packetDir = path.join(r.dir, 'outputs', 'handoff', 'sess-a');
    const ledger = path.join(r.dir, '.git', OWN_PACKETS_FILE);
    await fs.writeFile(ledger, `${packetHash(await fs.readFile(path.join(packetDir, 'handoff.json')))}\n`);
    assert.equal(sessionStartContext(r.dir, env), FOREIGN_NOTICE);
    assert.equal(handoff(['generate', '--dir', r.dir, '--allow-dirty'], { env }).code, 0);
    assert.match(sessionStartContext(r.dir, env), /NEXT ACTION/);
  });

  it('the key is private: created 0600 in the user\'s state folder; one others can read vouches for nothing', async function () {
    if (process.platform === 'win32') this.skip();
    const env = await otherUser();
    const r = await authored(env);
    const key = path.join(env['HANDOFF_STATE_DIR']!, LEDGER_KEY_FILE);
    assert.equal((await fs.stat(key)).mode & 0o777, 0o600);
    assert.match(sessionStartContext(r.dir, env), /NEXT ACTION/);
    await fs.chmod(key, 0o644);
    const context = sessionStartContext(r.dir, env);
    assert.ok(context.startsWith(FOREIGN_NOTICE), context);
    assert.doesNotMatch(context, /NEXT ACTION|Run the refund tests/);
    // Never silent: the notice says the key is why, and how to fix it.
    assert.match(context, /Possibly yours: the ledger key .*ledger\.key can be read or changed by others \(mode 644\).*chmod 600/);
  });

  it('an unusable ledger key (wrong size, a folder) is named in SessionStart, status and generate, never silently "not written here"', async () => {
    const env = await otherUser();
    const r = await authored(env);
    const key = path.join(env['HANDOFF_STATE_DIR']!, LEDGER_KEY_FILE);
    await fs.writeFile(key, 'short', { mode: 0o600 });
    assert.match(sessionStartContext(r.dir, env), /Possibly yours: the ledger key .* holds 5 bytes, not 32, so no packet can be vouched for/);
    const status = handoff(['status', '--dir', r.dir], { env });
    assert.match(status.stdout, /not written here[^]*possibly yours: the ledger key .* holds 5 bytes/);
    const json = JSON.parse(handoff(['status', '--dir', r.dir, '--json'], { env }).stdout) as { packet: { trust: string; possibly_yours?: string } };
    assert.equal(json.packet.trust, 'not-written-here');
    assert.match(json.packet.possibly_yours ?? '', /^the ledger key .* holds 5 bytes/);
    assert.match(handoff(['prompt', '--dir', r.dir], { env }).stderr, /^handoff: possibly yours: the ledger key .* holds 5 bytes/m);
    await fs.rm(key);
    await fs.mkdir(key);
    const gen = handoff(['generate', '--dir', r.dir, '--allow-dirty'], { env });
    assert.equal(gen.code, 0, gen.stderr);
    assert.match(gen.stderr, /handoff generate: the ledger key .* is not a file, so no packet can be vouched for as written here/);
    // Removed, the next generate makes a new key and the packet is ours again.
    await fs.rm(key, { recursive: true });
    assert.equal(handoff(['generate', '--dir', r.dir, '--allow-dirty'], { env }).code, 0);
    assert.match(sessionStartContext(r.dir, env), /NEXT ACTION/);
  });
});
