import * as assert from 'node:assert/strict';
import { manifestsWritten } from '../../../src/core/packet/manifests';

describe('the manifest and lock files a package-manager command writes', () => {
  const known = new Set([
    'package.json', 'package-lock.json', 'pnpm-lock.yaml', 'yarn.lock', 'bun.lockb', 'Cargo.toml', 'Cargo.lock', 'go.mod', 'go.sum',
    'pyproject.toml', 'poetry.lock', 'uv.lock', 'web/package.json', 'web/package-lock.json', 'Gemfile', 'Gemfile.lock',
  ]);
  const cases: [string, string[]][] = [
    ['npm install moment@3.0.0', ['package.json', 'package-lock.json']],
    ['npm i -D vitest', ['package.json', 'package-lock.json']],
    ['npm uninstall left-pad', ['package.json', 'package-lock.json']],
    ['pnpm add zod', ['package.json', 'pnpm-lock.yaml']],
    ['yarn', ['package.json', 'yarn.lock']],
    ['yarn add react', ['package.json', 'yarn.lock']],
    ['bun add hono', ['package.json', 'bun.lockb']],
    ['cargo add serde --features derive', ['Cargo.toml', 'Cargo.lock']],
    ['go get github.com/x/y@v1.2.0', ['go.mod', 'go.sum']],
    ['go mod tidy', ['go.mod', 'go.sum']],
    ['poetry add httpx', ['pyproject.toml', 'poetry.lock']],
    ['uv add httpx', ['pyproject.toml', 'uv.lock']],
    ['bundle install', ['Gemfile', 'Gemfile.lock']],
    ['cd web && npm install', ['web/package.json', 'web/package-lock.json']],
    ['npm --prefix web install dayjs', ['web/package.json', 'web/package-lock.json']],
    ['CI=1 npm install', ['package.json', 'package-lock.json']],
  ];
  for (const [command, want] of cases) {
    it(command, () => assert.deepEqual(manifestsWritten(command, known), want));
  }

  it('names only files that exist, and nothing for other commands', () => {
    assert.deepEqual(manifestsWritten('npm install', new Set(['package.json'])), ['package.json']);
    assert.deepEqual(manifestsWritten('cd api && cargo add serde', known), []);
    for (const c of ['npm test', 'npm run install-deps', 'npm ci --help', 'git add package.json', 'cargo build', 'go test ./...', 'pip install requests', 'echo npm install']) {
      assert.deepEqual(manifestsWritten(c, known), [], c);
    }
  });
});
