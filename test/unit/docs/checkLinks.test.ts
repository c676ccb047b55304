import * as assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { promises as fs } from 'node:fs';
import * as path from 'node:path';
import { pathToFileURL } from 'node:url';
import { makeTempDir, repoRoot } from '../helpers/fixtures';

interface Broken { file: string; line: number; target: string; reason: string }
interface Checker {
  githubSlug(heading: string): string;
  anchorsOf(markdown: string): Set<string>;
  checkLinks(root: string, files: string[]): { checked: number; broken: Broken[] };
  docFiles(root: string): string[];
}

const script = (): string => path.join(repoRoot(), 'scripts', 'check-links.mjs');
const load = async (): Promise<Checker> => (await import(pathToFileURL(script()).href)) as Checker;

async function site(files: Record<string, string>): Promise<string> {
  const root = await makeTempDir('links-');
  for (const [name, text] of Object.entries(files)) {
    await fs.mkdir(path.dirname(path.join(root, name)), { recursive: true });
    await fs.writeFile(path.join(root, name), text);
  }
  return root;
}

describe('docs link check (scripts/check-links.mjs)', function () {
  this.timeout(30_000);

  it('gives headings the ids GitHub gives them', async () => {
    const { githubSlug } = await load();
    assert.equal(githubSlug('The five checks'), 'the-five-checks');
    assert.equal(githubSlug('`context_usage.json` (any agent)'), 'context_usagejson-any-agent');
    assert.equal(githubSlug('Connect / Disconnect'), 'connect--disconnect');
    assert.equal(githubSlug('**Bold** and _emphasis_ keep snake_case'), 'bold-and-emphasis-keep-snake_case');
    assert.equal(githubSlug('See [the packet](packet.md) first'), 'see-the-packet-first');
    assert.equal(githubSlug('Déjà vu: 2 × faster!'), 'déjà-vu-2--faster');
  });

  it('collects anchors from headings (repeats numbered), setext headings and ids, not from code', async () => {
    const { anchorsOf } = await load();
    const anchors = anchorsOf([
      '# Title', '## Usage', '### Usage', 'Setext', '------', '<a id="custom"></a>',
      '```md', '## In a fence', '```', '| a | b |', '|---|---|',
    ].join('\n'));
    assert.deepEqual([...anchors].sort(), ['custom', 'setext', 'title', 'usage', 'usage-1']);
  });

  it('reports a missing file, a missing anchor and a broken image with file and line; skips external links and code', async () => {
    const { checkLinks } = await load();
    const root = await site({
      'README.md': [
        '# Top',
        'See [the guide](docs/guide.md), [its part](docs/guide.md#part-two) and [here](#top).',
        '![shot](docs/images/missing.png) and [gone](docs/gone.md)',
        '[bad anchor](docs/guide.md#part-three) [site](https://example.com/x.md) [mail](mailto:a@b.c)',
        'Code is no link: `[x](nowhere.md)`',
        '```',
        '[y](nowhere-either.md)',
        '```',
        '[spaced](docs/my%20notes.md) [line](docs/run.sh#L10) [folder](docs/)',
      ].join('\n'),
      'docs/guide.md': '# Guide\n\n## Part two\n\nBack to [the top](../README.md#top) and [self](#guide).\n',
      'docs/my notes.md': '# Notes\n',
      'docs/run.sh': 'echo hi\n',
    });
    const { checked, broken } = checkLinks(root, ['README.md', 'docs/guide.md']);
    assert.deepEqual(broken.map((b) => `${b.file}:${b.line}: ${b.target}`), [
      'README.md:3: docs/images/missing.png',
      'README.md:3: docs/gone.md',
      'README.md:4: docs/guide.md#part-three',
    ]);
    assert.match(broken[2]!.reason, /no heading #part-three in docs[/\\]guide\.md/);
    // Relative links only: 9 in the README (the external two and the ones in code are not counted), 2 in the guide.
    assert.equal(checked, 11);
  });

  it('checks README.md and every page under docs/, and fails the run on a broken link', async () => {
    const { docFiles } = await load();
    const root = await site({
      'README.md': '# Top\n[reference](docs/ref/cli.md#exit-codes)\n',
      'docs/ref/cli.md': '# CLI\n## Exit codes\n[home](../../README.md#nothing-here)\n',
      'docs/notes.txt': 'not markdown',
    });
    assert.deepEqual(docFiles(root), ['README.md', path.join('docs', 'ref', 'cli.md')]);
    const r = spawnSync(process.execPath, [script(), root], { encoding: 'utf8' });
    assert.equal(r.status, 1, r.stderr);
    assert.equal(r.stdout, 'docs/ref/cli.md:3: ../../README.md#nothing-here: no heading #nothing-here in README.md\ndocs: 1 passed, 1 failed\n');
    await fs.writeFile(path.join(root, 'docs/ref/cli.md'), '# CLI\n## Exit codes\n[home](../../README.md#top)\n');
    const ok = spawnSync(process.execPath, [script(), root], { encoding: 'utf8' });
    assert.equal(ok.status, 0, ok.stdout);
    assert.equal(ok.stdout, 'docs: 2 passed, 0 failed\n');
  });
});
