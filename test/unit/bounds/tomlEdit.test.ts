import * as assert from 'node:assert/strict';
import { parseTomlFile, patchToml, tomlWork } from '../../../src/core/setup/toml';

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
