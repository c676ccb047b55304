import * as assert from 'node:assert/strict';
import { detectSecrets, redact } from '../../../src/core/redact';
import { fake } from './corpus';

/**
 * The credential families a security audit found leaking (tokens as a URL's user, passwords holding
 * `@` or `/`, any Authorization scheme, PuTTY keys, Firebase server keys, Teams webhooks, passwords on
 * command lines, values cut by a cap, a base64 block before an error line): each masked exactly, each
 * look-alike left alone. Values are assembled at run time: no literal here is a credential.
 */

const HEX = '0123456789abcdef';
const B64 = 'ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/';
const j = (...parts: string[]): string => parts.join('');

/** `text` with exactly `secrets` masked (in order), found as `label` when given. */
function masks(text: string, secrets: string[], label?: string): void {
  const hits = detectSecrets(text);
  assert.deepEqual(hits.map((h) => text.slice(h.start, h.end)), secrets, text);
  if (label) assert.ok(hits.every((h) => h.label === label), `${text}: ${hits.map((h) => h.label).join(', ')}`);
  let expected = text;
  for (const s of secrets) expected = expected.replace(s, '[REDACTED]');
  assert.equal(redact(text), expected);
  assert.equal(redact(redact(text)), redact(text), 'idempotent');
}

const untouched = (text: string): void => assert.equal(redact(text), text);

describe('credential families: URLs', () => {
  it("a token given as a URL's user name is masked, the host and path kept", () => {
    const hex = fake(1, 40, HEX);
    masks(`git clone https://${hex}@github.com/o/r.git`, [hex], 'a token in a URL');
    const opaque = fake(2, 28);
    masks(`remote: https://${opaque}@git.example.com/r`, [opaque], 'a token in a URL');
  });

  it('a plain user name, an e-mail-like user or a short one is no token', () => {
    for (const t of ['https://user@github.com/o/r', 'https://jane.doe@gitlab.example.com/g/p', 'ssh://git@github.com/o/r.git', 'https://deploy-bot-account@host/x']) untouched(t);
  });

  it('a password holding `@` or `/` is masked to the last `@` before the host', () => {
    masks('postgres://admin:p@ssw0rd9@db.example.com:5432/app', ['p@ssw0rd9'], 'a password in a URL');
    masks('https://deploy:s3c/r3t@git.example.com/r.git', ['s3c/r3t']);
    masks('redis://:a@b/c9d@cache:6379/0', ['a@b/c9d']);
  });

  it("a path's `/@scope` or a later e-mail in the query does not stretch the password", () => {
    masks('https://u:pw9x@registry.example/@scope/pkg', ['pw9x']);
    masks('see https://u:pw9x@host/p?mail=a@b.example now', ['pw9x']);
  });
});

describe('credential families: Authorization schemes', () => {
  it('the token after any scheme word is masked, the scheme kept', () => {
    const ssws = j('00', fake(3, 40));
    masks(`Authorization: SSWS ${ssws}`, [ssws]);
    const deepl = j(fake(4, 8, HEX), '-', fake(5, 4, HEX), '-', fake(6, 4, HEX), '-', fake(7, 4, HEX), '-', fake(8, 12, HEX), ':fx');
    masks(`-H 'Authorization: DeepL-Auth-Key ${deepl}'`, [deepl]);
    const other = fake(9, 30);
    masks(`{"Authorization": "ApiKey ${other}"}`, [other]);
  });

  it('prose naming a scheme, and a placeholder after it, are left', () => {
    for (const t of ['Authorization: SSWS followed by the token', 'The Authorization: DeepL-Auth-Key header', 'Authorization: Bearer $TOKEN', 'Authorization: SSWS ${OKTA_TOKEN}']) untouched(t);
  });
});

describe('credential families: key files, server keys, webhooks', () => {
  it("a PuTTY key's Private-Lines block is masked whole; the public lines stay", () => {
    const pub = fake(10, 64, B64);
    const priv = j(fake(11, 64, B64), '\n', fake(12, 20, B64));
    const text = `PuTTY-User-Key-File-3: ssh-ed25519\nEncryption: none\nPublic-Lines: 1\n${pub}\nPrivate-Lines: 2\n${priv}\nPrivate-MAC: ${fake(13, 64, HEX)}`;
    masks(text, [priv], 'a PuTTY private key');
    assert.ok(redact(text).includes(pub));
    // The same file inside a JSON string (escaped line breaks).
    const esc = text.split('\n').join('\\n');
    assert.ok(!redact(esc).includes(priv.split('\n').join('\\n').slice(0, 16)), redact(esc));
  });

  it('a Firebase Cloud Messaging server key is masked whole; an AAAA record is not one', () => {
    const key = j('AA', 'AA', fake(14, 7), ':', 'APA', '91b', fake(15, 134));
    masks(`sent ${key} upstream`, [key], 'a Firebase Cloud Messaging server key');
    untouched('AAAA record for api.example.com points to 2001:db8::1');
  });

  it("a Teams webhook's path is masked, the host kept; the bare host is no secret", () => {
    const path = j(fake(16, 36, HEX), '@', fake(17, 36, HEX), '/IncomingWebhook/', fake(18, 32, HEX), '/', fake(19, 36, HEX));
    masks(`POST https://contoso.webhook.office.com/webhookb2/${path}`, [path], 'a Microsoft Teams webhook URL');
    untouched('add the webhook.office.com/webhookb2/ URL in the connector');
  });
});

describe('credential families: passwords on a command line', () => {
  const label = 'a password on a command line';

  it('curl and httpie user:password: the password after the first colon', () => {
    masks('curl -u admin:pa55-word https://x', ['pa55-word'], label);
    masks('curl --user=deploy:pa55-word https://x', ['pa55-word'], label);
    masks('curl -uadmin:pa55-word https://x', ['pa55-word'], label);
    masks('http -a admin:pa55-word GET https://x', ['pa55-word'], label);
  });

  it('mysql-family and sshpass -p, glued, spaced or quoted; docker login, redis-cli, ldap, smbclient, openssl', () => {
    masks('mysql -u root -pPa55word app', ['Pa55word'], label);
    masks('mysql -u root -p Pa55word app', ['Pa55word'], label);
    masks("mysqldump -uroot -p'Pa55 word' app", ['Pa55'], label);
    masks('sshpass -p Pa55word ssh host', ['Pa55word'], label);
    masks('sshpass -pPa55word ssh host', ['Pa55word'], label);
    masks('["sshpass", "-p", "Pa55word", "ssh"]', ['Pa55word'], label);
    masks('docker login -u ci -p Pa55word registry.example', ['Pa55word'], label);
    masks('redis-cli -h cache -a Pa55word ping', ['Pa55word'], label);
    masks('ldapsearch -x -w Pa55word -b dc=x', ['Pa55word'], label);
    masks('smbclient //fs/share -U admin%Pa55word', ['Pa55word'], label);
    masks('openssl rsa -in k.pem -passin pass:Pa55word -out p.pem', ['Pa55word'], label);
  });

  it('well-known password variables before a command', () => {
    for (const v of ['PGPASSWORD', 'MYSQL_PWD', 'SSHPASS', 'REDISCLI_AUTH', 'RESTIC_PASSWORD', 'BORG_PASSPHRASE']) masks(`${v}=Pa55word cmd --flag`, ['Pa55word']);
  });

  it('a flag with no value, another flag after it, or a placeholder is left', () => {
    for (const t of [
      'mysql -u root -p',
      'mysql -u root -p -h db app',
      'mysql -u root -p < dump.sql',
      'curl -u "$USER:$TOKEN" https://x',
      'curl -u admin: https://x',
      'curl -u admin https://x',
      'mkdir -p build/out',
      'git push -u origin main',
      'sshpass -f pw.txt ssh host',
      'redis-cli -a "$REDIS_PASSWORD" ping',
      'PGPASSFILE=~/.pgpass psql',
    ]) untouched(t);
  });
});

describe('credential families: values a cap cut, base64 before an error', () => {
  it('a value cut with an ellipsis is masked with what is left of it; a stand-in stays', () => {
    masks('DB_PASSWORD=hunter2hun…', ['hunter2hun…']);
    const token = j('ya29.', fake(20, 40));
    masks(`X-Goog-Token: ${token}…`, [`${token}…`]);
    for (const t of ['OPENAI_API_KEY=sk-…', 'token: ghp_…', 'password=…', 'api_key="sk-proj-..."']) untouched(t);
  });

  it('a private key cut by a cap, on its own lines or pasted on one line, is masked', () => {
    const lines = j(fake(21, 64, B64), '\n', fake(22, 30, B64));
    assert.ok(!redact(`-----BEGIN RSA PRIVATE KEY-----\n${lines}…`).includes(lines.slice(70, 86)));
    const one = fake(23, 90, B64);
    const out = redact(`KEY="-----BEGIN OPENSSH PRIVATE KEY----- ${one}…`);
    assert.ok(!out.includes(one.slice(0, 16)) && !out.includes(one.slice(70, 86)), out);
  });

  it('a JWT cut after its payload (no signature) is masked', () => {
    const part = (o: object): string => Buffer.from(JSON.stringify(o)).toString('base64url');
    const start = j(part({ alg: 'HS256', typ: 'JWT' }), '.', part({ sub: fake(24, 12), name: 'x' })).slice(0, 100);
    masks(`the response carried ${start}…`, [start], 'a JSON Web Token');
  });

  it('a base64 block followed by an `error: …` line is decoded without that word', () => {
    const key = j('sk_', 'live_', fake(25, 30));
    const block = Buffer.from(`APP=web\nSTRIPE_KEY=${key}\n`).toString('base64').replace(/(.{76})/g, '$1\n');
    const out = redact(`${block}\nerror: write failed`);
    assert.ok(!out.includes(block.slice(0, 16)), out);
    assert.match(out, /\nerror: write failed$/);
  });
});
