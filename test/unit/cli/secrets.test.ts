import * as assert from 'node:assert/strict';
import { promises as fs } from 'node:fs';
import * as path from 'node:path';
import { claudeProjectSlug } from '../../../src/core/context/discovery';
import { credentialSpans } from '../../../src/core/workflow/scrubInPlace';
import { scrubSession } from '../../../src/core/workflow/secrets';
import { sameOutsideStars } from './scrubCheck';

const MASK = '[REDACTED]';
import { fixturePath, makeTempDir } from '../helpers/fixtures';
import { tempRepos } from '../helpers/gitRepo';
import { handoff, workbenchRepo } from '../helpers/workbenchRepo';
import { fake } from '../redact/corpus';


/** A copy of a shared transcript placed where Claude Code keeps the folder's sessions, last written `ageMs` ago. */
async function placeClaude(name: string, cwd: string, ageMs: number): Promise<{ config: string; file: string; original: string }> {
  const config = await makeTempDir('handoff-claude-');
  const dir = path.join(config, 'projects', claudeProjectSlug(cwd));
  await fs.mkdir(dir, { recursive: true });
  const file = path.join(dir, `${name.replace('.jsonl', '')}-0000.jsonl`);
  const original = (await fs.readFile(fixturePath('transcripts', name), 'utf8')).split('__CWD__').join(JSON.stringify(cwd).slice(1, -1));
  await fs.writeFile(file, original, { mode: 0o600 });
  const t = new Date(Date.now() - ageMs);
  await fs.utimes(file, t, t);
  return { config, file, original };
}

describe('handoff secrets', function () {
  // Each test runs the command line a few times: room for a busy machine.
  this.timeout(120_000);
  const make = tempRepos(workbenchRepo);

  it('lists the credential the session saw, with what printed it, as text and as JSON', async () => {
    const r = make();
    const { config } = await placeClaude('claude-tasks.jsonl', r.dir, 3_600_000);
    const text = handoff(['secrets', '--dir', r.dir, '--claude-config-dir', config]);
    assert.equal(text.code, 0, text.stderr);
    assert.match(text.stdout, /^1 credential found for /);
    assert.match(text.stdout, /1\. `cd services\/sync && cat \.env` printed a Stripe live key \(PROVIDER_API_KEY\) into the agent's transcript .* line 24 \(the call at line 23\)/);
    assert.match(text.stdout, /handoff secrets --scrub/);
    const json = handoff(['secrets', '--dir', r.dir, '--claude-config-dir', config, '--json']);
    const out = JSON.parse(json.stdout) as { credentials: { detail: string }[]; places: { kind: string; lines: number[]; printedBy: string }[] };
    assert.equal(out.credentials.length, 1);
    assert.deepEqual(out.places.map((p) => [p.kind, p.lines, p.printedBy]), [['a Stripe live key (PROVIDER_API_KEY)', [24], '`cd services/sync && cat .env`']]);
  });

  it('--scrub masks the credential in place, byte for byte: every line still JSON, nothing else changed, same file and mode, no copy left', async () => {
    const r = make();
    const { config, file, original } = await placeClaude('claude-tasks.jsonl', r.dir, 3_600_000);
    const expected = JSON.parse(await fs.readFile(fixturePath('transcripts', 'claude-tasks.expected.json'), 'utf8')) as { secrets_to_flag: { value: string }[] };
    const value = expected.secrets_to_flag[0]!.value;
    const ino = (await fs.stat(file)).ino;
    const res = handoff(['secrets', '--dir', r.dir, '--claude-config-dir', config, '--scrub']);
    assert.equal(res.code, 0, res.stderr);
    assert.match(res.stdout, /masked 2 credentials in .*claude-tasks-0000\.jsonl \(line 24\)/);
    const after = await fs.readFile(file, 'utf8');
    assert.ok(!after.includes(value) && original.includes(value));
    for (const [i, l] of after.split('\n').entries()) if (l.trim()) assert.doesNotThrow(() => JSON.parse(l), `line ${i + 1}`);
    sameOutsideStars(Buffer.from(original), Buffer.from(after));
    assert.ok(after.includes('*'.repeat(value.length)), 'masked with as many stars as it has bytes');
    assert.equal((await fs.stat(file)).mode & 0o777, 0o600);
    assert.equal((await fs.stat(file)).ino, ino, 'the same file, not a new one renamed over it');
    assert.deepEqual((await fs.readdir(path.dirname(file))).filter((f) => f !== path.basename(file)), [], 'no temp or backup copy');
    // Scrubbed: nothing is left to list.
    assert.match(handoff(['secrets', '--dir', r.dir, '--claude-config-dir', config]).stdout, /^No credentials found/);
  });

  it('--scrub refuses a session written to within its quiet minute (5 s before the run), unless --force', async () => {
    const r = make();
    const { config, file, original } = await placeClaude('claude-tasks.jsonl', r.dir, 5_000);
    const res = handoff(['secrets', '--dir', r.dir, '--claude-config-dir', config, '--scrub']);
    assert.equal(res.code, 1);
    // The age it says is the file's, whatever the machine's speed: at least the 5 s it was set back, inside the minute.
    const age = Number(/not scrubbed: .*written to (\d+) s ago: the agent may still be using it/.exec(res.stdout)?.[1]);
    assert.ok(age >= 5 && age < 60, res.stdout);
    assert.equal(await fs.readFile(file, 'utf8'), original, 'untouched');
    const forced = handoff(['secrets', '--dir', r.dir, '--claude-config-dir', config, '--scrub', '--force']);
    assert.equal(forced.code, 0, forced.stdout);
    assert.notEqual(await fs.readFile(file, 'utf8'), original);
  });

  it('handoff audit --json keeps every key and every probe text, with a credential masked in the packet', () => {
    const r = make();
    const key = ['sk', 'live', fake(402, 24)].join('_');
    r.write('feedback_record.jsonl', `${JSON.stringify({ command: ['./deploy.sh'], exit_code: 1, stderr_tail: `denied for ${key}` })}\n`);
    r.commit('log');
    assert.equal(handoff(['generate', '--dir', r.dir, '--allow-dirty']).code, 0);
    const res = handoff(['audit', '--dir', r.dir, '--json']);
    assert.equal(res.code, 0, res.stderr);
    const audit = JSON.parse(res.stdout) as { probes: Record<string, string>[] };
    assert.ok(!res.stdout.includes(key.slice(8, 20)));
    assert.ok(!res.stdout.includes(MASK), `nothing in the audit is masked:\n${res.stdout}`);
    for (const p of audit.probes) assert.deepEqual(Object.keys(p).sort(), ['detail', 'fix', 'id', 'status', 'title'], JSON.stringify(p));
    const secrets = audit.probes.find((p) => p.id === 'secrets');
    assert.equal(secrets?.status, 'pass', JSON.stringify(secrets));
  });

  it('a key in an early line of a feedback log over 16 MB: the packet names the lines it did not scan, handoff secrets finds the key', () => {
    const r = make();
    const key = ['sk', 'live', fake(404, 24)].join('_');
    const green = `${JSON.stringify({ command: ['pytest', 'tests/test_a.py'], exit_code: 0, stdout_tail: `3 passed ${'.'.repeat(150)}` })}\n`;
    const n = Math.ceil((17 * 1048576) / green.length);
    r.write('feedback_record.jsonl', `${green.repeat(4)}${JSON.stringify({ command: ['./deploy.sh'], exit_code: 1, stderr_tail: `denied for ${key}` })}\n${green.repeat(n)}`);
    r.commit('a long log');
    const gen = handoff(['generate', '--dir', r.dir, '--allow-dirty']);
    assert.equal(gen.code, 0, gen.stderr);
    const first = n + 5 - Math.floor((16 * 1048576) / green.length) + 1;
    assert.match(gen.stderr, new RegExp(`feedback_record\\.jsonl:${first}: is 17 MB: its records are read from its last 16 MB \\(line ${first} on\\); the lines before are counted, not read nor scanned for credentials \\(handoff secrets scans them\\)`));
    const res = handoff(['secrets', '--dir', r.dir, '--json']);
    assert.equal(res.code, 0, res.stderr);
    const out = JSON.parse(res.stdout) as { places: { file: string; lines: number[] }[] };
    assert.deepEqual(out.places.map((p) => [path.basename(p.file), p.lines]), [['feedback_record.jsonl', [5]]]);
    assert.ok(!res.stdout.includes(key.slice(8, 20)));
  });

  it("a sub-agent's transcript beside the session is read too", async () => {
    const r = make();
    const { config, file } = await placeClaude('claude-tools.jsonl', r.dir, 3_600_000);
    const sub = path.join(path.dirname(file), 'claude-tools-0000', 'subagents');
    await fs.mkdir(sub, { recursive: true });
    const key = ['gl', 'pat-', fake(403, 20)].join('');
    await fs.writeFile(path.join(sub, 'agent-a1.jsonl'), `${JSON.stringify({ type: 'assistant', isSidechain: true, cwd: r.dir, message: { role: 'assistant', content: [{ type: 'text', text: `found GITLAB_TOKEN=${key} in ci.yml` }] } })}\n`);
    const out = JSON.parse(handoff(['secrets', '--dir', r.dir, '--claude-config-dir', config, '--json']).stdout) as { places: { kind: string; file: string; printedBy: string }[] };
    const place = out.places.find((p) => p.file.endsWith('agent-a1.jsonl'));
    assert.deepEqual(place && [place.kind, place.printedBy], ['a GitLab token (GITLAB_TOKEN)', 'assistant text']);
  });

  it('--force alone is a usage error', () => {
    const r = make();
    assert.equal(handoff(['secrets', '--dir', r.dir, '--force']).code, 2);
  });

  it('codex-2026.jsonl: the npm token masked on both lines (34, 35), the nested JSON of each line kept valid', async () => {
    const dir = await makeTempDir('handoff-codex-');
    const file = path.join(dir, 'rollout-2026-11-20T16-00-00-019f8a3d-0000-7000-8000-000000000000.jsonl');
    const original = (await fs.readFile(fixturePath('transcripts', 'codex-2026.jsonl'), 'utf8')).split('__CWD__').join('/home/dev/app');
    await fs.writeFile(file, original);
    const out = await scrubSession(file, { now: Date.now() + 120_000 });
    assert.equal(out.kind, 'scrubbed');
    assert.deepEqual(out.kind === 'scrubbed' ? out.lines : [], [34, 35]);
    const after = await fs.readFile(file, 'utf8');
    sameOutsideStars(Buffer.from(original), Buffer.from(after));
    for (const l of after.split('\n').filter((x) => x.trim())) JSON.parse(l);
  });
});

describe('credentialSpans', () => {
  it('spans the raw characters of each credential inside string values across escapes, never keys: starred, the line stays valid JSON', () => {
    const key = ['gh', 'p_', fake(401, 36)].join('');
    const line = JSON.stringify({ [`token_${'x'}`]: 1, out: `a\t"quoted"\nGITHUB_TOKEN=${key}\nnext line`, nested: JSON.stringify({ cmd: `echo ${key}` }) });
    const spans = credentialSpans(line);
    assert.equal(spans.length, 2);
    let masked = line;
    for (const s of spans) masked = masked.slice(0, s.start) + '*'.repeat(s.end - s.start) + masked.slice(s.end);
    assert.equal(masked.length, line.length);
    const back = JSON.parse(masked) as { out: string; nested: string };
    assert.equal(back.out, `a\t"quoted"\nGITHUB_TOKEN=${'*'.repeat(key.length)}\nnext line`);
    assert.deepEqual(JSON.parse(back.nested), { cmd: `echo ${'*'.repeat(key.length)}` });
    assert.deepEqual(credentialSpans(masked), [], 'a starred credential is not found again');
  });
});
