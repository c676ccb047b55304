/**
 * The value decides, never the key's name: each class of false alarm seen on real sessions is no
 * finding (or at most a warning), each free-text shape of a real credential is one to rotate, and no
 * output holds nine characters of a flagged value. Values are assembled at run time (`fake`), so no
 * literal here is a credential.
 */
import * as assert from 'node:assert/strict';
import { detectSecrets, redact } from '../../../src/core/redact';
import { valueShape } from '../../../src/core/redact/shape';
import { secretRisks, sessionSecretFindings } from '../../../src/core/packet/secretRisks';
import { CredentialScanner } from '../../../src/core/session/credentials';
import { renderCompactBrief } from '../../../src/core/render/sessionStart';
import { fake } from './corpus';

/** The credentials to rotate in `text` (strong findings, no personal data). */
const flagged = (text: string) => detectSecrets(text).filter((h) => !h.weak && !h.personal);
const values = (text: string) => flagged(text).map((h) => text.slice(h.start, h.end));

/** Asserts that no 9 consecutive characters of `secret` appear in `out`. */
function noFragment(out: string, secret: string, where: string): void {
  for (let i = 0; i + 9 <= secret.length; i++) assert.ok(!out.includes(secret.slice(i, i + 9)), `${where} holds part of the credential`);
}

describe('the value decides: false alarms of real sessions are no credential to rotate', () => {
  const none = (text: string): void => assert.deepEqual(values(text), [], text);

  it('a code identifier after a key name', () => {
    none("api_key = os.environ.get('ANTHROPIC_API_KEY', '')");
    none('self.api_key = new_api_key');
    none("fields = ('email', 'password', 'first_name')".replace("'password', ", "'password': "));
    none('hasAuth = isConnected');
    none('const stillNoAuth = !isConnected');
    none('static TOKEN: Lazy<String> = Lazy::new(|| {');
    none('fromToken: depositTokenAddress,');
    none('"apiKey": "MODEL_API_KEY"');
    none('Auth: SERVICE_API_KEY header');
  });

  it('a placeholder', () => {
    none('api_key="test-key"');
    none('token: <your-token>');
    none('TELEGRAM_BOT_TOKEN=replace_with_your_bot_token');
    none('EDGERUNNER_CONTROL_TOKEN=replace-for-production');
    none('CIVITAS_JWT_SECRET=change-me-before-deploying');
    none('DATABASE_URL=postgresql://postgres:[PASSWORD]@db.example.supabase.co:5432/postgres');
    none('api_key: "user-supplied-api-key"');
  });

  it('a code or syntax fragment', () => {
    none('password: # set in the vault');
    none('SECRET_KEY=\n# comment');
    none('API_TOKEN=${API_TOKEN:-$(cat ~/.config/app/token)}');
    none('console.log(`password ${x}`)'.replace('password ', 'password=$'));
    none('TOKEN=\nNEXT_URL=wss://ws.example.com');
  });

  it('a number or a line-number marker', () => {
    none('password  119');
    none('api_key:\n   138→    return x');
    none('| token | 1 |'.replace('| 1', ': 1'));
    none('firebase_auth: ^5.3.1');
  });

  it('prose', () => {
    none("errs.password = 'Minimum 8 characters'");
    none('All checks pass: 12 tests');
    none('use the ?apikey= query string on every call'.replace('?apikey= ', '?apikey= '));
  });

  it('an empty Password: prompt', () => {
    none('Password:');
    none('[sudo] password for dev: ');
  });

  it('a config switch', () => {
    none('BR2_PACKAGE_PLUGIN_MOXA_API_KEY=y');
    none('ENABLE_TOKEN=true');
    none('USE_AUTH=off');
  });

  it('a game variable', () => {
    none('InvincibleBuffToken = 0');
    none('self.token_count = 3');
  });

  it('demo seed data', () => {
    none("{ name: 'Demo user', password: 'demo-password' }");
    none('x-api-token: demo');
  });

  it('a file path', () => {
    none('Credentials: ~/.mail-tool/credentials.json');
    none('token_file = ./secrets/token.txt');
  });

  it('a public contract address', () => {
    none(`COIN_TOKEN = "0x${fake(5, 40, '0123456789abcdef')}"`);
  });

  it('a word after a key is at most a possible credential (masked, weak)', () => {
    const text = 'password: sunflower';
    assert.deepEqual(values(text), []);
    assert.ok(detectSecrets(text).some((h) => h.weak), 'masked as a possible credential');
    assert.equal(redact(text), 'password: [REDACTED]');
  });

  it('an upper-snake value of an env-file or shell assignment is a literal (masked, weak); in code a name', () => {
    const value = fake(23, 6, 'ABCDEFGHIJKLMNOPQRSTUVWXYZ') + '_' + fake(24, 5, 'ABCDEFGHIJKLMNOPQRSTUVWXYZ') + '_PROD';
    const literal = [
      `DB_PASSWORD=${value}`,
      `export DB_PASSWORD=${value}`,
      `DB_PASSWORD=${value} npm start`,
      `cd app && DB_PASSWORD=${value} ./run.sh`,
      `APP=web\nDB_PASSWORD=${value} # prod\nPORT=80`,
      `DB_PASSWORD="${value}"`,
      `services:\n  db:\n    environment:\n      - DB_PASSWORD=${value}`,
      `docker run -e DB_PASSWORD=${value} app`,
      `    12→DB_PASSWORD=${value}`,
      `+DB_PASSWORD=${value}`,
    ];
    for (const text of literal) {
      const hits = detectSecrets(text).filter((h) => text.slice(h.start, h.end) === value);
      assert.equal(hits.length, 1, text);
      assert.equal(hits[0]!.weak, true, `${text}: a warning, not a block`);
      assert.ok(!redact(text).includes(value), `${text}: masked`);
    }
    const reference = [
      'password = DEFAULT_PASSWORD',
      'const password = DEFAULT_PASSWORD;',
      'db_password = DB_PASSWORD_DEFAULT',
      'const password=DEFAULT_PASSWORD;',
      'connect(host=HOST, password=ADMIN_PW)',
      'cfg.password=ADMIN_PW',
      'password=process.env.DB_PASSWORD',
      "password=os.environ['DB_PASSWORD']",
      'DB_PASSWORD=$ADMIN_PW',
      'DB_PASSWORD=CHANGE_ME',
      'API_KEY=YOUR_API_KEY',
      'DB_PASSWORD=REPLACE_ME',
      'DB_PASSWORD=XXX',
      'API_KEY=OPENAI_API_KEY',
      '"apiKey": "MODEL_API_KEY"',
    ];
    for (const text of reference) assert.deepEqual(detectSecrets(text), [], text);
    assert.equal(valueShape('HUNTER_TWO', { shell: true }), 'weak');
    assert.equal(valueShape('HUNTER_TWO'), 'none');
    assert.equal(valueShape('OPENAI_API_KEY', { shell: true }), 'none');
  });

  it('a value with a secret shape after a key is one to rotate', () => {
    const hex = fake(7, 64, '0123456789abcdef');
    assert.deepEqual(values(`NILLION_ORG_SECRET_KEY=${hex}`), [hex]);
    const uuid = [fake(1, 8, 'abcdef0123456789'), fake(2, 4, 'abcdef0123456789'), fake(3, 4, 'abcdef0123456789'), fake(4, 4, 'abcdef0123456789'), fake(5, 12, 'abcdef0123456789')].join('-');
    assert.deepEqual(values(`RAILWAY_TOKEN=${uuid} railway whoami`), [uuid]);
    assert.equal(valueShape(fake(9, 24)), 'secret');
    assert.equal(valueShape('first_name'), 'weak');
    assert.equal(valueShape('process.env.API_KEY'), 'none');
  });
});

describe('free-text credentials are flagged', () => {
  const one = (text: string, secret: string, rule: string): void => {
    const hits = flagged(text);
    assert.deepEqual(hits.map((h) => text.slice(h.start, h.end)), [secret], text);
    assert.equal(hits[0]!.rule, rule);
    noFragment(redact(text), secret, 'the redacted text');
  };

  it('a push service key in a URL path, with the phone number beside it masked', () => {
    const key = fake(11, 22);
    const phone = `138${fake(12, 8, '0123456789')}`;
    const text = `curl "https://api.day.app/${key}/done?phone=${phone}"`;
    one(text, key, 'push-url-key');
    assert.ok(!redact(text).includes(phone), 'the phone number is masked');
    assert.ok(detectSecrets(text).some((h) => h.personal), 'personal data is masked, not flagged');
  });

  it('an ntfy topic: random is a key, a word only maybe one', () => {
    const topic = fake(13, 16);
    one(`curl -d hi ntfy.sh/${topic}`, topic, 'push-url-key');
    assert.deepEqual(values('curl -d hi ntfy.sh/alerts'), []);
  });

  it('a password given in a message, in Chinese, Japanese, Korean and English', () => {
    const pw = `${fake(14, 6, 'abcdefghij')}${fake(15, 3, '0123456789')}`;
    one(`我的密码是 ${pw}，请用它登录`, pw, 'prose-password');
    one(`sudoのパスワードは${pw}です`, pw, 'prose-password');
    one(`비밀번호는 ${pw} 입니다`, pw, 'prose-password');
    one(`the sudo password is ${pw} desu`, pw, 'prose-password');
    assert.deepEqual(values('The password is required'), []);
  });

  it('a number given as a password or PIN is masked, as a warning (not one to rotate); a count or a date is not', () => {
    const pin = fake(16, 6, '0123456789');
    for (const text of [`my sudo password is ${pin}`, `the PIN is ${pin}, thanks`, `暗証番号は ${pin} です`, `密码是 ${pin}`]) {
      const hits = detectSecrets(text).filter((h) => text.slice(h.start, h.end) === pin);
      assert.equal(hits.length, 1, text);
      assert.equal(hits[0]!.weak, true, `${text}: a warning, not a block`);
      assert.ok(!redact(text).includes(pin), `${text}: masked`);
    }
    for (const text of ['password is 12', 'password  119', 'password was 2024-01-01', 'spinning 4000 rpm']) assert.deepEqual(detectSecrets(text), [], text);
  });

  it('a plain word given as a password is masked, as a warning; a word of prose after the same words is not', () => {
    const word = fake(22, 8, 'abcdefghijklmnop');
    const texts = [
      `the root password is ${word}`,
      `my wifi password was ${word}.`,
      `ok, the password is ${word}, use it for the staging box`,
      `the sudo password is "${word}"`,
      `パスワードは ${word} です`,
      `비밀번호는 ${word}입니다`,
      `密码是 ${word}。`,
      `line one\nthe admin password is ${word}\nline three`,
    ];
    for (const text of texts) {
      const hits = detectSecrets(text).filter((h) => text.slice(h.start, h.end) === word);
      assert.equal(hits.length, 1, text);
      assert.equal(hits[0]!.weak, true, `${text}: a warning, not a block`);
      assert.equal(hits[0]!.rule, 'prose-password', text);
      assert.ok(!redact(text).includes(word), `${text}: masked`);
    }
    const prose = [
      'The password is required.',
      'the password is wrong',
      'The password is incorrect, try again',
      'the password was changed.',
      'the password is hashed',
      'The password is case-sensitive.',
      'the password is still the same',
      'The password is not set.',
      'the password is stored in the vault',
      'the password is missing',
      'the password is invalid!',
      'The password was rotated yesterday.',
      'the password is working now',
      'the password is probably fine',
      'the password is readable',
      'the password is accessible.',
      'the password is ok',
      'the first pass was clean.',
      'this pass is complete',
      'the password is in the vault',
      'the password is bluebird.com now',
      'the password is $PASSWORD',
      'the password is changeme',
    ];
    for (const text of prose) assert.deepEqual(detectSecrets(text), [], text);
    // A word a sentence's `!` ends is a word (a warning); with a digit it is a password to rotate.
    const bang = `the password is ${word}!`;
    assert.deepEqual(detectSecrets(bang).map((h) => [bang.slice(h.start, h.end), h.weak]), [[word, true]]);
    const strong = `the password is ${word}7!`;
    assert.deepEqual(values(strong), [`${word}7!`]);
  });

  it('a password piped to sudo -S, chpasswd, or in an askpass or expect script', () => {
    const pw = `${fake(16, 6)}!`;
    one(`echo '${pw}' | sudo -S apt-get install -y x`, pw, 'sudo-password');
    one(`echo "root:${pw}" | chpasswd`, pw, 'chpasswd-password');
    one(`cat > /tmp/askpass.sh <<'EOF'\n#!/bin/sh\necho '${pw}'\nEOF`, pw, 'askpass-password');
    one(`expect "password:"\nsend "${pw}\\r"`, pw, 'expect-password');
    assert.deepEqual(values('echo "$PASSWORD" | sudo -S ls'), []);
  });

  it('a Wi-Fi passphrase on nmcli, wpa_passphrase and iwconfig', () => {
    const pw = `${fake(17, 8, 'abcdefgh')}${fake(18, 2, '0123456789')}`;
    one(`nmcli dev wifi connect HomeNet password '${pw}'`, pw, 'wifi-passphrase');
    one(`wpa_passphrase HomeNet '${pw}' > /etc/wpa.conf`, pw, 'wifi-passphrase');
    one(`iwconfig wlan0 key s:${pw}`, pw, 'wifi-passphrase');
    assert.deepEqual(values('nmcli dev wifi connect HomeNet password "$WIFI_PW"'), []);
  });

  it('a password in a connection string', () => {
    const pw = fake(19, 12);
    one(`Server=db;User Id=app;Password=${pw};`, pw, 'key-value');
  });
});

describe('no output holds a flagged credential', () => {
  it('the risk, its prompt-length detail and the SessionStart text hold no 9 characters of the value', () => {
    const pw = `${fake(20, 10)}`;
    const key = fake(21, 22);
    const scanner = new CredentialScanner('claude-code');
    const line = JSON.stringify({ type: 'user', message: { role: 'user', content: `sudo password is ${pw} and notify https://api.day.app/${key}/x` } });
    scanner.line(Buffer.from(line), 1);
    const credentials = scanner.credentials();
    assert.equal(credentials.filter((c) => !c.weak).length, 2, 'both are credentials to rotate');
    const risks = secretRisks(sessionSecretFindings({ file: '/tmp/s.jsonl', credentials, agent: 'claude-code' }));
    assert.ok(risks.every((r) => r.severity === 'block'));
    const packet = { next_action: 'go on', open_risks: risks } as unknown as Parameters<typeof renderCompactBrief>[0];
    let brief = '';
    try {
      brief = renderCompactBrief(packet, { regenerated: false });
    } catch {
      // a partial packet: the risks alone are checked below
    }
    for (const out of [JSON.stringify(risks), brief, redact(line)]) {
      noFragment(out, pw, 'an output');
      noFragment(out, key, 'an output');
    }
  });
});
