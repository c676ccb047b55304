/**
 * The maintained part of the detector: secretlint's recommended rule preset
 * (`@secretlint/secretlint-rule-preset-recommend`, MIT, by azu and contributors), whose provider rules
 * are kept up to date upstream. Its rules are plain objects with a `create(context)` that returns a
 * synchronous `file(source)` handler reporting ranges, so they are driven here directly — one call per
 * text, no file system, no async runner — and their ranges become {@link RawHit}s.
 */
import * as preset from '@secretlint/secretlint-rule-preset-recommend';
import type { RawHit } from './rules';

interface LintRule {
  meta: { id: string };
  create(context: unknown, options: unknown): { file: (source: unknown) => unknown };
}

/** Human names of what each upstream rule finds (the hit's `label`). */
const LABELS: Record<string, string> = {
  aws: 'an AWS secret access key',
  privatekey: 'a private key',
  npm: 'an npm access token',
  basicauth: 'a password in a URL',
  slack: 'a Slack token',
  sendgrid: 'a SendGrid API key',
  shopify: 'a Shopify access token',
  github: 'a GitHub token',
  gitlab: 'a GitLab token',
  grafana: 'a Grafana token',
  openai: 'an OpenAI API key',
  anthropic: 'an Anthropic API key',
  groq: 'a Groq API key',
  huggingface: 'a Hugging Face token',
  linear: 'a Linear API key',
  notion: 'a Notion token',
  '1password': 'a 1Password service account token',
  'database-connection-string': 'a database password',
  'hashicorp-vault': 'a HashiCorp Vault token',
  vercel: 'a Vercel token',
  databricks: 'a Databricks token',
  docker: 'a Docker registry password',
  figma: 'a Figma token',
};

/**
 * Every upstream rule is used but these: `gcp` reads only `.json` and `.p12` files, never a text (a
 * service-account JSON's key is a PEM block, found as one); `filter-comments`, on purpose, honours
 * `secretlint-disable` comments, and text from an agent's log must not be able to switch redaction off.
 * A rule a newer preset adds is used at once, named as a credential until it has a label here.
 */
const SKIP = new Set(['gcp', 'filter-comments']);

/** The hits of the text being read, and that text. */
let hits: RawHit[];
let current: string;

/**
 * The span of the reported secret. Some upstream rules report the match's start with the secret's
 * length (so the range can fall on the key name and leave the secret out, however far after the key
 * it is); the message data carries the matched secret itself, so it is located from the range's start.
 */
function spanOf(range: readonly [number, number], data: Record<string, unknown> = {}): [number, number] {
  for (const v of Object.values(data)) {
    const secret = String(v);
    const at = current.indexOf(secret, range[0]);
    // Stryker disable next-line ConditionalExpression,UnaryOperator: the data of every upstream message is the matched text, which is always found
    if (at !== -1) return [at, at + secret.length];
  }
  // Stryker disable next-line ArrayDeclaration: not reached (see above)
  return [range[0], range[1]];
}

function contextFor(rule: string, label: string) {
  return {
    sharedOptions: {},
    createTranslator: () => (key: string, data?: unknown) => ({ key, data }),
    report: (d: { range: readonly [number, number]; message: { data?: Record<string, unknown> } }) => {
      const [start, end] = spanOf(d.range, d.message.data);
      hits.push({ rule: `secretlint/${rule}`, label, start, end });
    },
    ignore: () => undefined,
  };
}

type Handler = (source: unknown) => unknown;
let handlers: { id: string; file: Handler }[] | undefined;

function load(): { id: string; file: Handler }[] {
  return (handlers ??= create());
}

function create(): { id: string; file: Handler }[] {
  const out: { id: string; file: Handler }[] = [];
  for (const rule of (preset as unknown as { creator: { rules: LintRule[] } }).creator.rules) {
    const id = rule.meta.id.replace('@secretlint/secretlint-rule-', '');
    if (SKIP.has(id)) continue;
    // Stryker disable next-line LogicalOperator,StringLiteral: every rule of the current preset has a label; the fallback names a rule a newer one adds
    const h = rule.create(contextFor(id, LABELS[id] ?? 'a credential'), {});
    out.push({ id, file: h.file.bind(h) });
  }
  return out;
}

/**
 * Every range the upstream rules report in `text`. The handlers are synchronous for text content; a
 * rule that throws on odd input is skipped for that text rather than failing the redaction.
 */
export function libraryHits(text: string): RawHit[] {
  hits = [];
  current = text;
  // A file name that is neither an .npmrc nor a package.json: the npm rule's whole-line checks for
  // those files stay off (the key = value rule masks such values, and only them).
  const source = { content: text, filePath: 'input.txt' };
  for (const h of load()) {
    try {
      const r = h.file(source);
      // An asynchronous rule would report into a later text's ranges: drop it. (No rule of the preset is
      // one on a text; this guards an upstream change.)
      // Stryker disable next-line all: not reachable with the current preset
      if (r instanceof Promise) handlers = load().filter((x) => x !== h);
    } catch {
      // a rule that cannot handle this text finds nothing in it
    }
  }
  return hits;
}

/** The ids of the upstream rules in use, for the benchmark and the tests. */
export function libraryRuleIds(): string[] {
  return load().map((h) => `secretlint/${h.id}`);
}
