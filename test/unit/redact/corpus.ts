/**
 * The redaction corpus: credential shapes as they appear in agent logs, commands, config dumps and
 * JSON, and look-alikes that must stay untouched. The secret values are fake but format-valid, and are
 * assembled at run time from a seeded generator and split prefixes, so no literal in this repository
 * is a credential a secret scanner would flag.
 */

/** A deterministic pseudo-random string over `alphabet` (mulberry32): the same value on every run. */
export function fake(seed: number, length: number, alphabet = 'abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789'): string {
  let a = seed >>> 0;
  let s = '';
  while (s.length < length) {
    a = (a + 0x6d2b79f5) >>> 0;
    let t = a;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    const r = ((t ^ (t >>> 14)) >>> 0) / 4294967296;
    s += alphabet[Math.floor(r * alphabet.length)];
  }
  // Random strings of this length always mix digits and letters; make sure of it for short ones.
  return /\d/.test(s) || !/\d/.test(alphabet) ? s : `${s.slice(0, -1)}7`;
}

const HEX = '0123456789abcdef';
const UP = 'ABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789';
const B64 = 'ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/';
const URLSAFE = 'ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789_-';
/** Joins parts: keeps provider prefixes apart from their bodies in the source text. */
const j = (...parts: string[]): string => parts.join('');

export interface SecretCase {
  name: string;
  /** The text as it appears in a log, command or file. */
  text: string;
  /** What must not survive redaction (nor any 8-character piece of it). */
  secret: string;
  /** What must survive, to show the text still reads. */
  keep?: string;
  /** The text holds the secret encoded or wrapped, not verbatim (see {@link exposed}). */
  encoded?: boolean;
}

const jwtPart = (o: object): string => Buffer.from(JSON.stringify(o)).toString('base64url');
const jwt = j(jwtPart({ alg: 'HS256', typ: 'JWT' }), '.', jwtPart({ sub: fake(90, 10), iat: 1764400000 }), '.', fake(91, 43, URLSAFE));
/** The key material of a PEM block (its BEGIN/END lines are not secret); `nl` is `\\n` inside JSON. */
const pemBody = (seed: number, nl = '\n'): string => j(fake(seed, 64, B64), nl, fake(seed + 1, 64, B64), nl, fake(seed + 2, 20, B64));
const pem = (kind: string, body: string, nl = '\n'): string => j('-----BEGIN ', kind, ' PRIVATE KEY-----', nl, body, nl, '-----END ', kind, ' PRIVATE KEY-----');

/** A PuTTY key file (`.ppk`, version 3) around its private lines. */
const ppk = (priv: string, nl = '\n'): string =>
  ['PuTTY-User-Key-File-3: ssh-ed25519', 'Encryption: none', 'Comment: eddsa-key-20260101', 'Public-Lines: 2', fake(140, 64, B64), fake(141, 4, B64), 'Private-Lines: 1', priv, `Private-MAC: ${fake(142, 64, HEX)}`].join(nl);
/** The base64 lines of a PuTTY key's private part. */
const ppkPrivate = (seed: number, nl = '\n'): string => j(fake(seed, 64, B64), nl, fake(seed + 1, 24, B64));
/** A Firebase Cloud Messaging legacy server key: `AAAA` and 7 characters, a colon, `APA91b` and 134. */
const firebase = (seed: number): string => j('AA', 'AA', fake(seed, 7, URLSAFE), ':', 'APA', '91b', fake(seed + 50, 134, URLSAFE));
/** A GUID-shaped id. */
const guid = (seed: number): string => [fake(seed, 8, HEX), fake(seed + 1, 4, HEX), fake(seed + 2, 4, HEX), fake(seed + 3, 4, HEX), fake(seed + 4, 12, HEX)].join('-');
/** The secret path of a Teams incoming webhook URL (after `webhookb2/`). */
const teams = (seed: number): string => j(guid(seed), '@', guid(seed + 5), '/IncomingWebhook/', fake(seed + 10, 32, HEX), '/', guid(seed + 15));

function c(name: string, text: (s: string) => string, secret: string, keep?: string): SecretCase {
  return { name, text: text(secret), secret, keep };
}
const encoded = (sc: SecretCase): SecretCase => ({ ...sc, encoded: true });

export const SECRETS: SecretCase[] = [
  // Provider formats
  c('Stripe live secret key', (s) => `stripe.api_key set to ${s}`, j('sk_', 'live_', fake(1, 24)), 'stripe.api_key set to'),
  c('Stripe test secret key', (s) => `STRIPE ${s}`, j('sk_', 'test_', fake(2, 24))),
  c('Stripe restricted key', (s) => `using ${s} for refunds`, j('rk_', 'live_', fake(3, 24)), 'for refunds'),
  c('Stripe webhook secret', (s) => `whsec=${s}`, j('wh', 'sec_', fake(4, 32))),
  c('OpenAI project key', (s) => `OPENAI_API_KEY=${s}`, j('sk-', 'proj-', fake(5, 48, URLSAFE)), 'OPENAI_API_KEY='),
  c('OpenAI legacy key', (s) => `client = OpenAI(${s})`, j('sk-', fake(6, 48))),
  c('Anthropic key', (s) => `x-api-key: ${s}`, j('sk-', 'ant-api03-', fake(7, 93, URLSAFE))),
  c('GitHub classic token', (s) => `git push https://${s}@github.com/o/r`, j('gh', 'p_', fake(8, 36)), 'github.com/o/r'),
  c('GitHub OAuth token', (s) => `gh auth login --with-token ${s}`, j('gh', 'o_', fake(9, 36))),
  c('GitHub app token', (s) => `token ${s} expired`, j('gh', 's_', fake(10, 36)), 'expired'),
  c('GitHub fine-grained PAT', (s) => `export GH_PAT=${s}`, j('github', '_pat_', fake(11, 22), '_', fake(12, 59))),
  c('GitLab PAT', (s) => `glab auth login --token ${s}`, j('gl', 'pat-', fake(13, 20, URLSAFE))),
  c('Slack bot token', (s) => `SLACK_BOT=${s}`, j('xo', 'xb-', fake(14, 12, '0123456789'), '-', fake(15, 13, '0123456789'), '-', fake(16, 24))),
  c('Slack user token', (s) => `posting as ${s}`, j('xo', 'xp-', fake(17, 12, '0123456789'), '-', fake(18, 12, '0123456789'), '-', fake(19, 32, HEX))),
  c('Slack webhook', (s) => `curl -X POST https://hooks.slack.com/${s} -d '{}'`, j('services/', 'T', fake(20, 8, UP), '/B', fake(21, 10, UP), '/', fake(22, 24)), "-d '{}'"),
  c('AWS access key id', (s) => `aws_access_key_id = ${s}`, j('AK', 'IA', fake(23, 16, UP))),
  c('AWS secret access key', (s) => `aws_secret_access_key=${s}`, fake(24, 40, B64.replace('+', '').replace('/', ''))),
  c('AWS session key id', (s) => `AssumedRole ${s} ok`, j('AS', 'IA', fake(25, 16, UP)), 'ok'),
  c('Google API key', (s) => `maps?key=${s}`, j('AI', 'za', fake(26, 35, URLSAFE))),
  c('Google OAuth client secret', (s) => `client secret ${s}`, j('GOC', 'SPX-', fake(27, 28, URLSAFE))),
  c('Hugging Face token', (s) => `huggingface-cli login --token ${s}`, j('hf', '_', fake(28, 34, 'abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ'))),
  c('Hugging Face org token', (s) => `HF ${s}`, j('api', '_org_', fake(29, 34, 'abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ'))),
  c('npm token (bare)', (s) => `//registry.npmjs.org/:_authToken ${s}`, j('np', 'm_', fake(30, 36))),
  c('npm token in .npmrc', (s) => `//registry.npmjs.org/:_authToken=${s}`, j('np', 'm_', fake(31, 36))),
  c('PyPI token', (s) => `twine upload -p ${s} dist/*`, j('py', 'pi-', 'AgEIcHlwaS5vcmc', fake(32, 70, URLSAFE)), 'dist/*'),
  c('SendGrid key', (s) => `sg = SendGridAPIClient(${s})`, j('S', 'G.', fake(33, 22, URLSAFE), '.', fake(34, 43, URLSAFE))),
  c('Twilio API key', (s) => `TWILIO ${s}`, j('S', 'K', fake(35, 32, HEX))),
  c('JWT', (s) => `cookie session=${s}; Path=/`, jwt, 'Path=/'),
  c('JWT bare in prose', (s) => `the response carried ${s} back`, jwt, 'back'),
  c('Azure storage AccountKey', (s) => `DefaultEndpointsProtocol=https;AccountName=acct;AccountKey=${s};EndpointSuffix=core.windows.net`, j(fake(36, 86, B64), '=='), 'AccountName=acct'),
  c('Azure Service Bus SharedAccessKey', (s) => `Endpoint=sb://ns.servicebus.windows.net/;SharedAccessKeyName=Root;SharedAccessKey=${s}`, j(fake(37, 43, B64), '=')),
  c('DigitalOcean PAT', (s) => `doctl auth init -t ${s}`, j('do', 'p_v1_', fake(38, 64, HEX))),
  c('DigitalOcean OAuth', (s) => `DO ${s}`, j('do', 'o_v1_', fake(39, 64, HEX))),
  c('Shopify access token', (s) => `X-Shopify-Access-Token: ${s}`, j('shp', 'at_', fake(40, 32, HEX))),
  c('Shopify shared secret', (s) => `secret ${s}`, j('shp', 'ss_', fake(41, 32, HEX))),
  c('Discord bot token', (s) => `client.run('${s}')`, j('M', fake(42, 23, URLSAFE), '.', fake(43, 6, URLSAFE), '.', fake(44, 38, URLSAFE))),
  c('Discord webhook', (s) => `POST https://discord.com/api/webhooks/${s}`, j(fake(45, 18, '0123456789'), '/', fake(46, 68, URLSAFE))),
  c('Telegram bot token', (s) => `https://api.telegram.org/bot${s}/sendMessage`, j(fake(47, 10, '0123456789'), ':A', 'A', fake(48, 33, URLSAFE))),
  c('Mailgun key', (s) => `api:${s}`, j('ke', 'y-', fake(49, 32, HEX))),
  c('Mailchimp key', (s) => `MC ${s}`, j(fake(50, 32, HEX), '-us', '14')),
  c('Square token', (s) => `square ${s}`, j('sq0', 'atp-', fake(51, 22, URLSAFE))),
  c('New Relic key', (s) => `NEW_RELIC ${s}`, j('NR', 'AK-', fake(52, 27, UP))),
  c('Postman key', (s) => `postman ${s}`, j('PM', 'AK-', fake(53, 24, HEX), '-', fake(54, 34, HEX))),
  c('Databricks token', (s) => `databricks ${s}`, j('da', 'pi', fake(55, 32, HEX))),
  c('Vault token', (s) => `VAULT ${s}`, j('hv', 's.', fake(56, 90, URLSAFE))),
  c('Linear key', (s) => `LINEAR ${s}`, j('lin', '_api_', fake(57, 40))),
  c('Doppler token', (s) => `doppler ${s}`, j('dp', '.pt.', fake(58, 43))),
  c('age secret key', (s) => `# ${s}`, j('AGE-SECRET', '-KEY-1', fake(59, 58, 'QPZRY9X8GF2TVDW0S3JN54KHCE6MUA7L'))),
  c('Grafana service account token', (s) => `grafana ${s}`, j('gl', 'sa_', fake(60, 32), '_', fake(61, 8, HEX))),
  c('Azure SAS signature', (s) => `https://acct.blob.core.windows.net/c/b?sv=2022-11-02&sp=r&sig=${s}`, j(fake(79, 43, B64.replace('+', '').replace('/', '')), '%3D'), 'sp=r'),
  c('Sentry token', (s) => `SENTRY_AUTH ${s}`, j('sntr', 'ys_', fake(80, 60, B64))),
  c('Atlassian API token', (s) => `jira ${s}`, j('ATA', 'TT3', fake(81, 183, URLSAFE))),
  // Keys, values and the ways prose spells them
  c('DB_PASSWORD env', (s) => `DB_PASSWORD=${s} ./run.sh`, 'hunter2hunter', './run.sh'),
  c('password in JSON', (s) => `{"user": "me", "password": "${s}"}`, 'c0rrect-h0rse', '"user": "me"'),
  c('password in escaped JSON', (s) => `{\\"password\\": \\"${s}\\"}`, 'esc4ped-pass'),
  c('Python dict repr', (s) => `settings={'password': '${s}', 'user': 'app'}`, 'py-dict-s3cret', "'user': 'app'"),
  c('Python kwarg', (s) => `connect(host="db", password="${s}")`, 'kw4rg-pass!', 'host="db"'),
  c('YAML secret', (s) => `client_secret: ${s}`, 'yaml-s3cr3t-value', 'client_secret'),
  c('CLI flag with space', (s) => `mysql --password ${s} -u root`, 'fl4g-space-pw', '-u root'),
  c('CLI flag with =', (s) => `deploy --token=${s} --force`, 't0k3n-flag-value', '--force'),
  c('shell-quoted argv element', (s) => `psql '--password=${s} two' -h db`, 'quoted-argv', '-h db'),
  c('argv flag then value', (s) => `'--api-key' '${s}'`, 'argv-p4ir-value'),
  c('query string token', (s) => `GET https://api.example/x?token=${s}&page=2`, 'abc123def456', 'page=2'),
  c('URL credentials', (s) => `postgres://admin:${s}@db:5432/app`, 's3cr3tpw', 'db:5432/app'),
  c('URL credentials after path normalisation', (s) => `src/https:/deploy:${s}@git.example.com/r.git`, 'n0rmalised-pw', 'git.example.com/r.git'),
  c('Authorization Bearer header', (s) => `curl -H 'Authorization: Bearer ${s}' https://x`, j('abc.DEF-123_', fake(62, 12)), 'https://x'),
  c('Authorization Basic header', (s) => `Authorization: Basic ${s}`, Buffer.from('user:pa55word').toString('base64')),
  c('bare Bearer token', (s) => `sent Bearer ${s} upstream`, fake(63, 32, URLSAFE), 'upstream'),
  c('RSA private key', (s) => `key:\n${pem('RSA', s)}\ndone`, pemBody(64), 'done'),
  c('OpenSSH private key', (s) => `cat id_ed25519\n${pem('OPENSSH', s)}`, pemBody(70)),
  c('cut-off private key', (s) => `tail: -----BEGIN EC PRIVATE KEY-----\n${s}`, fake(75, 60, B64), 'tail:'),
  c('private key inside JSON', (s) => `{"private_key": "${pem('', s, '\\n').replace('BEGIN  ', 'BEGIN ').replace('END  ', 'END ')}"}`, pemBody(76, '\\n')),
  c('high-entropy after keyword', (s) => `using secret ${s} for signing`, fake(77, 32, URLSAFE), 'for signing'),
  c('api key is …', (s) => `the api key is ${s}`, fake(78, 40)),
  c('TOKEN := in Makefile', (s) => `TOKEN := ${s}`, 'mk-t0ken-v4lue'),
  c('passphrase in a log line', (s) => `gpg --batch --passphrase ${s} -d f.gpg`, 'gpg-pass-phr4se', 'f.gpg'),
  // Encoded and wrapped: `base64 .env` output (76 columns), and a key the terminal wrapped
  encoded(c('base64-encoded .env', (s) => `$ base64 .env\n${Buffer.from(`DB_HOST=db\nAPI_KEY=${s}\nDEBUG=0\n`).toString('base64').replace(/(.{76})/g, '$1\n')}\n$ ls`, j('sk_', 'live_', fake(82, 40)), '$ ls')),
  encoded(c('key wrapped across two lines', (s) => `the script printed its provider settings: PROVIDER_API_KEY=${s.slice(0, 20)}\n${s.slice(20)}\nBATCH=200`, j('sk_', 'live_', fake(83, 40)), 'BATCH=200')),
  // Tokens as a URL's user name, and passwords holding `@` or `/`
  c('token as a URL user name', (s) => `git clone https://${s}@github.com/o/r.git`, fake(100, 40, HEX), 'github.com/o/r.git'),
  c('opaque token as a URL user name', (s) => `pip install git+https://${s}@git.example.com/team/pkg.git`, fake(101, 32, URLSAFE), 'git.example.com/team/pkg.git'),
  c('token as the user of a remote in JSON', (s) => `{"url": "https://${s}@gitlab.example.com/o/r"}`, fake(102, 26), 'gitlab.example.com/o/r'),
  c('URL password with @', (s) => `postgres://admin:${s}@db.example.com:5432/app`, j('p@', fake(103, 12)), 'db.example.com:5432/app'),
  c('URL password with /', (s) => `git push https://deploy:${s}@git.example.com/r.git main`, j(fake(104, 6), '/', fake(105, 8)), 'git.example.com/r.git main'),
  c('URL password with @ and /', (s) => `REDIS_URL=redis://:${s}@cache.internal:6379/0`, j(fake(106, 5), '@/', fake(107, 9)), 'cache.internal:6379/0'),
  // Any Authorization scheme: the token after the scheme word
  c('Authorization SSWS', (s) => `curl -H "Authorization: SSWS ${s}" https://dev.okta.example/api/v1/users`, j('00', fake(108, 40, URLSAFE)), 'https://dev.okta.example/api/v1/users'),
  c('Authorization DeepL-Auth-Key', (s) => `curl -H 'Authorization: DeepL-Auth-Key ${s}' https://api.deepl.com/v2/translate`, j(fake(109, 8, HEX), '-', fake(110, 4, HEX), '-', fake(111, 4, HEX), '-', fake(112, 4, HEX), '-', fake(113, 12, HEX), ':fx'), 'api.deepl.com'),
  c('Authorization with another scheme in JSON', (s) => `{"headers": {"Authorization": "ApiKey ${s}", "Accept": "json"}}`, fake(114, 32), '"Accept": "json"'),
  c('bare SSWS token', (s) => `okta: sent SSWS ${s} to the admin API`, j('00', fake(115, 40, URLSAFE)), 'to the admin API'),
  // PuTTY private keys: the Private-Lines block
  c('PuTTY private key', (s) => `$ cat deploy.ppk\n${ppk(s)}`, ppkPrivate(116), 'Public-Lines: 2'),
  c('PuTTY private key in JSON', (s) => `{"output": "${ppk(s, '\\n')}"}`, ppkPrivate(118, '\\n')),
  // Firebase Cloud Messaging server keys
  c('Firebase server key', (s) => `FCM: curl -H "Authorization: key=${s}" https://fcm.googleapis.com/fcm/send`, firebase(360), 'fcm.googleapis.com'),
  c('Firebase server key in prose', (s) => `the legacy server key ${s} still works`, firebase(362), 'still works'),
  c('Firebase server key in JSON', (s) => `{"serverKey": "${s}"}`, firebase(364)),
  // Microsoft Teams incoming webhooks
  c('Teams webhook', (s) => `curl -X POST https://contoso.webhook.office.com/webhookb2/${s} -d @card.json`, teams(300), '-d @card.json'),
  c('Teams webhook (old host)', (s) => `TEAMS_URL = "https://outlook.office.com/webhook/${s}"`, teams(330)),
  c('Teams workflow URL signature', (s) => `POST https://prod-12.westus.logic.azure.com:443/workflows/${fake(131, 32, HEX)}/triggers/manual/paths/invoke?api-version=2016-06-01&sp=%2Ftriggers%2Fmanual%2Frun&sv=1.0&sig=${s}`, fake(132, 43, URLSAFE)),
  // Passwords given on a command line
  c('curl -u user:password', (s) => `curl -u admin:${s} https://ci.example/api/json`, 'cUrl-pw-4242', 'https://ci.example/api/json'),
  c('curl --user=user:password', (s) => `curl -s --user=deploy:${s} https://x.example`, 'Us3r-flag-pw', 'https://x.example'),
  c('curl -u glued', (s) => `curl -uadmin:${s} -X GET https://x.example`, 'glued-u-pw-77', '-X GET'),
  c('httpie -a user:password', (s) => `http -a admin:${s} GET https://api.example/me`, 'h77pie-pw', 'GET https://api.example/me'),
  c('mysql -ppassword', (s) => `mysql -h db -u root -p${s} app < schema.sql`, 'My5ql-glued', 'app < schema.sql'),
  c('mysql -p password', (s) => `mysql -u root -p ${s} -e "show tables"`, 'My5ql-spaced', 'show tables'),
  c('mysqldump -p quoted', (s) => `mysqldump -uroot -p'${s}' app > app.sql`, 'dump-quoted-pw', 'app > app.sql'),
  c('sshpass -p password', (s) => `sshpass -p ${s} ssh deploy@host uptime`, 'ssh-pass-word1', 'uptime'),
  c('sshpass -ppassword', (s) => `sshpass -p"${s}" scp f host:`, 'ssh-glued-pw2', 'scp f host:'),
  c('PGPASSWORD=password psql', (s) => `PGPASSWORD=${s} psql -h db -U app`, 'pg-env-pass1', 'psql -h db -U app'),
  c('MYSQL_PWD=password mysql', (s) => `MYSQL_PWD='${s}' mysql -u root`, 'my-env-pwd22', 'mysql -u root'),
  c('SSHPASS=password sshpass -e', (s) => `SSHPASS=${s} sshpass -e ssh host`, 'sshpass-env3', 'sshpass -e ssh host'),
  c('docker login -p', (s) => `docker login -u ci -p ${s} registry.example.com`, 'dock3r-login-pw', 'registry.example.com'),
  c('redis-cli -a', (s) => `redis-cli -h cache -a ${s} ping`, 'red1s-auth-pw', 'ping'),
  c('openssl -passin pass:', (s) => `openssl rsa -in key.pem -passin pass:${s} -out plain.pem`, 'ssl-pass-in9', '-out plain.pem'),
  c('smbclient -U user%password', (s) => `smbclient //fs/share -U admin%${s}`, 'smb-pass-55', '//fs/share'),
  c('ldapsearch -w', (s) => `ldapsearch -x -D cn=admin -w ${s} -b dc=example`, 'ldap-bind-pw6', '-b dc=example'),
  c('command line in an argv array', (s) => `["sshpass", "-p", "${s}", "ssh", "host"]`, 'argv-sshpass-7'),
  // Values a length cap cut (an ellipsis appended) before they were masked
  c('password cut by a cap', (s) => `DB_PASSWORD=${s}…`, 'hunter2hunter'),
  c('header token cut by a cap', (s) => `X-Goog-Token: ${s}…`, j('ya29.', fake(133, 40, URLSAFE))),
  c('session token cut by a cap', (s) => `{"SessionToken": "${s}…`, fake(134, 60, B64)),
  c('private key cut by a cap', (s) => `-----BEGIN RSA PRIVATE KEY-----\n${s}…`, j(fake(135, 64, B64), '\n', fake(136, 30, B64))),
  c('one-line private key cut by a cap', (s) => `KEY="-----BEGIN OPENSSH PRIVATE KEY----- ${s}…`, fake(137, 90, B64)),
  c('JWT cut after its payload', (s) => `risk: the response carried ${s}…`, jwt.slice(0, 100)),
  encoded(c('base64 block before an error line', (s) => `$ base64 -w 76 .env\n${Buffer.from(`APP=web\nSTRIPE_KEY=${s}\n`).toString('base64').replace(/(.{76})/g, '$1\n')}\nerror: write failed`, j('sk_', 'live_', fake(138, 30)), 'error: write failed')),
  c('key in a masked-looking command, backticks after', (s) => `#14 \`aws s3 ls --access-key ${s}\` failed\n#15 \`npm run lint\` stopped`, j('AK', 'IA', fake(84, 16, UP)), '#15 `npm run lint` stopped'),
];

/** Text that looks like a credential but is not one: must come back unchanged. */
export const LOOKALIKES: string[] = [
  'pytest tests/test_password_reset.py::test_expired_token',
  'pytest tests/test_auth.py::TestToken::test_refresh -q',
  'const tokenizer = new Tokenizer(vocab);',
  'assert secret == expected',
  'assert token != previous_token',
  'curl api/v1/complete -d max_tokens=1024',
  'llm --num-tokens=50 "hi"',
  'model.generate(max_new_tokens=256, temperature=0.2)',
  'token_count=4096',
  'password_min_length=12',
  'Fix the token refresh bug',
  'Basic validation fails on empty input',
  'pytest -k "token expiry"',
  'npm run build -- --max-tokens',
  'skip-this step',
  'git commit -m "wip: paise"',
  'pytest tests/test_refund.py::test_partial',
  'commit 3f2a9c1d8e7b6a5f4e3d2c1b0a9f8e7d6c5b4a3f',
  'sha256: e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855',
  'md5 d41d8cd98f00b204e9800998ecf8427e',
  'request 123e4567-e89b-12d3-a456-426614174000 failed',
  'session 7c9e6679-7425-40de-944b-e07fc1f90ae7',
  'src/core/auth/tokenStore.ts',
  'src/secrets/loader.py',
  '/home/dev/projects/password-manager/README.md',
  'tests/fixtures/private_key_parsing_test.go',
  'docs/api-keys.md',
  'password = get_password()',
  'token = os.environ["GITHUB_TOKEN"]',
  'const token = await getToken();',
  'secret = settings.api.secret',
  'api_key = config.api_key',
  'password: ${DB_PASSWORD}',
  'password=$DB_PASSWORD',
  'token: <your token here>',
  'password: "********"',
  'api_key=xxxxxxxx',
  'PWD=/work/repo',
  'OLDPWD=/work',
  'if password is None: raise ValueError("missing")',
  'The password is required.',
  'the password was changed.',
  'The password is case-sensitive.',
  'the password is invalid!',
  'the first pass was clean.',
  'password = DEFAULT_PASSWORD',
  'connect(host=DB_HOST, password=ADMIN_PW)',
  'DB_PASSWORD=CHANGE_ME',
  'def check_password(password: str) -> bool:',
  'kubectl get secret db-creds -o yaml',
  'Authorization header is missing',
  'git clone git@github.com:org/repo.git',
  'http://localhost:8080/api/v1/items',
  'https://example.com/users/me@example.com',
  'ssh-keygen -t ed25519 -C "dev@example.com"',
  'openssl genrsa -out private.key 2048',
  'The BEGIN PRIVATE KEY marker is missing from the PEM file',
  'npm install @secretlint/core',
  'tsc --noEmit exited 2',
  'Error: expected 2000 got 1999.99',
  'FAILED tests/test_refund.py::test_partial - AssertionError: 1999 != 2000',
  'task-abcdefgh12 done',
  'desk-reservation-system v1.2.3',
  'node_modules/.bin/eslint --max-warnings=0 .',
  'bearer of bad news',
  'Token refresh took 300ms',
  'eyJ is how base64 JSON starts',
  'base64 of the word test is dGVzdA==',
  'docker run -e PASSWORD_FILE=/run/secrets/db app',
  'authorized_keys updated',
  'author: Jane Doe',
  'bypassed cache for /api',
  'The secret to fast builds is caching.',
  'passed 42 tests in 3.2s',
  'SKIP_TOKEN_CHECK=1 npm test',
  'redacted text stays [REDACTED]',
  '{"id": "secret:feedback_record.jsonl:11", "severity": "block"}',
  'labels: token:expired, secret:rotated',
  // Placeholders of docs and examples, and prose after a label
  `OPENROUTER_API_KEY=${j('sk-', 'ai-v1-your-key-here')}`,
  `client = OpenAI(api_key="${j('sk-', '...')}")`,
  `STRIPE_KEY=${j('sk_', 'live_', 'x'.repeat(24))}`,
  `GITHUB_TOKEN=${j('gh', 'p_', 'X'.repeat(36))}`,
  `aws_access_key_id = ${j('AK', 'IA', 'XXXXXXXXXXXXXXXX')}`,
  'API_KEY=your-api-key-here',
  'password=aaaaaaaaaaaa',
  'if token: return',
  'if not token: raise ValueError("missing")',
  'Token: missing path untested',
  'Secret: handled by the vault team',
  '{"id": "secrets", "detail": "a block risk names the leaked credential"}',
  'export DB_PASSWORD=${DB_PASSWORD}',
  // Look-alikes of the URL, Authorization, key-file, webhook and command-line families
  'curl -u "$USER:$TOKEN" https://api.example.com',
  'curl -u "${CI_USER}:${CI_TOKEN}" https://ci.example/api',
  'curl -u admin: https://x.example',
  'curl -u admin https://x.example',
  'mysql -u root -p',
  'mysql -u root -p -h db app',
  'mysql -u root -p < dump.sql',
  'mysql -P 3306 -h db',
  'mkdir -p build/out',
  'git push -u origin main',
  'sshpass -f ~/.ssh/pw ssh host',
  'sshpass -e ssh host',
  'docker login -u ci --password-stdin registry.example.com',
  'redis-cli -a "$REDIS_PASSWORD" ping',
  'openssl rsa -in key.pem -passin env:KEY_PASS',
  'PGPASSFILE=~/.pgpass psql -h db',
  'https://user@github.com/org/repo.git',
  'ssh://git@github.com/org/repo.git',
  'https://jane.doe@gitlab.example.com/group/project',
  'Authorization: SSWS followed by the API token',
  'The Authorization: DeepL-Auth-Key header takes the key',
  'curl -H "Authorization: SSWS ${OKTA_TOKEN}" https://dev.okta.example',
  'Authorization: Bearer $TOKEN',
  'PuTTY key files have Public-Lines and Private-Lines sections',
  'AAAA record for api.example.com points to 2001:db8::1',
  'add the webhook.office.com/webhookb2/ URL in the Teams connector settings',
  'OPENAI_API_KEY=sk-…',
  'token: ghp_…',
  'password=…',
  'see the docs…',
];

/**
 * Everything a reader of `text` can get at: the text, the text with its line breaks removed (a value
 * the terminal wrapped), and what its base64 lines decode to.
 */
export function exposed(text: string): string {
  const b64 = text.split(/\r?\n/).filter((l) => /^[A-Za-z0-9+/]{8,}={0,2}$/.test(l)).join('');
  return `${text}\n${text.replace(/\r?\n/g, '')}\n${Buffer.from(b64, 'base64').toString('latin1')}`;
}

/** The 8-character pieces of `secret` found in `text` (or exposed by it): a leak, even of part of a secret. */
export function fragmentsIn(text: string, secret: string): string[] {
  const all = exposed(text);
  const found: string[] = [];
  for (let i = 0; i + 8 <= secret.length; i++) if (all.includes(secret.slice(i, i + 8))) found.push(secret.slice(i, i + 8));
  return found;
}
