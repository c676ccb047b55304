import * as assert from 'node:assert/strict';
import { detectSecrets, redact } from '../../../src/core/redact';
import { libraryHits, libraryRuleIds } from '../../../src/core/redact/library';
import { OWN_RULE_IDS, ruleHits } from '../../../src/core/redact/rules';
import { fake } from './corpus';

/**
 * Each hand-written rule, pinned at its edges: the shortest token it takes and one character less, every
 * prefix it knows, the kind it names, where a token may start and end, and look-alikes it must leave.
 * Tokens are assembled at run time (prefixes split from bodies), so no literal here is a credential.
 */

const ALNUM = 'abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789';
const URLSAFE = `${ALNUM}_-`;
const HEX = '0123456789abcdef';
const UPPER = 'ABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789';
const B64 = `${ALNUM}+/`;
const j = (...parts: string[]): string => parts.join('');

/** What was found in `text`: rule, kind, and the exact text masked. */
function found(text: string): [rule: string, label: string, secret: string][] {
  return detectSecrets(text).map((h) => [h.rule, h.label, text.slice(h.start, h.end)]);
}

/** `text` has exactly one secret, `secret`, found by `rule` and named `label`; masking keeps the rest. */
function only(text: string, rule: string, label: string, secret: string): void {
  assert.deepEqual(found(text), [[rule, label, secret]], text);
  assert.equal(redact(text), text.replace(secret, '[REDACTED]'));
}

/** Nothing in `text` is a secret. */
function none(text: string): void {
  assert.deepEqual(found(text), [], text);
  assert.equal(redact(text), text);
}

/** `rule` finds nothing in `text` (another rule may). */
function notBy(text: string, rule: string): void {
  assert.deepEqual(
    found(text).filter(([r]) => r === rule),
    [],
    text,
  );
}

interface Shape {
  rule: string;
  label: string;
  /** Prefixes the rule knows, split so the source holds no token prefix whole. */
  prefixes: string[][];
  alphabet: string;
  min: number;
  /** Longest body taken (the token ends there). */
  max?: number;
  /** Text after the body that belongs to the token. */
  suffix?: string;
  /** The rule has no end boundary: a longer run is masked up to the longest body. */
  openEnd?: boolean;
}

const SHAPES: Shape[] = [
  { rule: 'stripe', label: 'a Stripe live key', prefixes: [['sk', '_live_'], ['pk', '_live_'], ['rk', '_live_']], alphabet: ALNUM, min: 10 },
  { rule: 'stripe', label: 'a Stripe test key', prefixes: [['sk', '_test_'], ['pk', '_test_'], ['rk', '_test_']], alphabet: ALNUM, min: 10 },
  { rule: 'stripe-webhook', label: 'a Stripe webhook secret', prefixes: [['wh', 'sec_']], alphabet: ALNUM, min: 24 },
  { rule: 'github', label: 'a GitHub token', prefixes: [['gh', 'p_'], ['gh', 'o_'], ['gh', 'u_'], ['gh', 's_'], ['gh', 'r_']], alphabet: ALNUM, min: 20 },
  { rule: 'github-pat', label: 'a GitHub token', prefixes: [['github', '_pat_']], alphabet: `${ALNUM}_`, min: 22 },
  { rule: 'gitlab', label: 'a GitLab token', prefixes: [['gl', 'pat-'], ['gl', 'ptt-'], ['gl', 'dt-']], alphabet: URLSAFE, min: 20 },
  {
    rule: 'slack-token',
    label: 'a Slack token',
    prefixes: [['xo', 'xa-'], ['xo', 'xb-'], ['xo', 'xp-'], ['xo', 'xo-'], ['xo', 'xs-'], ['xo', 'xr-'], ['xo', 'xe-'], ['xa', 'pp-']],
    alphabet: `${ALNUM}-`,
    min: 10,
  },
  { rule: 'aws-access-key', label: 'an AWS access key id', prefixes: [['AK', 'IA'], ['AS', 'IA'], ['AB', 'IA'], ['AC', 'CA'], ['A3', 'TX'], ['A3', 'T7']], alphabet: UPPER, min: 16, max: 16 },
  { rule: 'google-api-key', label: 'a Google API key', prefixes: [['AI', 'za']], alphabet: URLSAFE, min: 35, max: 35 },
  { rule: 'huggingface', label: 'a Hugging Face token', prefixes: [['hf', '_'], ['api', '_org_']], alphabet: ALNUM, min: 30 },
  { rule: 'npm', label: 'an npm access token', prefixes: [['np', 'm_']], alphabet: ALNUM, min: 36, max: 36 },
  { rule: 'pypi', label: 'a PyPI upload token', prefixes: [['py', 'pi-AgE']], alphabet: URLSAFE, min: 40 },
  { rule: 'digitalocean', label: 'a DigitalOcean token', prefixes: [['do', 'p_v1_'], ['do', 'o_v1_'], ['do', 'r_v1_']], alphabet: HEX, min: 64, max: 64 },
  { rule: 'shopify', label: 'a Shopify access token', prefixes: [['shp', 'at_'], ['shp', 'ca_'], ['shp', 'pa_'], ['shp', 'ss_']], alphabet: '0123456789abcdefABCDEF', min: 32, max: 32 },
  { rule: 'mailgun', label: 'a Mailgun API key', prefixes: [['ke', 'y-']], alphabet: HEX, min: 32, max: 32 },
  { rule: 'square', label: 'a Square access token', prefixes: [['sq0', 'atp-'], ['sq0', 'csp-'], ['sq0', 'idp-']], alphabet: URLSAFE, min: 22, max: 60, openEnd: true },
  { rule: 'newrelic', label: 'a New Relic key', prefixes: [['NR', 'AK-'], ['NR', 'JS-'], ['NR', 'II-']], alphabet: ALNUM, min: 19, max: 32 },
  { rule: 'databricks', label: 'a Databricks token', prefixes: [['da', 'pi']], alphabet: HEX, min: 32, max: 32 },
  { rule: 'linear', label: 'a Linear API key', prefixes: [['lin', '_api_']], alphabet: ALNUM, min: 40, max: 40 },
  {
    rule: 'doppler',
    label: 'a Doppler token',
    prefixes: [['dp', '.pt.'], ['dp', '.st.'], ['dp', '.sa.'], ['dp', '.ct.'], ['dp', '.scim.'], ['dp', '.audit.']],
    alphabet: ALNUM,
    min: 40,
    max: 44,
  },
  { rule: 'age', label: 'an age secret key', prefixes: [['AGE-SECRET', '-KEY-1']], alphabet: 'QPZRY9X8GF2TVDW0S3JN54KHCE6MUA7L', min: 58, max: 58 },
  { rule: 'sentry', label: 'a Sentry token', prefixes: [['sntr', 'ys_'], ['sntr', 'yu_']], alphabet: `${ALNUM}+/=_`, min: 40 },
  { rule: 'gcp-oauth', label: 'a Google OAuth client secret', prefixes: [['GOC', 'SPX-']], alphabet: URLSAFE, min: 28, max: 28 },
  { rule: 'atlassian', label: 'an Atlassian API token', prefixes: [['ATA', 'TT3']], alphabet: `${ALNUM}_=-`, min: 180 },
];

describe('provider token rules, at their edges', () => {
  for (const s of SHAPES) {
    describe(s.rule, () => {
      const token = (prefix: string[], n: number, seed = 1): string => j(...prefix, fake(seed, n, s.alphabet), s.suffix ?? '');

      it(`takes the shortest token between words, names it ${s.label}, and masks only the token`, () => {
        for (const [i, p] of s.prefixes.entries()) {
          const t = token(p, s.min, i + 1);
          only(`see ${t} here`, s.rule, s.label, t);
        }
      });

      it('takes it at the very start and end of a text', () => {
        const t = token(s.prefixes[0]!, s.min);
        only(t, s.rule, s.label, t);
        only(`${t}\n`, s.rule, s.label, t);
      });

      it('one character short is not a token', () => {
        for (const p of s.prefixes) notBy(`see ${token(p, s.min - 1)} here`, s.rule);
      });

      it('glued to a word before it, it is part of that word', () => {
        notBy(`see x${token(s.prefixes[0]!, s.min)} here`, s.rule);
        notBy(`see 7${token(s.prefixes[0]!, s.min)} here`, s.rule);
      });

      if (s.max !== undefined) {
        const max = s.max;
        it('takes the longest token, and not a longer run', () => {
          const t = token(s.prefixes[0]!, max);
          only(`see ${t} here`, s.rule, s.label, t);
          if (s.openEnd) {
            only(`see ${t}Z here`, s.rule, s.label, t);
          } else {
            notBy(`see ${t}Z here`, s.rule);
            notBy(`see ${t}7 here`, s.rule);
          }
        });
      } else {
        it('takes a long token whole', () => {
          const t = token(s.prefixes[0]!, s.min + 40);
          only(`see ${t} here`, s.rule, s.label, t);
        });
      }
    });
  }
});

/** Deterministic shuffle (the order of characters does not change their entropy). */
function shuffled(chars: string[], seed: number): string {
  const out = [...chars];
  const order = fake(seed, out.length * 4, '0123456789');
  for (let i = out.length - 1; i > 0; i--) {
    const k = Number(order.slice((i % (order.length / 4)) * 4, (i % (order.length / 4)) * 4 + 4)) % (i + 1);
    [out[i], out[k]] = [out[k]!, out[i]!];
  }
  return out.join('');
}

/** A Discord-bot-shaped token of exactly 4 bits of entropy per character (4 symbols twice, 12 four times, one 8 times). */
function fourBitBot(): string {
  const rest = [...'M'.repeat(7), ...'xxyyzz', ...[...'abcdefgh1234'].flatMap((c) => [c, c, c, c])];
  const body = shuffled(rest, 7);
  return j('M', body.slice(0, 23), '.', body.slice(23, 29), '.', body.slice(29));
}

describe('provider token rules with more than one part', () => {
  it('OpenAI-style keys: every prefix, named by vendor; a short one needs a digit, a long one does not', () => {
    const proj = j('sk', '-proj-', fake(1, 40, URLSAFE));
    only(`key ${proj} here`, 'openai', 'an OpenAI API key', proj);
    const ant = j('sk', '-ant-api03-', fake(2, 60, URLSAFE));
    only(`x ${ant} y`, 'openai', 'an Anthropic API key', ant);
    const or = j('sk', '-or-v1-', fake(3, 64, HEX));
    only(`x ${or} y`, 'openai', 'an OpenRouter API key', or);
    for (const p of ['live', 'test', 'svcacct', 'admin']) {
      const t = j('sk', `-${p}-`, fake(4, 30, URLSAFE));
      only(`x ${t} y`, 'openai', 'an OpenAI API key', t);
    }
    // Eight characters with a digit anywhere among them is the shortest key.
    for (const body of ['abcdefg1', 'a1bcdefg', '1abcdefg']) only(`x ${j('sk', '-', body)} y`, 'openai', 'an OpenAI API key', j('sk', '-', body));
    notBy(`x ${j('sk', '-', 'abcdef1')} y`, 'openai');
    // Without a digit, twenty characters; nineteen is a word such as a package name.
    const twenty = j('sk', '-', 'abcdefghij-klmnopqrs');
    only(`x ${twenty} y`, 'openai', 'an OpenAI API key', twenty);
    none(`x ${j('sk', '-', 'abcdefghij-klmnopqr')} y`);
    none(`pip install ${j('sk', '-learn-models')}`);
  });

  it('OpenAI-style keys do not start inside a word or after a dash', () => {
    none(`x ${j('ri', 'sk-', 'abcdefg123456789')} y`);
    none(`x ${j('7sk', '-', 'abcdefg123456789')} y`);
    none(`x ${j('a-sk', '-', 'abcdefg123456789')} y`);
  });

  it('a Slack webhook: its whole path is found (the maintained rules mask the whole URL too)', () => {
    const own = (text: string): [string, string, string][] => ruleHits(text).map((h) => [h.rule, h.label, text.slice(h.start, h.end)]);
    for (const kind of ['services', 'workflows', 'triggers']) {
      const path = j(kind, '/T', fake(5, 8, UPPER), '/B', fake(6, 10, UPPER), '/', fake(7, 24));
      const text = `curl https://hooks.slack.com/${path} -d x`;
      assert.deepEqual(own(text), [['slack-webhook', 'a Slack webhook URL', path]]);
      assert.ok(!redact(text).includes(path.slice(-24)), redact(text));
    }
    const shortest = j('services/', fake(8, 20, URLSAFE));
    assert.deepEqual(own(`POST hooks.slack.com/${shortest}`), [['slack-webhook', 'a Slack webhook URL', shortest]]);
    assert.deepEqual(own(`POST hooks.slack.com/${j('services/', fake(8, 19, URLSAFE))}`), []);
    assert.deepEqual(own(`POST hooks.slack.com/${j('help/', fake(8, 30, URLSAFE))}`), []);
  });

  it('a Discord webhook: the id and token after the path, on both hosts', () => {
    for (const host of ['discord.com', 'discordapp.com']) {
      const s = j(fake(9, 18, '0123456789'), '/', fake(10, 68, URLSAFE));
      only(`POST https://${host}/api/webhooks/${s}`, 'discord-webhook', 'a Discord webhook URL', s);
    }
    const shortest = j('12345/', fake(11, 30, URLSAFE));
    only(`POST https://discord.com/api/webhooks/${shortest} ok`, 'discord-webhook', 'a Discord webhook URL', shortest);
    notBy(`POST https://discord.com/api/webhooks/1234/${fake(11, 30, URLSAFE)} ok`, 'discord-webhook');
    notBy(`POST https://discord.com/api/webhooks/12345/${fake(11, 29, URLSAFE)} ok`, 'discord-webhook');
  });

  it('a Discord bot token: three parts, random, each part within its bounds', () => {
    const bot = (first: string, a: number, b: number, c: number): string =>
      j(first, fake(12, a, URLSAFE), '.', fake(13, b, URLSAFE), '.', fake(14, c, URLSAFE));
    for (const first of ['M', 'N', 'O']) {
      const t = bot(first, 23, 6, 27);
      only(`client.run(${t}) now`, 'discord-bot', 'a Discord bot token', t);
    }
    const longest = bot('M', 27, 6, 40);
    only(`run ${longest} now`, 'discord-bot', 'a Discord bot token', longest);
    notBy(`run ${bot('M', 22, 6, 27)} now`, 'discord-bot');
    notBy(`run ${bot('M', 23, 5, 27)} now`, 'discord-bot');
    notBy(`run ${bot('M', 23, 6, 26)} now`, 'discord-bot');
    notBy(`run ${bot('M', 23, 6, 41)} now`, 'discord-bot');
    notBy(`run ${bot('P', 23, 6, 27)} now`, 'discord-bot');
    notBy(`run x-${bot('M', 23, 6, 27)} now`, 'discord-bot');
    notBy(`run ${bot('M', 23, 6, 27).replace(/[0-9]/g, 'q')} now`, 'discord-bot');
    // A digit alone does not make it random: exactly 4 bits per character is not enough.
    notBy(`run ${j('M', 'a'.repeat(22), '1.bbbbbb.', 'c'.repeat(30))} now`, 'discord-bot');
    notBy(`run ${fourBitBot()} now`, 'discord-bot');
    // Dotted identifiers of that shape without digits or randomness are not tokens.
    notBy(`run ${j('M', 'a'.repeat(23), '.', 'b'.repeat(6), '.', 'c'.repeat(30))} now`, 'discord-bot');
  });

  it('a Telegram bot token: 8 to 10 digits, a colon, AA and 32 to 34 characters', () => {
    const tg = (digits: number, n: number): string => j(fake(15, digits, '123456789'), ':A', 'A', fake(16, n, URLSAFE));
    for (const [d, n] of [
      [8, 32],
      [10, 34],
    ] as const) {
      const t = tg(d, n);
      only(`bot ${t} sent`, 'telegram-bot', 'a Telegram bot token', t);
    }
    notBy(`bot ${tg(7, 33)} sent`, 'telegram-bot');
    notBy(`bot ${tg(8, 31)} sent`, 'telegram-bot');
    notBy(`bot ${tg(8, 35)} sent`, 'telegram-bot');
    notBy(`bot ${tg(8, 33)}-x sent`, 'telegram-bot');
  });

  it('a SendGrid key: SG, two dotted parts within their bounds', () => {
    const sg = (a: number, b: number): string => j('S', 'G.', fake(17, a, URLSAFE), '.', fake(18, b, URLSAFE));
    for (const [a, b] of [
      [16, 30],
      [22, 43],
      [32, 50],
    ] as const) {
      const t = sg(a, b);
      assert.deepEqual(found(`key ${t} set`)[0], ['sendgrid', 'a SendGrid API key', t]);
    }
    notBy(`key ${sg(15, 43)} set`, 'sendgrid');
    notBy(`key ${sg(22, 29)} set`, 'sendgrid');
    notBy(`key x${sg(22, 43)} set`, 'sendgrid');
  });

  it('a Twilio key: SK and 32 hex digits mixing digits and hex letters', () => {
    const t = j('S', 'K', fake(19, 32, HEX));
    only(`twilio ${t} set`, 'twilio', 'a Twilio API key', t);
    only(`twilio ${j('S', 'K', fake(19, 32, '0123456789ABCDEF'))} set`, 'twilio', 'a Twilio API key', j('S', 'K', fake(19, 32, '0123456789ABCDEF')));
    none(`twilio ${j('S', 'K', '1234567890'.repeat(3), '12')} set`);
    none(`twilio ${j('S', 'K', 'abcdef'.repeat(5), 'ab')} set`);
    none(`twilio ${j('S', 'K', fake(19, 31, HEX))} set`);
    none(`twilio ${j('S', 'K', fake(19, 33, HEX))} set`);
    none(`twilio x${t} set`);
  });

  it('a JWT: header, payload and signature, also without a signature', () => {
    const jwt = j('ey', 'JhbGciOiJIUzI1NiJ9.', 'ey', 'JzdWIiOiIxMjM0In0.', fake(20, 43, URLSAFE));
    only(`cookie ${jwt} set`, 'jwt', 'a JSON Web Token', jwt);
    const unsigned = j('ey', 'JhbGciOiJ.', 'ey', 'JzdWIiOiJ.');
    only(`cookie ${unsigned} set`, 'jwt', 'a JSON Web Token', unsigned);
    notBy(`cookie ${j('ey', 'JhbGciOi.', 'ey', 'JzdWIiOiJ.')} set`, 'jwt');
    notBy(`cookie ${j('ey', 'JhbGciOiJ.', 'ey', 'JzdWIiOi.')} set`, 'jwt');
    notBy(`cookie x${jwt} set`, 'jwt');
  });

  it('an Azure storage key: the value after AccountKey= or SharedAccessKey=, with its padding', () => {
    const padded = j(fake(21, 86, B64), '==');
    only(`DefaultEndpointsProtocol=https;AccountKey=${padded};EndpointSuffix=core`, 'azure-storage-key', 'an Azure storage account key', padded);
    const bare = fake(22, 30, B64);
    only(`Endpoint=sb://ns/;SharedAccessKey=${bare};x`, 'azure-storage-key', 'an Azure storage account key', bare);
    const one = j(fake(23, 43, B64), '=');
    only(`x accountkey=${one} y`, 'azure-storage-key', 'an Azure storage account key', one);
    notBy(`x AccountKey=${fake(22, 29, B64)};y`, 'azure-storage-key');
    notBy(`x MyAccountKey=${fake(22, 40, B64)};y`, 'azure-storage-key');
  });

  it('an Azure SAS signature: the sig value, with its URL-encoded padding', () => {
    for (const [sep, pad] of [
      ['?', ''],
      ['&', '%3D'],
      [';', '%3D%3D'],
      ['&', '='],
    ] as const) {
      const sig = j(fake(24, 43, `${ALNUM}%`), pad);
      only(`https://a.blob.core.windows.net/c/b?sv=1${sep}sig=${sig} ok`, 'azure-sas', 'an Azure SAS signature', sig);
    }
    notBy(`https://a.blob.core.windows.net/c/b?sv=1&sig=${fake(24, 29, ALNUM)} ok`, 'azure-sas');
    notBy(`https://a.blob.core.windows.net/c/b?sv=1&xsig=${fake(24, 43, ALNUM)} ok`, 'azure-sas');
  });

  it('a Mailchimp key: 32 hex digits and a data-centre suffix of one or two digits', () => {
    for (const dc of ['-us1', '-us14']) {
      const t = j(fake(25, 32, HEX), dc);
      only(`MC ${t} set`, 'mailchimp', 'a Mailchimp API key', t);
    }
    notBy(`MC ${j(fake(25, 32, HEX), '-us123')} set`, 'mailchimp');
    notBy(`MC ${j(fake(25, 31, HEX), '-us1')} set`, 'mailchimp');
    notBy(`MC ${j(fake(25, 32, HEX), '-us1x')} set`, 'mailchimp');
  });

  it('a Postman key: PMAK, 24 and 34 hex digits', () => {
    const t = j('PM', 'AK-', fake(26, 24, HEX), '-', fake(27, 34, HEX));
    only(`postman ${t} set`, 'postman', 'a Postman API key', t);
    notBy(`postman ${t}f set`, 'postman');
    notBy(`postman ${j('PM', 'AK-', fake(26, 23, HEX), '-', fake(27, 34, HEX))} set`, 'postman');
  });

  it('a Databricks token may carry a one-digit suffix', () => {
    const t = j('da', 'pi', fake(28, 32, HEX), '-2');
    only(`databricks ${t} set`, 'databricks', 'a Databricks token', t);
    const plain = j('da', 'pi', fake(28, 32, HEX));
    only(`databricks ${plain}-x set`, 'databricks', 'a Databricks token', plain);
  });

  it('a Vault token: hvs./hvb. with 24 or more characters, or a legacy s. with exactly 24, with a digit', () => {
    for (const p of ['hvs.', 'hvb.']) {
      const t = j(p.slice(0, 2), p.slice(2), fake(29, 24, URLSAFE));
      only(`vault ${t} set`, 'vault', 'a HashiCorp Vault token', t);
      notBy(`vault ${j(p.slice(0, 2), p.slice(2), fake(29, 23, URLSAFE))} set`, 'vault');
    }
    const legacy = j('s', '.', fake(30, 24));
    only(`vault ${legacy} set`, 'vault', 'a HashiCorp Vault token', legacy);
    notBy(`vault ${j('s', '.', fake(30, 25))} set`, 'vault');
    notBy(`vault ${j('s', '.', fake(30, 23))} set`, 'vault');
    notBy(`vault x${legacy} set`, 'vault');
    notBy(`vault ${j('hv', 's.', 'abcdefghijklmnopqrstuvwxyz')} set`, 'vault');
    notBy(`it's ${j('s', '.', 'abcdefghijklmnopqrstuvwx')} done`, 'vault');
  });

  it('a Grafana token: glsa_ with 32 and 8 hex, or glc_ with 32 or more and padding', () => {
    const sa = j('gl', 'sa_', fake(31, 32), '_', fake(32, 8, HEX));
    only(`grafana ${sa} set`, 'grafana', 'a Grafana token', sa);
    notBy(`grafana ${j('gl', 'sa_', fake(31, 32), '_', fake(32, 7, HEX))} set`, 'grafana');
    notBy(`grafana x${sa} set`, 'grafana');
    for (const pad of ['', '=', '==']) {
      const glc = j('gl', 'c_', fake(33, 32, B64), pad);
      only(`grafana ${glc} set`, 'grafana', 'a Grafana token', glc);
    }
    notBy(`grafana ${j('gl', 'c_', fake(33, 31, B64))} set`, 'grafana');
  });
});

describe('key = value', () => {
  const kv = (text: string, label: string, secret: string): void => only(text, 'key-value', label, secret);

  it('names the kind of value by its key', () => {
    kv('DB_PASSWORD=hunter2x', 'a password', 'hunter2x');
    kv('db_passwd=hunter2x', 'a password', 'hunter2x');
    kv('gpg_passphrase=hunter2x', 'a password', 'hunter2x');
    kv('db_pwd=hunter2x', 'a password', 'hunter2x');
    kv('PRIVATE_KEY=abc123x', 'a private key', 'abc123x');
    kv('private-key=abc123x', 'a private key', 'abc123x');
    kv('privatekey=abc123x', 'a private key', 'abc123x');
    kv('API_KEY=abc123x', 'an API key', 'abc123x');
    kv('api-key=abc123x', 'an API key', 'abc123x');
    kv('apikey=abc123x', 'an API key', 'abc123x');
    kv('ACCESS_KEY=abc123x', 'an access key', 'abc123x');
    kv('access-key=abc123x', 'an access key', 'abc123x');
    kv('accesskey=abc123x', 'an access key', 'abc123x');
    kv('GITHUB_TOKEN=abc123x', 'a token', 'abc123x');
    kv('client_secret=abc123x', 'a secret', 'abc123x');
    kv('credentials=abc123x', 'a credential', 'abc123x');
    kv('signing_key=abc123x', 'a key', 'abc123x');
    kv('auth=abc123x', 'a key', 'abc123x');
  });

  it('PWD and OLDPWD are directories; another key ending or starting in pwd is not', () => {
    none('PWD=/work/repo');
    none('oldpwd=/work/repo');
    kv('db_pwd=/s3cret', 'a password', '/s3cret');
    kv('PWD_VALUE=s3cret', 'a password', 's3cret');
  });

  it('placeholders are not values: masks, empty, stars, x-es, ellipses, templates, format specifiers, words', () => {
    for (const v of ['"[REDACTED]"', '""', '"***"', 'xxx', 'XXXXX', '"..."', '"…"', '"<your password>"', '"<>"', '${PW}', '$PW', '"%s"', '"%d"', '"%(pw)s"', '"{{ pw }}"', '"{{}}"', 'null', 'None', 'changeme']) {
      none(`password=${v}`);
    }
  });

  it('a value that merely contains or resembles a placeholder is a value', () => {
    for (const v of ['x', 'X', 'xx', 'p4ssword', 'nothing2hide', 'hunter2none', '$1abc']) kv(`password=${v} done`, 'a password', v);
    kv('password: "." done', 'a password', '.');
    kv('password: "<a>b" done', 'a password', '<a>b');
    kv('password: "a<b>" done', 'a password', 'a<b>');
    kv('password: "%%" done', 'a password', '%%');
    kv('password: "%s%s" done', 'a password', '%s%s');
    kv('password: "%(pw)sx" done', 'a password', '%(pw)sx');
    // A quote left open on its line: the value stops at the line's end.
    kv('password: "{{a\nb}}" done', 'a password', '{{a');
    kv('password: "abc{{x}}d" done', 'a password', 'abc{{x}}d');
    kv(`psql '--password=nu"ll' -h db`, 'a password', 'nu"ll');
    kv(`psql '--password=nu"' -h db`, 'a password', 'nu"');
  });

  it('a quoted value: double, single, back quotes, escaped JSON; escapes inside double quotes only; cut-off ones run to the end', () => {
    kv('password: "ab\\"cd" x', 'a password', 'ab\\"cd');
    kv("password: 'ab\\' x", 'a password', 'ab\\');
    kv('password=`abc` x', 'a password', 'abc');
    kv('{\\"password\\": \\"abc123\\", \\"user\\": \\"me\\"}', 'a password', 'abc123');
    kv('{\\"password\\": \\"abc123', 'a password', 'abc123');
    kv('password: "abc\\', 'a password', 'abc\\');
    kv("psql '--password=abc", 'a password', 'abc');
    kv('password: "abc', 'a password', 'abc');
  });

  it('no value: nothing after the key, a separator, an empty argv element, only quotes', () => {
    none('password= ');
    none('password=;');
    none('password=.. ok');
    none("psql '--password=' -h db");
    none('password: "\'"');
    none(`password: "'null'"`);
  });

  it("an .npmrc's /:_authToken= is a key; a::b scopes are not", () => {
    kv('//registry.example/:_authToken=00000000-aaaa-1111-bbbb-222222222222', 'a token', '00000000-aaaa-1111-bbbb-222222222222');
    kv('//registry.example/:_password=cGFzc3dvcmQ=', 'a password', 'cGFzc3dvcmQ=');
    none('tests/test_a.py::test_token = x1');
    kv('tests/test_a.py::test_token -- token = x1', 'a token', 'x1');
    kv('run::--token=abc123', 'a token', 'abc123');
    kv('scope:token=abc123', 'a token', 'abc123');
  });

  it('a JSON text cut inside its key still has the value masked, at the start of the text or of a line', () => {
    kv('b_password": "hunter2"}', 'a password', 'hunter2');
    kv("log tail\nword_password': 'hunter2'", 'a password', 'hunter2');
  });

  it('a closing quote after prose is a string table, not a cut key', () => {
    none('{"Reset password": "click here"}');
    none('"Forgot password": "Forgot your password?"');
  });

  it('a backslash starts an escaped-JSON value only before a double quote', () => {
    kv('password=\\abc1 x', 'a password', '\\abc1');
    kv('sh -c "export PIN_PASSWORD=7"', 'a password', '7');
  });

  it("the shell's '\\'' joins single-quoted parts only", () => {
    kv(`password="ab"\\''cd' x`, 'a password', 'ab');
  });

  it('a quoted key is a key after anything; mismatched quotes around a key are prose', () => {
    kv('std::"token": "abc123"', 'a token', 'abc123');
    none(`say "password' = abc123`);
  });

  it('key:value without a space is a label, unless the value or the key is quoted', () => {
    none('password:abc123');
    kv('password:"abc123"', 'a password', 'abc123');
    kv('{"pin_password":12345678}', 'a password', '12345678');
  });

  it('a quoted argv element holding a flag and its value, also in escaped JSON', () => {
    kv("psql '--password hunter2' -h db", 'a password', 'hunter2');
    kv('x "--password hunter2" y', 'a password', 'hunter2');
    kv('[\\"--password=abc123\\", \\"-h\\"]', 'a password', 'abc123');
  });

  it('a trailing period or colon ends the sentence, not the value; inner ones belong to it', () => {
    kv('password=hunter2.. Then', 'a password', 'hunter2');
    kv('password=hunter2: next', 'a password', 'hunter2');
    kv('password=ab.cd3 next', 'a password', 'ab.cd3');
    kv('password=ab:cd3 next', 'a password', 'ab:cd3');
  });

  it('calls, indexes and member paths are code; a value that only looks like one is a value', () => {
    none('password = get_password()');
    none('token = tokens[0]');
    none('token = cfg.api.token');
    kv('password = p@ss.word', 'a password', 'p@ss.word');
    kv('password = open.sesame! x', 'a password', 'open.sesame!');
    kv('password = v1.api.key2', 'a password', 'v1.api.key2');
    kv("psql '--password=get(x)' -h db", 'a password', 'get(x)');
    kv('password=hunter2 (see the docs)', 'a password', 'hunter2');
    kv('password=hunter2, token[0]', 'a password', 'hunter2');
  });

  it('an aligned config file: any padding between the key and its separator', () => {
    kv(`password${' '.repeat(12)}= hunter2`, 'a password', 'hunter2');
    kv(`api_token${' '.repeat(40)}: "abc123"`, 'a token', 'abc123');
    kv(`DB_PASSWORD\t\t\t\t\t\t\t\t\t= hunter2`, 'a password', 'hunter2');
  });

  it('a flag and its value: one or more spaces between them', () => {
    kv('mysql --password  hunter2 -u root', 'a password', 'hunter2');
    kv('mysql --password\thunter2 -u root', 'a password', 'hunter2');
    none('mysql --password -u root');
    none('mysql --password');
  });

  it('a (key, value) tuple or argv pair, however spaced', () => {
    kv('("password", "hunter2")', 'a password', 'hunter2');
    kv('("password" , "hunter2")', 'a password', 'hunter2');
    kv('("password","hunter2")', 'a password', 'hunter2');
    kv('("password",  "hunter2")', 'a password', 'hunter2');
    kv("['--token', 'abc123']", 'a token', 'abc123');
    none('("password", hunter2)');
    none('print("token", x, "abc")');
    none('(password, "hunter2")');
  });
});

describe('credentials in a URL', () => {
  it('the password between user: and @host, whatever the scheme', () => {
    for (const url of ['postgres://app:pa55w0rd@db', 'redis://:pa55w0rd@cache:6379', 'ftp:/app:pa55w0rd@host', 'git+ssh:///app:pa55w0rd@host']) {
      assert.deepEqual(
        found(`connect ${url} now`).map(([, , s]) => s),
        ['pa55w0rd'],
        url,
      );
    }
    assert.deepEqual(found('x https://app:pa55w0rd@[::1]:80/ y').map(([, , s]) => s), ['pa55w0rd']);
  });

  it('not a user alone, an e-mail address in a path, or a scheme glued to a word', () => {
    none('x https://app@db/x y');
    none('see https://example.com/u/me@example.com');
    none('x https://app:pa55w0rd@ y');
  });
});

describe('Authorization headers and auth schemes', () => {
  const header = (text: string, secret: string): void => only(text, 'authorization-header', 'an Authorization header credential', secret);

  it('the credential after Authorization, with or without a scheme, however spaced', () => {
    header('Authorization: Negotiate YIIabc123', 'YIIabc123');
    header('Authorization : Negotiate YIIabc123', 'YIIabc123');
    header('Authorization:Negotiate YIIabc123', 'YIIabc123');
    header('Authorization=Digest YIIabc123', 'YIIabc123');
    header('Authorization: Negotiate  YIIabc123', 'YIIabc123');
    header('Proxy-Authorization: "Negotiate YIIabc123"', 'YIIabc123');
    header('authorization: YIIabc123', 'YIIabc123');
  });

  it('a bearer token: one or more spaces, twenty characters or a digit, and at least one letter', () => {
    const scheme = (text: string, secret: string): void => only(text, 'auth-scheme', 'a bearer token', secret);
    scheme('sent Bearer abcdef12 up', 'abcdef12');
    scheme('sent Bearer  abcdef12 up', 'abcdef12');
    scheme('sent Basic 1abcdefg up', '1abcdefg');
    scheme('sent Bot abcdefghijklmnopqrst up', 'abcdefghijklmnopqrst');
    none('sent Bearer abcdefghijklmnopqrs up');
    none('sent Bearer abcdef1 up');
    none('sent Bearer 1234567890 up');
    none('sent Token 12345678901234567890 up');
  });
});

describe('private keys', () => {
  const B64ONLY = `${ALNUM}+/`;
  it('masks the key material after the BEGIN line, keeps that line', () => {
    const body = j(fake(40, 64, B64ONLY), '\n', fake(41, 20, B64ONLY));
    const text = `-----BEGIN ENCRYPTED PRIVATE KEY-----\n${body}\n-----END ENCRYPTED PRIVATE KEY-----\nok`;
    const out = redact(text);
    assert.ok(!out.includes(body.slice(0, 16)) && !out.includes(body.slice(-16)), out);
    assert.equal(out, '-----BEGIN ENCRYPTED PRIVATE KEY-----[REDACTED]\nok');
  });

  it('a block with no key material in it is not a key', () => {
    none('-----BEGIN RSA PRIVATE KEY-----');
    none('x -----BEGIN RSA PRIVATE KEY-----\n');
    none('-----BEGIN ENCRYPTED PRIVATE KEY-----\n-----END ENCRYPTED PRIVATE KEY-----');
    none('-----BEGIN OPENSSH PRIVATE KEY-----\n[REDACTED]\n-----END OPENSSH PRIVATE KEY-----');
  });

  it('names a PGP block', () => {
    const body = fake(42, 64, B64ONLY);
    const text = `-----BEGIN PGP PRIVATE KEY BLOCK-----\n${body}\n-----END PGP PRIVATE KEY BLOCK-----`;
    assert.deepEqual(
      found(text).map(([, label]) => label),
      ['a PGP private key'],
    );
  });
});

describe('a keyword in prose followed by a random value', () => {
  const prose = (text: string, secret: string): void => only(text, 'keyword-entropy', 'a high-entropy secret', secret);
  const v = (seed: number): string => fake(seed, 24);

  it('after each keyword and each way of joining them', () => {
    for (const k of ['token', 'secret', 'password', 'passphrase', 'api key', 'api_key', 'apikey', 'access key', 'access-key', 'accesskey', 'credential', 'tokens']) {
      prose(`the ${k} ${v(50)} works`, v(50));
    }
    for (const joint of ['is ', 'was ', 'of ', '= ', 'is  ', 'was  ', 'of  ', '=  ', '=', ' ']) prose(`the api key ${joint}${v(51)} works`, v(51));
    prose(`the api key  ${v(52)} works`, v(52));
    prose(`the api key is "${v(53)}" works`, v(53));
  });

  it('a random value may hold dots and slashes', () => {
    prose('the token Ab3dE5.gH7jK9mN1pQ3sT works', 'Ab3dE5.gH7jK9mN1pQ3sT');
    prose('the token Zq8Xw3/k9m2p7r4t1v6b works', 'Zq8Xw3/k9m2p7r4t1v6b');
    prose('the token k9m2p7r4/ZQ8XW3JT5BNab works', 'k9m2p7r4/ZQ8XW3JT5BNab');
  });

  it('exactly 3.5 bits per character is random enough', () => {
    const v = shuffled([...'aaaabbbbccccdddd', ...'1122334455667788'], 3);
    prose(`the token ${v} works`, v);
  });

  it('not a file name, a lower-case path, a number, a word or a short value', () => {
    none('the token Ab3dE5gH7jK9mN1pQ3sT.md works');
    none('the token Ab3dE5gH7jK9mN1pQ3sT.s works');
    none('the token packages/core3/dist/esm works');
    none('the api key is 12+34/56=78.90-13_57+24');
    none('the api key is abcdefghijklmnopqrstuvwxyz');
    none('the api key is 1111111111aaaaaaaaaa');
    none('the api key is Ab3dE5gH7jK9mN1pQ3s');
  });
});

describe('the maintained rules (secretlint), driven on a text', () => {
  const base64Json = (o: object): string => Buffer.from(JSON.stringify(o)).toString('base64');
  /** A 1Password service-account token: `ops_` and base64 JSON whose encoding ends in `fQ` (a lone `}`). */
  function onePassword(): string {
    for (let pad = 0; ; pad++) {
      const b = base64Json({ email: 'x@example.invalid', secretKey: fake(60, 80), p: 'p'.repeat(pad) });
      if (b.endsWith('fQ==')) return j('op', 's_', b);
    }
  }
  const SAMPLES: [id: string, label: string, token: string][] = [
    ['npm', 'an npm access token', j('np', 'm_', fake(61, 36))],
    ['slack', 'a Slack token', j('xo', 'xb-', fake(62, 12, '0123456789'), '-', fake(63, 24))],
    ['sendgrid', 'a SendGrid API key', j('S', 'G.', fake(64, 22), '.', fake(65, 43))],
    ['shopify', 'a Shopify access token', j('shp', 'at_', fake(66, 32))],
    ['github', 'a GitHub token', j('gh', 'p_', fake(67, 36))],
    ['gitlab', 'a GitLab token', j('gl', 'pat-', fake(68, 20))],
    ['grafana', 'a Grafana token', j('gl', 'c_', fake(69, 40))],
    ['openai', 'an OpenAI API key', j('sk-', 'proj-', fake(70, 74, URLSAFE), 'T3Blbk', 'FJ', fake(71, 74, URLSAFE))],
    ['anthropic', 'an Anthropic API key', j('sk-', 'ant-api03-', fake(72, 93, URLSAFE), 'AA')],
    ['groq', 'a Groq API key', j('gs', 'k_', fake(73, 52))],
    ['huggingface', 'a Hugging Face token', j('hf', '_', fake(74, 34, 'abcdefghijklmnopqrstuvwxyzABCDEFGH'))],
    ['linear', 'a Linear API key', j('lin', '_api_', fake(75, 40))],
    ['notion', 'a Notion token', j('nt', 'n_', fake(76, 11, '0123456789'), fake(77, 35))],
    ['1password', 'a 1Password service account token', onePassword()],
    ['hashicorp-vault', 'a HashiCorp Vault token', j('hv', 's.', fake(78, 95, URLSAFE))],
    ['vercel', 'a Vercel token', j('vc', 'p_', fake(79, 24))],
    ['databricks', 'a Databricks token', j('da', 'pi', fake(80, 32, HEX))],
    ['docker', 'a Docker registry password', j('dck', 'r_pat_', fake(81, 27, URLSAFE))],
    ['figma', 'a Figma token', j('fi', 'gd_', fake(82, 40, URLSAFE))],
    ['privatekey', 'a private key', j('-----BEGIN RSA PRIVATE KEY-----\nMII', fake(83, 150, B64), '\n-----END RSA PRIVATE KEY-----')],
    ['database-connection-string', 'a database password', `mongodb://app:${fake(84, 12)}@db.example:27017/app`],
    ['basicauth', 'a password in a URL', `https://user:${fake(85, 12)}@example.com`],
  ];

  for (const [id, label, token] of SAMPLES) {
    it(`${id}: reports the token's span and names it ${label}`, () => {
      const text = `see ${token} here`;
      assert.deepEqual(
        libraryHits(text).map((h) => [h.rule, h.label, text.slice(h.start, h.end)]),
        [[`secretlint/${id}`, label, token]],
      );
    });
  }

  it('uses exactly the rules sampled here, each naming its kind: not filter-comments, nor gcp (files only)', () => {
    assert.deepEqual([...libraryRuleIds()].sort(), [...SAMPLES.map(([id]) => `secretlint/${id}`), 'secretlint/aws'].sort());
  });

  it('an AWS secret access key: the range is the key itself, not the key name before it, however far apart', () => {
    const key = fake(86, 40);
    const aligned = `AWS_SECRET_ACCESS_KEY${' '.repeat(30)}= ${key}`;
    for (const text of [`aws_secret_access_key = ${key}`, `export AWS_SECRET_ACCESS_KEY="${key}" && run`, `{"secret_access_key": "${key}"}`, aligned]) {
      assert.deepEqual(
        libraryHits(text).map((h) => [h.rule, h.label, text.slice(h.start, h.end)]),
        [['secretlint/aws', 'an AWS secret access key', key]],
        text,
      );
    }
    assert.equal(redact(aligned), aligned.replace(key, '[REDACTED]'));
  });

  it('is read as text, not as an .npmrc or package.json: an _authToken value ends where the value ends', () => {
    const text = `//registry.example/:_authToken=${fake(87, 12)} # set by CI`;
    assert.deepEqual(libraryHits(text), []);
    assert.equal(redact(text), '//registry.example/:_authToken=[REDACTED] # set by CI');
    const oauth = `https://${fake(88, 20)}:x-oauth-basic@github.com/o/r`;
    assert.deepEqual(
      libraryHits(oauth).map((h) => h.rule),
      ['secretlint/basicauth'],
    );
  });

  it('nothing in ordinary text, and each text on its own (no hit carried over)', () => {
    assert.deepEqual(libraryHits('npm run build && git push'), []);
    const gh = j('gh', 'p_', fake(89, 36));
    assert.equal(libraryHits(`a ${gh}`).length, 1);
    assert.deepEqual(libraryHits('b'), []);
    assert.deepEqual(libraryHits(''), []);
  });
});

describe('the rule list', () => {
  it('names every rule a hit can come from', () => {
    const texts = [
      ...SHAPES.map((sh) => j(...sh.prefixes[0]!, fake(1, sh.min, sh.alphabet))),
      j('sk', '-proj-', fake(1, 40, URLSAFE)),
      j('https://hooks.slack.com/services/', fake(2, 30)),
      j('https://discord.com/api/webhooks/12345/', fake(3, 40, URLSAFE)),
      j('M', fake(12, 23, URLSAFE), '.', fake(13, 6, URLSAFE), '.', fake(14, 27, URLSAFE)),
      j(fake(15, 10, '123456789'), ':A', 'A', fake(16, 33, URLSAFE)),
      j('S', 'G.', fake(17, 22, URLSAFE), '.', fake(18, 43, URLSAFE)),
      j('S', 'K', fake(19, 32, HEX)),
      j('ey', 'JhbGciOiJ.', 'ey', 'JzdWIiOiJ.'),
      j('AccountKey=', fake(21, 40, B64)),
      j('?sig=', fake(24, 43)),
      j(fake(25, 32, HEX), '-us1'),
      j('PM', 'AK-', fake(26, 24, HEX), '-', fake(27, 34, HEX)),
      j('hv', 's.', fake(29, 24, URLSAFE)),
      j('gl', 'sa_', fake(31, 32), '_', fake(32, 8, HEX)),
      'password=hunter2x',
      'postgres://app:pa55w0rd@db',
      'Authorization: Negotiate YIIabc123',
      'sent Bearer abcdef12 up',
      j('-----BEGIN RSA PRIVATE KEY-----\n', fake(40, 64, B64)),
      j('the api key is ', fake(50, 24)),
      j('AA', 'AA', fake(51, 7, URLSAFE), ':', 'APA', '91b', fake(52, 134, URLSAFE)),
      j('https://x.webhook.office.com/webhookb2/', fake(53, 40, HEX), '@', fake(54, 36, HEX)),
      j('https://', fake(55, 40, HEX), '@github.com/o/r'),
      j('Private-Lines: 1\n', fake(56, 64, B64), '\n'),
      'curl -u admin:hunter2 https://x',
      j('https://api.day.app/', fake(57, 22), '/x'),
      j("echo '", fake(58, 10), "' | sudo -S true"),
      j('echo "root:', fake(59, 10), '" | chpasswd'),
      j('echo -e "', fake(60, 10), '\\n', fake(60, 10), '" | passwd'),
      j('nmcli dev wifi connect Home password ', fake(61, 10)),
      j("askpass.sh:\necho '", fake(62, 10), "'\n"),
      j('expect "Password:"\nsend "', fake(63, 10), '\\r"'),
      j('the password is ', fake(64, 8, 'abcdefgh'), '42'),
    ];
    const seen = new Set(texts.flatMap((t) => ruleHits(`see ${t} here`).map((h) => h.rule)));
    assert.deepEqual([...seen].filter((id) => !OWN_RULE_IDS.includes(id)), []);
    assert.deepEqual(OWN_RULE_IDS.filter((id) => !seen.has(id)), []);
  });
});
