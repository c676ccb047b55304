import * as assert from 'node:assert/strict';
import { promises as fs } from 'node:fs';
import * as path from 'node:path';
import { ContextMeter } from '../../../src/core/context/meter';
import { VscodeTaskDiscovery } from '../../../src/core/context/vscodeAgents';
import { replayMutationLog } from '../../../src/core/session/copilotChat';
import { sessionDisplayName } from '../../../src/core/session/model';
import { SessionTracker } from '../../../src/core/session/tracker';
import { isTaskFile } from '../../../src/ui/state/watchPatterns';
import { DEFAULT_OPTIONS } from '../../../src/core/options';
import { findSecrets, scrubEntry } from '../../../src/core/workflow/secrets';
import { makeTempDir } from '../helpers/fixtures';
import { CHAT, placeGen0, placeGen1, placeGen2, placeGen3 } from './copilotChatFixture';

async function setup(): Promise<{ folder: string; root: string; none: Record<string, unknown> }> {
  const base = await fs.realpath(await makeTempDir('handoff-copilot-chat-'));
  const folder = path.join(base, 'slugkit');
  await fs.mkdir(folder);
  const root = path.join(base, 'User', 'workspaceStorage');
  const none = { claudeConfigDir: path.join(base, 'none'), codexHome: path.join(base, 'none'), globalStorageRoots: [] as string[], clineSessionsDir: path.join(base, 'none'), kiloDb: path.join(base, 'none', 'k.db'), opencodeDb: path.join(base, 'none', 'o.db'), workspaceStorageRoots: [root] };
  return { folder, root, none };
}

const generations = [
  { gen: 0, place: placeGen0, exits: [1, 0] },
  { gen: 1, place: placeGen1, exits: [1, 0] },
  { gen: 2, place: placeGen2, exits: [1, 0] },
  // The transcript keeps no exit code: never taken for 0.
  { gen: 3, place: placeGen3, exits: [null, null] },
] as const;

describe('GitHub Copilot Chat in VS Code, every generation of its store (fixtures built from FORMATS)', () => {
  for (const g of generations) {
    it(`generation ${g.gen}: the folder's session gives the request, the runs, the edit and the closing words`, async () => {
      const { folder, root, none } = await setup();
      const file = await g.place(root, folder);
      // A workspace of another folder in the same storage is never this folder's.
      await g.place(path.join(root, '..', 'otherStorage'), path.join(folder, '..', 'other'));
      const found = await new VscodeTaskDiscovery(folder, { globalStorageRoots: [], workspaceStorageRoots: [root] }).find(['copilot-chat']);
      assert.deepEqual(found.map((c) => [c.source, c.file]), [['copilot-chat', file]]);
      assert.deepEqual(await new VscodeTaskDiscovery(path.join(folder, '..', 'other'), { globalStorageRoots: [], workspaceStorageRoots: [root] }).find(['copilot-chat']), []);
      const facts = await new SessionTracker({ folder, ...none, agents: ['copilot-chat'] }).read();
      assert.ok(facts);
      assert.equal(facts.agent, 'copilot-chat');
      assert.match(sessionDisplayName(facts), /^Copilot Chat session gen\d-ses/);
      assert.deepEqual(facts.userRequests, [CHAT.request]);
      assert.deepEqual(facts.commands.map((c) => [c.command, c.exit_code]), [[CHAT.command, g.exits[0]], [CHAT.command, g.exits[1]]]);
      assert.ok(facts.commands[0]?.stdout_tail?.includes("'crème-brûlée!'"));
      assert.deepEqual(facts.filesTouched, [path.join(folder, 'src', 'slug.js')]);
      // The edit lies between the failing run and the passing one.
      assert.deepEqual(facts.edits?.map((e) => e.beforeCommand), [1]);
      assert.equal(facts.closing?.text, CHAT.closing);
      assert.equal(facts.endedOnClosing, true);
      assert.equal(facts.model, 'gpt-4.1');
    });
  }

  it('a credential in a session of generations 1–3 is found by line, listed by handoff secrets and never scrubbed (VS Code writes the file back)', async () => {
    const token = `${'gh'}p_${'Zq7Xw2Lm9Kp4Rt6Yv1Nb8Hc3Jd5Fg0Ts2Ua'}`;
    for (const place of [placeGen1, placeGen2, placeGen3]) {
      const { folder, root, none } = await setup();
      const file = await place(root, folder);
      await fs.writeFile(file, (await fs.readFile(file, 'utf8')).replace(CHAT.request, `${CHAT.request} Use the token ${token} to push.`));
      const facts = await new SessionTracker({ folder, ...none, agents: ['copilot-chat'] }).read();
      assert.equal(facts?.credentials?.length, 1, `${path.basename(file)}: ${JSON.stringify(facts?.credentials)}`);
      assert.ok(!JSON.stringify(facts?.credentials).includes(token.slice(4, 13)), 'the value is never kept');
      const report = await findSecrets({ workspaceDir: folder, options: DEFAULT_OPTIONS, git: null, tasks: { globalStorageRoots: [], workspaceStorageRoots: [root] }, claudeConfigDir: path.join(folder, 'none'), codexHome: path.join(folder, 'none') });
      const entry = report.sessions.find((e) => e.agent === 'copilot-chat');
      assert.equal(entry?.credentials, 1, JSON.stringify(report.sessions));
      const before = await fs.readFile(file, 'utf8');
      const scrub = await scrubEntry(entry!, { force: true });
      assert.equal(scrub.kind, 'refused');
      assert.match(scrub.kind === 'refused' ? scrub.reason : '', /VS Code keeps Copilot Chat's sessions/);
      assert.equal(await fs.readFile(file, 'utf8'), before);
    }
  });

  it('the meter: a transcript with usage is read against the model table; the older stores say they keep no usage', async () => {
    const { folder, root, none } = await setup();
    await placeGen3(root, folder);
    const r = (await new ContextMeter({ folder, ...none, sources: ['copilot-chat'] }).read()).current;
    assert.ok(r.known, JSON.stringify(r));
    assert.equal(r.source, 'copilot-chat');
    assert.equal(r.usedTokens, 10_476);
    assert.equal(r.windowTokens, 1_047_576);
    assert.equal(r.percent, 1);
    const old = await setup();
    await placeGen1(old.root, old.folder);
    const u = (await new ContextMeter({ folder: old.folder, ...old.none, sources: ['copilot-chat'] }).read()).current;
    assert.equal(u.known, false);
    assert.match(u.known ? '' : u.reason, /Copilot Chat stores no token usage in gen1-session\.json/);
    const bare = await setup();
    await placeGen3(bare.root, bare.folder, 'gen3-session', { usage: false });
    const b = (await new ContextMeter({ folder: bare.folder, ...bare.none, sources: ['copilot-chat'] }).read()).current;
    assert.match(b.known ? '' : b.reason, /no assistant\.usage entry/);
  });

  it('the newest session of the folder wins across generations, whatever its age', async () => {
    const { folder, root } = await setup();
    const old = await placeGen1(root, folder);
    const newer = await placeGen2(root, folder);
    const weeksAgo = new Date(Date.now() - 21 * 86_400_000);
    await fs.utimes(old, weeksAgo, new Date(weeksAgo.getTime() - 1000));
    await fs.utimes(newer, weeksAgo, weeksAgo);
    const found = await new VscodeTaskDiscovery(folder, { globalStorageRoots: [], workspaceStorageRoots: [root] }).find(['copilot-chat']);
    assert.deepEqual(found.map((c) => c.file), [newer]);
  });

  it('replays a mutation log: set, push with truncation, delete; a bad line in the middle is counted', () => {
    const log = [
      JSON.stringify({ kind: 0, v: { a: 1, list: [1, 2, 3] } }),
      JSON.stringify({ kind: 2, k: ['list'], v: [9], i: 1 }),
      '{not json',
      JSON.stringify({ kind: 1, k: ['b'], v: { c: 2 } }),
      JSON.stringify({ kind: 3, k: ['a'] }),
      '{"kind":1,"k":["torn"',
    ].join('\n');
    assert.deepEqual(replayMutationLog(log), { value: { list: [1, 9], b: { c: 2 } }, badLines: [3] });
  });

  it('the editor watches the files of each store', () => {
    assert.ok(isTaskFile('/ws/abc/chatSessions/x.json'));
    assert.ok(isTaskFile('/ws/abc/chatSessions/x.jsonl'));
    assert.ok(isTaskFile('/ws/abc/GitHub.copilot-chat/transcripts/x.jsonl'));
    assert.ok(isTaskFile('/ws/abc/state.vscdb'));
    assert.ok(isTaskFile('/d/opencode/opencode.db-wal'));
    assert.ok(!isTaskFile('/ws/abc/workspace.json'));
  });
});
