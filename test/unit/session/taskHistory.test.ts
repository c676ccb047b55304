import * as assert from 'node:assert/strict';
import { promises as fs } from 'node:fs';
import * as path from 'node:path';
import { VscodeTaskDiscovery } from '../../../src/core/context/vscodeAgents';
import { MAX_FIELD_BYTES, scanArrayObjects } from '../../../src/core/session/jsonStream';
import { makeTempDir } from '../helpers/fixtures';

const KEYS = new Set(['id', 'ts', 'cwdOnTaskInitialization', 'shadowGitConfigWorkTree']);

/** What a whole parse gives: each object element's wanted keys whose value is a string (not over the cap) or a number. */
function wholeParse(text: string): Record<string, string | number>[] {
  const out: Record<string, string | number>[] = [];
  for (const v of JSON.parse(text) as unknown[]) {
    if (!v || typeof v !== 'object' || Array.isArray(v)) continue;
    const f: Record<string, string | number> = {};
    for (const [k, x] of Object.entries(v as Record<string, unknown>)) {
      if (KEYS.has(k) && (typeof x === 'number' || (typeof x === 'string' && Buffer.byteLength(JSON.stringify(x)) - 2 <= MAX_FIELD_BYTES))) f[k] = x;
    }
    out.push(f);
  }
  return out;
}

async function scan(text: string, chunk?: number): Promise<{ ok: boolean; got: Record<string, string | number>[] }> {
  const dir = await makeTempDir('handoff-history-');
  const file = path.join(dir, 'taskHistory.json');
  await fs.writeFile(file, text);
  const handle = await fs.open(file, 'r');
  try {
    const got: Record<string, string | number>[] = [];
    const ok = await scanArrayObjects(handle, KEYS, (f) => got.push({ ...f }), chunk);
    return { ok, got };
  } finally {
    await handle.close();
  }
}

/** History entries whose text holds what a forward scan could stumble on, and fields of the wrong type. */
function trickyHistory(n: number): unknown[] {
  const texts = ['plain', 'a "quoted" word', 'ends with a backslash \\', '\\"', '], {"id": "fake", "ts": 1}', 'line\nbreak', 'ünïcödé ✓ 😀', '', ',,,', '\u0001\u001f'];
  return Array.from({ length: n }, (_, i) => {
    const t = texts[i % texts.length]!;
    if (i % 17 === 5) return i % 2 ? null : [i, { id: 'nested-not-an-entry' }];
    const e: Record<string, unknown> = {
      id: i % 13 === 3 ? i : `17644${i}${t.length ? '' : '\\'}`,
      ts: i % 11 === 4 ? `${i}` : i % 7 === 2 ? -1e19 : i % 19 === 1 ? 1.5e400 : 1764400000000 + i,
      task: `${t} #${i} ${'x'.repeat(i % 40)}`,
      nested: { id: 'deeper', cwdOnTaskInitialization: '/not/this', list: [t, { ts: 3 }] },
    };
    if (i % 5 !== 1) e['cwdOnTaskInitialization'] = i % 9 === 0 ? { path: '/obj' } : `/home/dev/${t}/app-${i % 4}`;
    if (i % 3 === 0) e['shadowGitConfigWorkTree'] = i % 6 ? null : `C:\\\\work\\"${t}`;
    return e;
  });
}

describe('Cline task history: a few fields of each entry, streamed', () => {
  for (const [name, indent] of [['compact', undefined], ['pretty-printed', 2]] as const) {
    it(`gives each entry's id, time and folder exactly as a whole parse, at any chunk boundary (${name})`, async () => {
      const text = JSON.stringify(trickyHistory(120), null, indent);
      const expected = wholeParse(text);
      assert.ok(expected.some((e) => typeof e['cwdOnTaskInitialization'] === 'string') && expected.some((e) => !('cwdOnTaskInitialization' in e)) && expected.some((e) => typeof e['id'] === 'number'));
      for (const chunk of [1, 2, 3, 5, 64, 1000, undefined]) {
        const { ok, got } = await scan(text, chunk);
        assert.equal(ok, true, `chunk ${chunk}`);
        assert.deepEqual(got, expected, `chunk ${chunk}`);
      }
    });
  }

  it('keeps a repeated key\'s last value, reads escaped key names, leaves out a value too long to be a folder', async () => {
    const long = 'p'.repeat(MAX_FIELD_BYTES + 1);
    const text = `[{"id":"a","id":"b","i\\u0064x":"no","\\u0074s":5,"cwdOnTaskInitialization":"/x","cwdOnTaskInitialization":7},{"id":"c","shadowGitConfigWorkTree":"${long}"}]`;
    for (const chunk of [3, 4096]) {
      const { ok, got } = await scan(text, chunk);
      assert.equal(ok, true);
      assert.deepEqual(got, [{ id: 'b', ts: 5, cwdOnTaskInitialization: 7 }, { id: 'c' }]);
    }
  });

  it('says (false) when the file is not one array, is cut short, or has more after it', async () => {
    const text = JSON.stringify(trickyHistory(30));
    for (const bad of ['{"id": "a"}', text.slice(0, -30), text.slice(0, -1), `${text} []`, `${text.slice(0, -1)},@]`, '"[]"', '']) {
      assert.equal((await scan(bad, 7)).ok, false, bad.slice(-40));
    }
    assert.equal((await scan(`\ufeff  ${text}\n`)).ok, true);
  });
});

describe('Cline task discovery over a big task history', () => {
  /** A Cline storage whose task folders have no api history: their folder is known from the history alone. */
  async function storage(extra: number) {
    const folder = await makeTempDir('handoff-ws-');
    const root = await makeTempDir('handoff-storage-');
    const cline = path.join(root, 'saoudrizwan.claude-dev');
    const now = Date.now();
    const mine = [
      { id: `${now - 5000}`, ts: now - 5000, task: 'Older task', cwdOnTaskInitialization: folder },
      { id: `${now - 1000}`, ts: now - 1000, task: 'Fix the "date" test \\ now', cwdOnTaskInitialization: path.join(folder, 'sub') },
      { id: `${now - 3000}`, ts: now - 3000, task: 'Shadow only', shadowGitConfigWorkTree: folder },
    ];
    const others = Array.from({ length: extra }, (_, i) => ({ id: `${now - 10_000 - i}`, ts: now - 10_000 - i, task: `Other ${'"text\\" '.repeat(400)}`, cwdOnTaskInitialization: `/elsewhere/${i % 7}`, size: 1234 }));
    const history = [others.slice(0, extra >> 1), mine, { id: `${now}`, ts: now, task: 'not mine', cwdOnTaskInitialization: `${folder}-2` }, others.slice(extra >> 1)].flat();
    for (const e of history) {
      await fs.mkdir(path.join(cline, 'tasks', e.id), { recursive: true });
      await fs.writeFile(path.join(cline, 'tasks', e.id, 'ui_messages.json'), '[]');
      // Last written at the task's own time: the history's times decide which task is newest.
      await fs.utimes(path.join(cline, 'tasks', e.id, 'ui_messages.json'), e.ts / 1000, e.ts / 1000);
    }
    await fs.mkdir(path.join(cline, 'state'), { recursive: true });
    const file = path.join(cline, 'state', 'taskHistory.json');
    const text = JSON.stringify(history);
    await fs.writeFile(file, text);
    return { folder, root, file, text, mine };
  }

  it('finds the same tasks of the folder as a whole parse of the history, and reads it again only when it changed', async () => {
    const { folder, root, file, text, mine } = await storage(40);
    const d = new VscodeTaskDiscovery(folder, { globalStorageRoots: [root] });
    const all = await d.all(['cline']);
    // Expected from the whole parse: the entries whose folder (first field given) is this one or inside it.
    const parsed = JSON.parse(text) as { id: string; cwdOnTaskInitialization?: string; shadowGitConfigWorkTree?: string }[];
    const want = parsed.filter((e) => {
      const cwd = e.cwdOnTaskInitialization ?? e.shadowGitConfigWorkTree ?? '';
      return cwd === folder || cwd.startsWith(`${folder}${path.sep}`);
    });
    assert.deepEqual(all.map((c) => c.sessionId).sort(), want.map((e) => e.id).sort());
    assert.deepEqual(all.map((c) => c.sessionId).sort(), mine.map((e) => e.id).sort());
    assert.equal((await d.find(['cline']))[0]?.sessionId, mine[1]!.id);
    assert.equal((await d.find(['cline']))[0]?.cwd, path.join(folder, 'sub'));
    // Half-written: the last complete version stands.
    await fs.writeFile(file, text.slice(0, text.length >> 1));
    assert.equal((await d.find(['cline']))[0]?.sessionId, mine[1]!.id);
    // Rewritten without the newest task: read again.
    await fs.writeFile(file, JSON.stringify(parsed.filter((e) => e.id !== mine[1]!.id)));
    assert.equal((await d.find(['cline']))[0]?.sessionId, mine[2]!.id);
  });

  it('two looks at once (the meter and the packet\'s reader) read an unchanged history once', async () => {
    const { folder, root, file, mine } = await storage(600);
    const size = (await fs.stat(file)).size;
    const probe = await fs.open(file, 'r');
    const proto = Object.getPrototypeOf(probe) as { read: (...a: unknown[]) => Promise<{ bytesRead: number }> };
    await probe.close();
    const read = proto.read;
    let bytes = 0;
    proto.read = async function (this: unknown, ...a: unknown[]) {
      const r = await read.apply(this, a);
      bytes += r.bytesRead;
      return r;
    };
    let found;
    try {
      found = await Promise.all([0, 1, 2].map(() => new VscodeTaskDiscovery(folder, { globalStorageRoots: [root] }).find(['cline'])));
      found.push(await new VscodeTaskDiscovery(folder, { globalStorageRoots: [root] }).find(['cline']));
    } finally {
      proto.read = read;
    }
    assert.ok(size > 1_000_000);
    assert.deepEqual(found.map((f) => f[0]?.sessionId), Array(4).fill(mine[1]!.id));
    assert.ok(bytes >= size && bytes < size * 1.5, `${bytes} bytes read for a history of ${size}`);
  });

  it('never parses the history whole: no JSON text over 1 MB is parsed while a 24 MB history is read', async function () {
    this.timeout(60_000);
    const { folder, root, text, mine } = await storage(0);
    // Padding entries of other folders, with task text that is mostly quotes and backslashes.
    const file = path.join(root, 'saoudrizwan.claude-dev', 'state', 'taskHistory.json');
    const pad = JSON.stringify({ id: 'pad', ts: 1, task: `"\\${'y'.repeat(200_000)}`, cwdOnTaskInitialization: '/elsewhere' });
    const copies = Math.ceil((24 * 1048576) / pad.length);
    await fs.writeFile(file, `[${Array(copies).fill(pad).join(',')},${text.slice(1)}`);
    assert.ok((await fs.stat(file)).size > 24 * 1048576);
    const parse = JSON.parse;
    let largest = 0;
    JSON.parse = ((s: string, r?: Parameters<typeof JSON.parse>[1]) => {
      largest = Math.max(largest, s.length);
      return parse(s, r);
    }) as typeof JSON.parse;
    let found;
    try {
      found = await new VscodeTaskDiscovery(folder, { globalStorageRoots: [root] }).find(['cline']);
    } finally {
      JSON.parse = parse;
    }
    assert.equal(found[0]?.sessionId, mine[1]!.id);
    assert.ok(largest < 1048576, `a JSON text of ${largest} characters was parsed`);
  });
});
