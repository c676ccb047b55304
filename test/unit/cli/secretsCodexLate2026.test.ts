import * as assert from 'node:assert/strict';
import { promises as fs } from 'node:fs';
import * as path from 'node:path';
import { fixturePath, makeTempDir } from '../helpers/fixtures';
import { tempRepos } from '../helpers/gitRepo';
import { handoff, workbenchRepo } from '../helpers/workbenchRepo';
import { writePaginated } from '../helpers/codexPaginated';
import { storedZstd } from '../helpers/zstdFrame';

describe('handoff secrets on Codex rollouts of late 2026', () => {
  const make = tempRepos(workbenchRepo);

  it('lists the credential of a compressed rollout, and --scrub leaves the .jsonl.zst as it was, saying why', async () => {
    const r = make();
    const home = await makeTempDir('handoff-codex-');
    const file = path.join(home, 'sessions', '2026', '11', '20', 'rollout-2026-11-20T16-00-00-019f8a3c-5d21-7e40-b9a7-3c5e1f0d2b68.jsonl.zst');
    await fs.mkdir(path.dirname(file), { recursive: true });
    const text = (await fs.readFile(fixturePath('transcripts', 'codex-2026.jsonl'), 'utf8')).split('__CWD__').join(r.dir);
    const packed = storedZstd(Buffer.from(text));
    await fs.writeFile(file, packed);
    const old = new Date(Date.now() - 8 * 86_400_000);
    await fs.utimes(file, old, old);
    const empty = await makeTempDir('handoff-claude-');
    const args = ['secrets', '--dir', r.dir, '--codex-home', home, '--claude-config-dir', empty];
    const list = handoff(args);
    assert.equal(list.code, 0, list.stderr);
    assert.match(list.stdout, /^1 credential found for /);
    assert.match(list.stdout, /`cat \.npmrc` printed an npm access token .*lines 34, 35/);
    const scrub = handoff([...args, '--scrub']);
    assert.match(scrub.stdout + scrub.stderr, /compressed \(zstd\): its bytes are not the text/);
    assert.ok((await fs.readFile(file)).equals(packed), 'the compressed rollout is untouched');
  });

  it("lists each page of a paginated thread on its own: the reverted turn's page too", async () => {
    const r = make();
    const home = await makeTempDir('handoff-codex-');
    const { page1, page2 } = await writePaginated(r.dir, home);
    const json = handoff(['secrets', '--dir', r.dir, '--codex-home', home, '--claude-config-dir', await makeTempDir('handoff-claude-'), '--json']);
    assert.equal(json.code, 0, json.stderr);
    const out = JSON.parse(json.stdout) as { sessions: { file: string; agent: string }[] };
    assert.deepEqual(out.sessions.filter((s) => s.agent === 'codex').map((s) => s.file), [page1, page2]);
  });
});
