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
  create(context: unknown, options: unknown): { file?: (source: unknown) => unknown };
}

/**
 * Human names of what each upstream rule finds (the hit's `label`). The `gcp` rule has none: it reads
 * only `.json` and `.p12` files, never a text (a service-account JSON's key is a PEM block, found as one).
 */
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
 * `filter-comments` is left out on purpose: it honours `secretlint-disable` comments, and text from an
 * agent's log must not be able to switch redaction off.
 */
const SKIP = new Set(['filter-comments']);

let hits: RawHit[] = [];
let current = '';

/**
 * The span of the reported secret. Some upstream rules report the match's start with the secret's
 * length (so the range can fall on the key name and leave the secret's tail out); the message data
 * carries the secret itself, so it is located in the text when it can be.
 */
function spanOf(range: readonly [number, number], data: unknown): [number, number] {
  const values = data && typeof data === 'object' ? Object.values(data as Record<string, unknown>) : [];
  for (const v of values) {
    if (typeof v !== 'string' || v.length < 8) continue;
    const at = current.indexOf(v, range[0]);
    if (at !== -1 && at <= range[1]) return [at, at + v.length];
  }
  return [range[0], range[1]];
}

function contextFor(rule: string) {
  return {
    sharedOptions: {},
    createTranslator: () => (key: string, data?: unknown) => ({ key, data }),
    report: (d: { range?: readonly [number, number]; message?: { data?: unknown } }) => {
      const r = d.range;
      if (!r || r[1] <= r[0]) return;
      const [start, end] = spanOf(r, d.message?.data);
      hits.push({ rule: `secretlint/${rule}`, label: LABELS[rule] ?? 'a credential', start, end });
    },
    ignore: () => undefined,
  };
}

type Handler = (source: unknown) => unknown;
let handlers: { id: string; file: Handler }[] | null = null;

function load(): { id: string; file: Handler }[] {
  if (handlers) return handlers;
  const rules = ((preset as unknown as { creator: { rules: LintRule[] } }).creator?.rules ?? []) as LintRule[];
  handlers = [];
  for (const rule of rules) {
    const id = rule.meta.id.replace(/^@secretlint\/secretlint-rule-/, '');
    if (SKIP.has(id)) continue;
    const h = rule.create(contextFor(id), {});
    if (h.file) handlers.push({ id, file: h.file.bind(h) });
  }
  return handlers;
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
      const r = h.file(source) as { then?: unknown } | undefined;
      // An asynchronous rule would report into a later text's ranges: drop it.
      if (r && typeof r.then === 'function') handlers = (handlers ?? []).filter((x) => x !== h);
    } catch {
      // a rule that cannot handle this text finds nothing in it
    }
  }
  const out = hits;
  hits = [];
  current = '';
  return out;
}

/** The ids of the upstream rules in use, for the benchmark and the tests. */
export function libraryRuleIds(): string[] {
  return load().map((h) => `secretlint/${h.id}`);
}
