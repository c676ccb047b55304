import * as assert from 'node:assert/strict';
import { parse } from '@decimalturn/toml-patch';
import { planCodexSetup } from '../../../src/core/setup/codex';
import { planCodexMcpSetup } from '../../../src/core/setup/mcp';
import { appendToml, parseTomlFile, patchToml, tomlWork } from '../../../src/core/setup/toml';

const bigHead = (n: number) => Array.from({ length: n }, (_, i) => `key_${String(i).padStart(5, '0')} = ${i}`).join('\n') + '\n';
const parsed = (text: string) => {
  const r = parseTomlFile('config.toml', text);
  assert.ok(r.ok);
  return r.value;
};

describe('config.toml: adding a top-level key is a linear edit, whatever the file\'s size', () => {
  it('a file of 5 000 top-level keys and no table: notify goes after the last line, the editor patches nothing of the file', () => {
    const before = bigHead(5000);
    const current = parsed(before);
    const wanted = { notify: ['/opt/handoff/handoff', 'notify'], ...current };
    const work = tomlWork.patchedBytes;
    const r = patchToml('config.toml', before, wanted, current);
    assert.ok(r.ok);
    assert.equal(r.text, `${before}notify = [ "/opt/handoff/handoff", "notify" ]\n`);
    assert.ok(tomlWork.patchedBytes - work < 100, String(tomlWork.patchedBytes - work));
  });

  it('a head past 64 KiB before the first table: notify goes at the top; the tables are kept as they are', () => {
    const before = `${bigHead(5000)}\n[projects."/p/1"]\ntrust_level = "trusted"\n`;
    const current = parsed(before);
    const work = tomlWork.patchedBytes;
    const r = patchToml('config.toml', before, { notify: ['h', 'notify'], ...current }, current);
    assert.ok(r.ok);
    assert.equal(r.text, `notify = [ "h", "notify" ]\n${before}`);
    assert.ok(tomlWork.patchedBytes - work < 100);
  });

  it('a small head is still patched in place, with the other top-level keys', () => {
    const before = 'model = "o3"\n\n[projects."/p"]\ntrust_level = "trusted"\n';
    const current = parsed(before);
    const r = patchToml('config.toml', before, { notify: ['h'], ...current }, current);
    assert.ok(r.ok);
    assert.equal(r.text, `model = "o3"\nnotify = [ "h" ]\n\n[projects."/p"]\ntrust_level = "trusted"\n`);
  });
});

describe('config.toml: an edit that adds text beside the user\'s is checked from its parts', () => {
  const tables = (n: number) => Array.from({ length: n }, (_, i) => `[projects."/home/me/p${i}"]\ntrust_level = "trusted"\n`).join('\n');
  const whole = (text: string) => JSON.parse(JSON.stringify(parse(text)));
  const json = (v: unknown) => JSON.parse(JSON.stringify(v));

  it('notify in the head of a big file: only the head is parsed again, and the result is what the whole file holds', () => {
    const before = `model = "o3"\n\n${tables(10_000)}`;
    const current = parsed(before);
    const wanted = { notify: ['/opt/handoff/handoff', 'notify'], ...current };
    const work = tomlWork.parsedBytes;
    const r = patchToml('config.toml', before, wanted, current);
    assert.ok(r.ok);
    assert.ok(tomlWork.parsedBytes - work < 1000, String(tomlWork.parsedBytes - work));
    assert.deepEqual(whole(r.text), json(wanted));
    // Read back (the next set-up step does): what was verified, not parsed again.
    const again = tomlWork.parsedBytes;
    assert.deepEqual(json(parsed(r.text)), json(wanted));
    assert.equal(tomlWork.parsedBytes, again);
  });

  it('notify after the last line, or at the top of a long head: only the added line is parsed', () => {
    for (const before of [bigHead(5000), `${bigHead(5000)}\n[projects."/p/1"]\ntrust_level = "trusted"\n`, `\uFEFF${bigHead(5000)}\n[t]\n`]) {
      const current = parsed(before);
      const wanted = { notify: ['h', 'notify'], ...current };
      const work = tomlWork.parsedBytes;
      const r = patchToml('config.toml', before, wanted, current);
      assert.ok(r.ok);
      assert.ok(tomlWork.parsedBytes - work < 100, String(tomlWork.parsedBytes - work));
      assert.deepEqual(whole(r.text), json(wanted));
    }
  });

  it('a "[" after a line separator inside a comment is not taken for the first table', () => {
    const before = `model = "o3" # see\u2028[x]\n\n${tables(2)}`;
    const current = parsed(before);
    const wanted = { notify: ['h'], ...current };
    const r = patchToml('config.toml', before, wanted, current);
    assert.ok(r.ok);
    assert.deepEqual(whole(r.text), json(wanted));
  });

  it('a value that is not what parseTomlFile read from the text is not trusted: the whole result is parsed, and a clash refused', () => {
    const before = 'model = "o3"\n\n[notify]\nx = 1\n';
    // It says there is no notify; the file has a [notify] table, which a top-level notify would clash with.
    const claimed = { model: 'o3' };
    const work = tomlWork.parsedBytes;
    const r = patchToml('config.toml', before, { notify: ['h'], ...claimed }, claimed);
    assert.equal(r.ok, false);
    assert.ok(tomlWork.parsedBytes - work >= before.length, 'the whole result was parsed');
    // A copy of the real value is not trusted either, and still gives the right result.
    const copy = { ...parsed(`model = "o3"\n\n${tables(2)}`) };
    const text = `model = "o3"\n\n${tables(2)}`;
    const again = tomlWork.parsedBytes;
    const ok = patchToml('config.toml', text, { notify: ['h'], ...copy }, copy);
    assert.ok(ok.ok);
    assert.ok(tomlWork.parsedBytes - again >= text.length);
  });

  it('what parseTomlFile returns is frozen, so it stays what the text holds', () => {
    const v = parsed('model = "o3"\n[projects."/p"]\ntrust_level = "trusted"\n');
    assert.throws(() => { (v as Record<string, unknown>)['model'] = 'x'; });
    assert.throws(() => { ((v['projects'] as Record<string, Record<string, unknown>>)['/p']!)['trust_level'] = 'untrusted'; });
  });

  describe('a table appended at the end', () => {
    const table = '[mcp_servers.handoff]\ncommand = "h"\nargs = ["mcp"]\n';
    const ours = { command: 'h', args: ['mcp'] };

    it('to a file without that table: only the table is parsed', () => {
      const before = `model = "o3"\n\n${tables(10_000)}`;
      const current = parsed(before);
      const wanted = { ...current, mcp_servers: { handoff: ours } };
      const work = tomlWork.parsedBytes;
      const text = appendToml(before, current, table, wanted);
      assert.equal(text, `${before}\n${table}`);
      assert.ok(tomlWork.parsedBytes - work < 100, String(tomlWork.parsedBytes - work));
      assert.deepEqual(whole(text!), json(wanted));
    });

    it('beside other servers\' tables: the whole result is parsed and holds both', () => {
      const before = 'model = "o3"\n\n[mcp_servers.docs]\ncommand = "docs"\n';
      const current = parsed(before);
      const wanted = { ...current, mcp_servers: { docs: { command: 'docs' }, handoff: ours } };
      const work = tomlWork.parsedBytes;
      const text = appendToml(before, current, table, wanted);
      assert.ok(text);
      assert.ok(tomlWork.parsedBytes - work >= before.length);
      assert.deepEqual(whole(text), json(wanted));
    });

    it('that would clash with what the file has is refused: an inline mcp_servers table, a top-level key of that name', () => {
      for (const before of ['model = "o3"\nmcp_servers = { docs = { command = "docs" } }\n', 'model = "o3"\nmcp_servers = 1\n']) {
        const current = parsed(before);
        const wanted = { ...current, mcp_servers: { handoff: ours } };
        assert.equal(appendToml(before, current, table, wanted), null, before);
      }
      const before = 'model = "o3"\n';
      const current = parsed(before);
      assert.equal(appendToml(before, current, '[model]\nx = 1\n', { ...current, model: { x: 1 } }), null, 'a table where a top-level value is');
      assert.equal(appendToml(before, current, '[a]\nx = 1\n[a]\ny = 2\n', { ...current, a: { x: 1, y: 2 } }), null, 'a table twice in the added text');
    });
  });

  it('set-up of a big config.toml (notify, then the MCP server) parses the user\'s file once', () => {
    const before = `model = "o3"\n\n${tables(10_000)}`;
    const work = tomlWork.parsedBytes;
    const notify = planCodexSetup({ file: 'config.toml', text: before, argv: ['/opt/handoff/handoff', 'notify'], backupExists: false });
    assert.ok(notify.ok);
    const mcp = planCodexMcpSetup({ file: 'config.toml', text: notify.plan.after, launcher: '/opt/handoff/handoff', backupExists: true });
    assert.ok(mcp.ok);
    assert.ok(tomlWork.parsedBytes - work < before.length + 1000, String(tomlWork.parsedBytes - work));
    const after = whole(mcp.plan.after!);
    assert.deepEqual(after['notify'], ['/opt/handoff/handoff', 'notify']);
    assert.deepEqual(after['mcp_servers'], { handoff: { command: '/opt/handoff/handoff', args: ['mcp'] } });
    assert.equal(Object.keys(after['projects']).length, 10_000);
  });
});
