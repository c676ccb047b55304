import * as assert from 'node:assert/strict';
import { promises as fs } from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { openableSource } from '../../../src/core/packet/openSource';
import { portablePacket, portableText, publicRemote, remoteKey, resolveAgentPath } from '../../../src/core/packet/portable';
import { renderForPr } from '../../../src/core/render/forPr';
import { buildTestPacket } from '../helpers/packetBuilder';

const home = '/home/ada';
const repo = '/home/ada/work/shop';
const claudeFile = '/home/ada/.claude/projects/-home-ada-work-shop/7f3e2a91.jsonl';

describe('portable packet paths', () => {
  it('repository files become relative, the session file its agent folder + id, other home files ~/…', () => {
    const roots = { repoRoot: repo, home, session: { agent: 'claude-code' as const, file: claudeFile } };
    assert.equal(portableText(`${repo}/src/a.py`, roots), 'src/a.py');
    assert.equal(portableText(repo, roots), '.');
    assert.equal(portableText(`${claudeFile}:12`, roots), '~/.claude/projects/…/7f3e2a91.jsonl:12');
    // Already shown with the home as `~` (a risk's sentence): the project folder still goes.
    assert.equal(portableText('in ~/.claude/projects/-home-ada-work-shop/7f3e2a91.jsonl line 3', roots), 'in ~/.claude/projects/…/7f3e2a91.jsonl line 3');
    assert.equal(portableText(`see ${home}/notes/todo.md and ${repo}/README.md.`, roots), 'see ~/notes/todo.md and README.md.');
    // A longer name that merely starts like the repository is not inside it.
    assert.equal(portableText(`${repo}-old/x.py`, roots), '~/work/shop-old/x.py');
    assert.equal(portableText('/srv/other/x.py', roots), '/srv/other/x.py');
    // At the end of a sentence too.
    assert.ok(!portableText(`The session ran in ${repo}. Then it stopped.`, roots).includes(repo));
  });

  it('Codex rollouts keep their dated path under ~/.codex; task files their extension folder', () => {
    const codex = '/data/codex-home/sessions/2026/11/20/rollout-1.jsonl';
    assert.equal(portableText(codex, { repoRoot: repo, session: { agent: 'codex', file: codex } }), '~/.codex/sessions/2026/11/20/rollout-1.jsonl');
    const task = '/data/Code/User/globalStorage/saoudrizwan.claude-dev/tasks/1732/ui_messages.json';
    assert.equal(portableText(`${task}:4`, { repoRoot: repo, session: { agent: 'cline', file: task } }), '…/saoudrizwan.claude-dev/tasks/1732/ui_messages.json:4');
  });

  it('every string of a packet is rewritten, nothing else', () => {
    const p = buildTestPacket({
      summary: `Edited ${repo}/src/a.ts`,
      changed_files: [{ path: `${repo}/src/a.ts`, kind: 'modified' }],
      closing: { text: 'done', source: { file: claudeFile, line: 40, what: 'closing message' } },
    });
    const out = portablePacket(p, { repoRoot: repo, home, session: { agent: 'claude-code', file: claudeFile } });
    assert.equal(out.summary, 'Edited src/a.ts');
    assert.equal(out.changed_files[0]?.path, 'src/a.ts');
    assert.deepEqual(out.closing?.source, { file: '~/.claude/projects/…/7f3e2a91.jsonl', line: 40, what: 'closing message' });
    assert.equal(out.head_commit, p.head_commit);
    assert.ok(!JSON.stringify(out).includes(home));
  });

  it('a portable session path opens this machine\'s file: by the session id in any project folder, never outside the agent homes', async () => {
    const h = await fs.mkdtemp(path.join(os.tmpdir(), 'handoff-portable-'));
    try {
      const file = path.join(h, 'projects', '-other-machine-slug', '7f3e2a91.jsonl');
      await fs.mkdir(path.dirname(file), { recursive: true });
      await fs.writeFile(file, '{}\n');
      const portable = '~/.claude/projects/…/7f3e2a91.jsonl';
      assert.equal(resolveAgentPath(portable, { agentHomes: [h] }), file);
      assert.equal(resolveAgentPath('~/.claude/projects/…/missing.jsonl', { agentHomes: [h] }), null);
      assert.equal(resolveAgentPath('~/.claude/projects/…/../../../etc/passwd', { agentHomes: [h] }), null);
      const p = buildTestPacket({ closing: { text: 'done', source: { file: portable, line: 1 } } });
      assert.equal(openableSource(p, portable, { folder: '/nowhere', workbenchDir: '/nowhere', agentHomes: [h] }), file);
      // A path the packet does not name is never opened.
      assert.equal(openableSource(p, '~/.claude/projects/…/other.jsonl', { folder: '/nowhere', workbenchDir: '/nowhere', agentHomes: [h] }), null);
    } finally {
      await fs.rm(h, { recursive: true, force: true });
    }
  });

  it('a remote keeps no credentials; two spellings of one remote compare equal', () => {
    assert.equal(publicRemote('https://ada:ghp_secret@github.com/acme/shop.git'), 'https://github.com/acme/shop.git');
    assert.equal(publicRemote('git@github.com:acme/shop.git'), 'git@github.com:acme/shop.git');
    assert.equal(remoteKey('git@github.com:acme/shop.git'), remoteKey('https://github.com/Acme/shop/'));
    assert.notEqual(remoteKey('git@github.com:acme/shop.git'), remoteKey('git@github.com:acme/shop-fork.git'));
  });
});

describe('handoff show --for-pr', () => {
  it('what was done, what failed or was rejected, open risks and the next step, short and redacted', () => {
    const key = `${'ghp_'}${'a1B2'.repeat(9)}`;
    const p = buildTestPacket({
      summary: 'Refund flow half done.',
      decisions: [{ text: 'declined by the user: `docker compose down -v`', status: 'rejected' }],
      open_risks: [
        { id: 'r1', severity: 'warn', detail: 'Migration not run', source: 'git' },
        { id: 'r2', severity: 'block', detail: `Key ${key} leaked`, source: 'git' },
      ],
      changed_files: Array.from({ length: 7 }, (_, i) => ({ path: `src/f${i}.ts`, kind: 'modified' as const })),
    });
    const md = renderForPr(p);
    assert.match(md, /^### Session handoff: T-1 on main\n/);
    assert.match(md, /\*\*What was done\*\*\n\nRefund flow half done\.\n\n7 files changed:\n- `src\/f0\.ts` \(modified\)\n/);
    assert.match(md, /- …and 2 more \(see the handoff packet\)/);
    assert.match(md, /\*\*What failed or was rejected\*\*\n\n- `npm test` — exit 1\n- rejected: declined by the user: `docker compose down -v`\n/);
    // Most severe first, and the credential masked.
    assert.match(md, /\*\*Open risks\*\*\n\n- \*\*block\*\* Key .* leaked\n- \*\*warn\*\* Migration not run\n/);
    assert.ok(!md.includes(key), 'redacted');
    assert.match(md, /\*\*Next step\*\*\n\nFix the failing refund test\n/);
    assert.ok(md.length < 2000, `${md.length} characters`);
  });

  it('says plainly when nothing failed and no risk is open; a resolved failure is not listed', () => {
    const p = buildTestPacket({
      failed_attempts: [{ index: 0, command: 'npm test', outcome: 'failed', exit_code: 1, note: null, excerpt: '', uncertain: false, resolved_by: 1 }],
      open_risks: [],
    });
    const md = renderForPr(p);
    assert.match(md, /Nothing failed or was rejected among the recorded commands\./);
    assert.match(md, /\*\*Open risks\*\*\n\nNone recorded\./);
  });

  it('pings no one and links or closes nothing: mentions and issue references in agent text become code spans', () => {
    const p = buildTestPacket({
      topic: '@team-x',
      summary: 'Fixes #12 and closes org/repo#3, as @alice asked; GH-7 too. Mail bob@example.com; `git log @{u}` and `#define X` stay.',
      next_action: 'Resolves #44: ask @bob/reviewers',
      decisions: [{ text: 'cc @carol', status: 'rejected' }],
    });
    const md = renderForPr(p);
    assert.match(md, /^### Session handoff: `@team-x` on main\n/);
    assert.match(md, /Fixes `#12` and closes `org\/repo#3`, as `@alice` asked; `GH-7` too\. Mail bob@example\.com; `git log @\{u\}` and `#define X` stay\./);
    assert.match(md, /Resolves `#44`: ask `@bob\/reviewers`/);
    assert.match(md, /rejected: cc `@carol`/);
    // Outside code spans, nothing GitHub reads as a mention, a reference or a closing keyword.
    const prose = md.replace(/`[^`]*`/g, '');
    assert.doesNotMatch(prose, /(?<![\w.])@[A-Za-z0-9]/);
    assert.doesNotMatch(prose, /#\d/);
  });

  it('a closing keyword before an issue or pull request URL closes nothing either: the URL becomes a code span', () => {
    const p = buildTestPacket({
      summary: 'Resolves https://github.com/acme/shop/issues/9 and fixes http://www.github.com/acme/shop/pull/10#issuecomment-1.',
      next_action: 'Read https://github.com/acme/shop/blob/main/README.md and https://example.com/issues/3 first',
    });
    const md = renderForPr(p);
    assert.match(md, /Resolves `https:\/\/github\.com\/acme\/shop\/issues\/9` and fixes `http:\/\/www\.github\.com\/acme\/shop\/pull\/10#issuecomment-1`\./);
    assert.doesNotMatch(md.replace(/`[^`]*`/g, ''), /github\.com\/[^\s]*\/(issues|pull)\/\d/);
    // A link that is no issue or pull request stays a link.
    assert.match(md, /Read https:\/\/github\.com\/acme\/shop\/blob\/main\/README\.md and https:\/\/example\.com\/issues\/3 first/);
  });
});
