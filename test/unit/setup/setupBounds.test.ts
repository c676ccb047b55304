import * as assert from 'node:assert/strict';
import { promises as fs } from 'node:fs';
import * as path from 'node:path';
import { parse as parseToml, patch } from '@decimalturn/toml-patch';
import { patchToml } from '../../../src/core/setup/toml';
import { makeTempDir } from '../helpers/fixtures';
import { handoff } from '../helpers/workbenchRepo';

const LAUNCHER = '/opt/handoff/handoff';
const exists = (f: string) => fs.lstat(f).then(() => true, () => false);

describe('set-up: exact bytes back, no leftovers, linear TOML edits', () => {
  it('--remove on settings whose "hooks" was null gives back the exact bytes (the null included)', async () => {
    const home = await makeTempDir('claude-home-');
    const file = path.join(home, 'settings.json');
    const before = '{\n    "model": "opus",\n    "hooks": null,\n    "env": {"A": "1"}\n}\n';
    await fs.writeFile(file, before);
    const env = { ...process.env, CLAUDE_CONFIG_DIR: home };
    assert.equal(handoff(['setup', 'claude', '--launcher', LAUNCHER], { env }).code, 0);
    assert.match(await fs.readFile(file, 'utf8'), /handoff hook/);
    const removed = handoff(['setup', 'claude', '--remove', '--launcher', LAUNCHER], { env });
    assert.equal(removed.code, 0, removed.stderr);
    assert.equal(await fs.readFile(file, 'utf8'), before);
    assert.equal(await exists(`${file}.handoff-backup`), false, 'the backup went with it');
  });

  it('the temp files a killed set-up left beside the settings are removed by the next run; a live one\'s and other names stay', async () => {
    const home = await makeTempDir('claude-home-');
    const file = path.join(home, 'settings.json');
    await fs.writeFile(file, '{"model": "opus"}\n');
    // What a set-up killed between writing its temp file and renaming it leaves (its pid is gone).
    const dead = path.join(home, `.settings.json.${2 ** 22 + 7}.0badf00d.tmp`);
    const live = path.join(home, `.settings.json.${process.pid}.0badf00d.tmp`);
    const other = path.join(home, `.other.json.${2 ** 22 + 7}.0badf00d.tmp`);
    for (const f of [dead, live, other]) await fs.writeFile(f, '{"env": {"API_KEY": "half-written"}}');
    const env = { ...process.env, CLAUDE_CONFIG_DIR: home };
    assert.equal(handoff(['setup', 'claude', '--launcher', LAUNCHER], { env }).code, 0);
    assert.equal(await exists(dead), false);
    assert.equal(await exists(live), true);
    assert.equal(await exists(other), true);
    // Also when a later run has nothing to write.
    await fs.writeFile(dead, '{}');
    assert.equal(handoff(['setup', 'claude', '--launcher', LAUNCHER], { env }).code, 0);
    assert.equal(await exists(dead), false);
  });

  describe('a top-level key in a big config.toml', () => {
    const config = (n: number, head = 'model = "o3"\n') =>
      `${head}\n${Array.from({ length: n }, (_, i) => `[projects."/home/me/p${i}"]\ntrust_level = "trusted"\n`).join('\n')}`;

    for (const [name, head] of [
      ['plain', 'model = "o3"\n'],
      ['a multi-line string holding a table line', 'model = "o3"\ninstructions = """\n[not.a.table]\nstill text\n"""\n'],
      ['a multi-line array', 'model = "o3"\nlist = [\n  [1, 2],\n  [3],\n]\n'],
      ['no top-level key at all', ''],
    ] as const) {
      it(`is added and removed in the head only, as a whole-file edit would (${name})`, () => {
        const before = config(50, head);
        const current = parseToml(before) as Record<string, unknown>;
        const added = { notify: [LAUNCHER, 'notify'], ...current };
        const fast = patchToml('config.toml', before, added as never, current as never);
        assert.ok(fast.ok);
        // As the whole-file edit lays it out (with no top-level key, the blank line before the tables may differ).
        const whole = patch(before, added as never);
        if (head) assert.equal(fast.text, whole.endsWith('\n') ? whole : `${whole}\n`);
        assert.deepEqual(JSON.parse(JSON.stringify(parseToml(fast.text))), JSON.parse(JSON.stringify(added)));
        assert.ok(fast.text.endsWith(before.slice(before.indexOf('[projects'))), 'the tables are kept byte for byte');
        const back = patchToml('config.toml', fast.text, current as never, added as never);
        assert.ok(back.ok);
        assert.deepEqual(JSON.parse(JSON.stringify(parseToml(back.text))), JSON.parse(JSON.stringify(current)));
      });
    }

    it('a change inside a table still edits the whole file (and is checked)', () => {
      const before = config(3);
      const current = parseToml(before) as Record<string, Record<string, unknown>>;
      const next = { ...current, projects: { ...current['projects'], '/new': { trust_level: 'trusted' } } };
      const r = patchToml('config.toml', before, next as never, current as never);
      assert.ok(r.ok);
      assert.deepEqual(JSON.parse(JSON.stringify(parseToml(r.text))), JSON.parse(JSON.stringify(next)));
    });
  });
});
