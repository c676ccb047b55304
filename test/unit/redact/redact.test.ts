import * as assert from 'node:assert/strict';
import { detectSecrets, redact, redactArgv, redactDeep, redactedJson } from '../../../src/core/redact';
import { libraryHits, libraryRuleIds } from '../../../src/core/redact/library';
import { entropy, OWN_RULE_IDS, ruleHits } from '../../../src/core/redact/rules';
import { fake, fragmentsIn, LOOKALIKES, SECRETS } from './corpus';


describe('redaction corpus', () => {
  it('has at least 60 credential shapes and 60 look-alikes', () => {
    assert.ok(SECRETS.length >= 60, `${SECRETS.length} secrets`);
    assert.ok(LOOKALIKES.length >= 60, `${LOOKALIKES.length} look-alikes`);
    for (const c of SECRETS) assert.ok(c.encoded ? fragmentsIn(c.text, c.secret).length > 0 : c.text.includes(c.secret), c.name);
  });

  for (const c of SECRETS) {
    it(`masks ${c.name}`, () => {
      const out = redact(c.text);
      assert.deepEqual(fragmentsIn(out, c.secret), [], out);
      assert.ok(out.includes('[REDACTED]'), out);
      if (c.keep) assert.ok(out.includes(c.keep), `kept context "${c.keep}": ${out}`);
      assert.equal(redact(out), out, 'idempotent');
      assert.deepEqual(detectSecrets(out), [], 'nothing left to find');
      const at = c.encoded ? -1 : c.text.indexOf(c.secret);
      const hit = detectSecrets(c.text).find((h) => at === -1 || (h.start <= at && h.end > at));
      assert.ok(hit, 'a hit covers the secret');
      assert.match(hit.label, /^an? /, 'the label names a kind');
    });
  }

  it('leaves every look-alike unchanged (no false positive)', () => {
    const changed = LOOKALIKES.filter((t) => redact(t) !== t || detectSecrets(t).length > 0);
    assert.deepEqual(changed, []);
  });
});

/**
 * Each rule with one text it must find and one near miss it must not: a rule that is removed or
 * loosened fails here, whatever the other rules do.
 */
const B64 = 'ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789';
const HEX = '0123456789abcdef';
const RULE_CASES: Record<string, [positive: string, negative: string]> = {
  stripe: [`k ${'sk_'}live_${fake(1, 24)}`, `k ${'sk_'}live_short`],
  'stripe-webhook': [`${'whsec_'}${fake(2, 32)}`, `${'whsec_'}${fake(2, 10)}`],
  openai: [`${'sk-'}proj-${fake(3, 40)}`, `${'risk-'}${fake(3, 40)}`],
  github: [`${'ghp_'}${fake(4, 36)}`, `${'ghx_'}${fake(4, 36)}`],
  'github-pat': [`${'github_pat_'}${fake(5, 82)}`, `${'github_pat_'}short`],
  gitlab: [`${'glpat-'}${fake(6, 20)}`, `${'glpat-'}${fake(6, 8)}`],
  'slack-token': [`${'xoxb-'}${fake(7, 30)}`, `${'xoxz-'}${fake(7, 30)}`],
  'slack-webhook': [`https://hooks.slack.com/services/${fake(8, 30)}`, 'https://hooks.slack.com/help'],
  'discord-webhook': [`https://discord.com/api/webhooks/123456789/${fake(9, 60)}`, 'https://discord.com/api/webhooks/new'],
  'discord-bot': [`${'M'}${fake(10, 23)}.${fake(11, 6)}.${fake(12, 38)}`, `${'M'}${'a'.repeat(23)}.${'b'.repeat(6)}.${'c'.repeat(38)}`],
  'telegram-bot': [`bot1234567890:${'AA'}${fake(13, 33)}`, `bot1234567890:BB${fake(13, 33)}`],
  'aws-access-key': [`${'AKIA'}${fake(14, 16, 'ABCDEFGHIJKLMNOPQRSTUVWXYZ234567')}`, `${'AKIA'}${fake(14, 12, 'ABCDEFGHIJKLMNOPQRSTUVWXYZ')}`],
  'google-api-key': [`${'AIza'}${fake(15, 35)}`, `${'AIza'}${fake(15, 20)}`],
  huggingface: [`${'hf_'}${fake(16, 34)}`, `${'hf_'}${fake(16, 10)}`],
  npm: [`${'npm_'}${fake(17, 36)}`, `${'npm_'}${fake(17, 20)}`],
  pypi: [`${'pypi-'}AgEIcHlwaS5vcmc${fake(18, 60)}`, 'pypi-simple index'],
  sendgrid: [`${'SG.'}${fake(19, 22)}.${fake(20, 43)}`, 'SG.short.parts'],
  twilio: [`${'SK'}${fake(21, 32, HEX)}`, `SK${'g'.repeat(32)}`],
  jwt: [`${'eyJ'}hbGciOiJIUzI1NiJ9.${'eyJ'}zdWIiOiIxMjM0In0.${fake(22, 30)}`, 'eyJhbGciOiJIUzI1NiJ9 only a header'],
  'azure-storage-key': [`AccountKey=${fake(23, 86, B64)}==`, 'AccountKey=short'],
  'azure-sas': [`?sv=1&sig=${fake(24, 43, B64)}%3D`, '?sig=abc'],
  digitalocean: [`${'dop_v1_'}${fake(25, 64, HEX)}`, `${'dop_v1_'}${fake(25, 20, HEX)}`],
  shopify: [`${'shpat_'}${fake(26, 32, HEX)}`, `${'shpat_'}${fake(26, 32, 'ghijklmnop')}`],
  mailgun: [`${'key-'}${fake(27, 32, HEX)}`, `${'key-'}${fake(27, 10, HEX)}`],
  mailchimp: [`${fake(28, 32, HEX)}-us12`, `${fake(28, 32, HEX)}-eu12`],
  square: [`${'sq0atp-'}${fake(29, 22)}`, `${'sq0atp-'}abc`],
  newrelic: [`${'NRAK-'}${fake(30, 27, 'ABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789')}`, 'NRAK-SHORT'],
  postman: [`${'PMAK-'}${fake(31, 24, HEX)}-${fake(32, 34, HEX)}`, `PMAK-${fake(31, 10, HEX)}`],
  databricks: [`${'dapi'}${fake(33, 32, HEX)}`, `dapi${fake(33, 10, HEX)}`],
  vault: [`${'hvs.'}${fake(34, 90)}`, 'hvs.short'],
  linear: [`${'lin_api_'}${fake(35, 40)}`, `lin_api_${fake(35, 10)}`],
  doppler: [`${'dp.pt.'}${fake(36, 43)}`, 'dp.pt.short'],
  age: [`${'AGE-SECRET-KEY-1'}${fake(37, 58, 'QPZRY9X8GF2TVDW0S3JN54KHCE6MUA7L')}`, 'AGE-SECRET-KEY-1 missing'],
  grafana: [`${'glsa_'}${fake(38, 32)}_${fake(39, 8, HEX)}`, 'glsa_short_1234'],
  sentry: [`${'sntrys_'}${fake(40, 60)}`, 'sntrys_short'],
  'gcp-oauth': [`${'GOCSPX-'}${fake(41, 28)}`, 'GOCSPX-short'],
  atlassian: [`${'ATATT3'}${fake(42, 183)}`, `ATATT3${fake(42, 20)}`],
  'key-value': ['DB_PASSWORD=hunter2hunter', 'DB_PASSWORD_FILE=/run/secrets/db'],
  'url-credentials': ['mysql://root:s3cr3tpw@db/app', 'mysql://root@db/app'],
  'authorization-header': ['Authorization: Negotiate YIIabc123', 'Authorization header is missing'],
  'auth-scheme': [`Bearer ${fake(43, 30)}`, 'Bearer of bad news'],
  'private-key': [`-----BEGIN RSA PRIVATE KEY-----\n${fake(44, 64, B64)}`, '-----BEGIN RSA PRIVATE KEY-----\n-----END RSA PRIVATE KEY-----'],
  'keyword-entropy': [`using token ${fake(45, 32)}`, 'using token tests/unit/token_refresh.py'],
  firebase: [`key=${'AA'}AA${fake(46, 7)}:${'APA'}91b${fake(47, 134)}`, `AAAA${fake(46, 7)}:short`],
  'teams-webhook': [`https://x.webhook.office.com/webhookb2/${fake(48, 36)}@${fake(49, 36)}/IncomingWebhook/${fake(50, 32)}`, 'https://x.webhook.office.com/webhookb2/'],
  'url-token': [`https://${fake(51, 40)}@github.com/o/r`, 'https://user@github.com/o/r'],
  'putty-private-key': [`Private-Lines: 1\n${fake(52, 64, B64)}`, 'Private-Lines: 1'],
  'command-line-password': ['sshpass -p hunter2 ssh host', 'mysql -u root -p'],
  'push-url-key': [`curl https://api.day.app/${fake(53, 22)}/hi`, 'curl https://api.day.app/'],
  'sudo-password': [`echo '${fake(54, 10)}' | sudo -S true`, 'echo "$PW" | sudo -S true'],
  'chpasswd-password': [`echo "root:${fake(55, 10)}" | chpasswd`, 'echo "root:$PW" | chpasswd'],
  'passwd-password': [`echo -e "${fake(56, 10)}\\n${fake(56, 10)}" | passwd`, 'echo -e "$PW\\n$PW" | passwd'],
  'wifi-passphrase': [`nmcli dev wifi connect Home password ${fake(57, 10)}`, 'nmcli dev wifi connect Home password "$PW"'],
  'askpass-password': [`cat > askpass.sh <<EOF\n#!/bin/sh\necho '${fake(58, 10)}'\nEOF`, 'cat > askpass.sh <<EOF\n#!/bin/sh\necho "$PW"\nEOF'],
  'expect-password': [`expect "Password:"\nsend "${fake(59, 10)}\\r"`, 'expect "Password:"\nsend "$env(PW)\\r"'],
  'prose-password': [`the sudo password is ${fake(60, 8, 'abcdefgh')}42`, 'the password is required'],
};

describe('redaction rules', () => {
  it('every rule has a positive and a negative case', () => {
    assert.deepEqual(OWN_RULE_IDS.filter((id) => !RULE_CASES[id]), []);
  });

  for (const id of OWN_RULE_IDS) {
    it(`rule ${id} finds its shape and not a near miss`, () => {
      const [pos, neg] = RULE_CASES[id] ?? ['', ''];
      assert.ok(ruleHits(pos).some((h) => h.rule === id), `${id} finds ${pos}`);
      assert.ok(!ruleHits(neg).some((h) => h.rule === id), `${id} leaves ${neg}`);
    });
  }

  it('labels Stripe keys by mode', () => {
    assert.equal(detectSecrets(`${'sk_'}live_${fake(1, 24)}`)[0]?.label, 'a Stripe live key');
    assert.equal(detectSecrets(`${'sk_'}test_${fake(1, 24)}`)[0]?.label, 'a Stripe test key');
  });

  it('masks the value and keeps the key, in every spelling of key = value', () => {
    assert.equal(redact('export API_KEY="abc def"'), 'export API_KEY="[REDACTED]"');
    assert.equal(redact("{'password': 'x1y2z3', 'user': 'u'}"), "{'password': '[REDACTED]', 'user': 'u'}");
    assert.equal(redact('mysql --password hunter2 -u root'), 'mysql --password [REDACTED] -u root');
    assert.equal(redact('secret: s3cr3t. Next'), 'secret: [REDACTED]. Next');
    assert.equal(redact("psql '--password=a b' x"), "psql '--password=[REDACTED] b' x");
    assert.equal(redact("run 'it'\\''s' --token 'p'\\''w' end"), "run 'it'\\''s' --token '[REDACTED]' end");
  });

  it('does not treat scopes, comparisons, member paths, calls or placeholders as values', () => {
    for (const s of ['a.py::test_token: x', 'token == other', 'token = cfg.api.token', 'password = read_password()', 'password: <set me>', 'token=${TOKEN}']) {
      assert.equal(redact(s), s);
    }
  });

  it('a mask glued to a value does not shield it', () => {
    assert.equal(redact('password=[REDACTED]hunter2'), 'password=[REDACTED][REDACTED]');
  });

  it('entropy separates random values from words', () => {
    assert.ok(entropy(fake(1, 32)) > 4);
    assert.ok(entropy('aaaaaaaaaaaaaaaa') === 0);
  });
});

describe('the maintained rule set (secretlint)', () => {
  it('drives the recommended preset synchronously, without the comment filter', () => {
    const ids = libraryRuleIds();
    assert.ok(ids.length >= 20, ids.join(', '));
    assert.ok(ids.includes('secretlint/aws'));
    assert.ok(!ids.includes('secretlint/filter-comments'));
  });

  it('reports ranges the redaction masks', () => {
    const key = fake(24, 40, B64);
    const text = `aws_secret_access_key = ${key}`;
    const hits = libraryHits(text);
    assert.ok(hits.some((h) => h.rule === 'secretlint/aws' && text.slice(h.start, h.end).includes(key)), JSON.stringify(hits));
  });

  it('a secretlint-disable comment in a log does not switch redaction off', () => {
    const token = `${'ghp_'}${fake(4, 36)}`;
    const out = redact(`// secretlint-disable\n${token}\n// secretlint-enable`);
    assert.ok(!out.includes(token), out);
  });

  it('narrows a connection string to its password, keeping the host', () => {
    assert.equal(redact('postgres://app:s3cr3tpw@db.internal:5432/app'), 'postgres://app:[REDACTED]@db.internal:5432/app');
    assert.equal(detectSecrets('postgres://app:s3cr3tpw@db.internal:5432/app')[0]?.label, 'a database password');
  });
});

describe('redactDeep, redactArgv, redactedJson', () => {
  it('an argv is read as one command line, each element masked in place', () => {
    assert.deepEqual(redactArgv(['mysql', '--password', 'hunter2', '-u', 'root']), ['mysql', '--password', '[REDACTED]', '-u', 'root']);
    assert.deepEqual(redactArgv(['curl', '-H', 'Authorization: Bearer abcdef123456']), ['curl', '-H', 'Authorization: Bearer [REDACTED]']);
    assert.deepEqual(redactArgv(['ls', '-la']), ['ls', '-la']);
  });

  it('reaches nested strings and object keys, keeps structure', () => {
    const token = `${'ghp_'}${fake(4, 36)}`;
    const v = redactDeep({ a: [`x ${token}`], b: { c: 'password=p4ss', n: 3, [token]: true }, argv: ['--token', 'abc123'] });
    assert.deepEqual(v, { a: ['x [REDACTED]'], b: { c: 'password=[REDACTED]', n: 3, '[REDACTED]': true }, argv: ['--token', '[REDACTED]'] });
  });

  it('redactedJson is valid JSON with every string redacted', () => {
    const text = redactedJson({ cmd: 'deploy --token=abc123', pem: `-----BEGIN PRIVATE KEY-----\n${fake(1, 64, B64)}` }, 2);
    const back = JSON.parse(text) as { cmd: string; pem: string };
    assert.equal(back.cmd, 'deploy --token=[REDACTED]');
    assert.equal(back.pem, '-----BEGIN PRIVATE KEY-----[REDACTED]');
  });
});
