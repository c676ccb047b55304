/**
 * One model table for every reader: model id → context window and largest output. An agent that does
 * not store its window in the session (Cline, Roo Code, Kilo Code take it from the model selected in
 * their settings) gets it from here; a model that is not listed is reported as unknown, never guessed.
 */

export interface ModelInfo {
  /** The table entry that matched (the id without provider prefix, date or variant suffix). */
  id: string;
  /** Context window in tokens. */
  contextWindow: number;
  /** The model's largest output in tokens. */
  maxTokens: number;
  /** A Claude model with extended thinking (Roo Code reserves 8 192 output tokens for it without a reasoning budget). */
  hybridReasoning: boolean;
}

interface Entry {
  /** Matched against the start of the normalized id; the longest match wins. */
  prefix: string;
  contextWindow: number;
  maxTokens: number;
  hybridReasoning?: boolean;
}

// Published figures of the providers. Keep this table short and sure: a wrong window is worse than none.
const TABLE: readonly Entry[] = [
  { prefix: 'claude-opus-4-1', contextWindow: 200_000, maxTokens: 32_000, hybridReasoning: true },
  { prefix: 'claude-opus-4', contextWindow: 200_000, maxTokens: 32_000, hybridReasoning: true },
  { prefix: 'claude-sonnet-4-5', contextWindow: 200_000, maxTokens: 64_000, hybridReasoning: true },
  { prefix: 'claude-sonnet-4', contextWindow: 200_000, maxTokens: 64_000, hybridReasoning: true },
  { prefix: 'claude-haiku-4-5', contextWindow: 200_000, maxTokens: 64_000, hybridReasoning: true },
  { prefix: 'claude-3-7-sonnet', contextWindow: 200_000, maxTokens: 64_000, hybridReasoning: true },
  { prefix: 'claude-3-5-sonnet', contextWindow: 200_000, maxTokens: 8_192 },
  { prefix: 'claude-3-5-haiku', contextWindow: 200_000, maxTokens: 8_192 },
  { prefix: 'claude-3-opus', contextWindow: 200_000, maxTokens: 4_096 },
  { prefix: 'claude-3-haiku', contextWindow: 200_000, maxTokens: 4_096 },
  { prefix: 'gpt-4.1', contextWindow: 1_047_576, maxTokens: 32_768 },
  { prefix: 'gpt-4o', contextWindow: 128_000, maxTokens: 16_384 },
  { prefix: 'o3', contextWindow: 200_000, maxTokens: 100_000 },
  { prefix: 'o4-mini', contextWindow: 200_000, maxTokens: 100_000 },
  { prefix: 'gemini-2.5-pro', contextWindow: 1_048_576, maxTokens: 65_536 },
  { prefix: 'gemini-2.5-flash', contextWindow: 1_048_576, maxTokens: 65_536 },
];

/**
 * The id as the table knows it: lower case, without a provider or region prefix (`anthropic/`,
 * `us.anthropic.`), a Vertex `@date`, a `-YYYYMMDD` date, a Bedrock `-v1:0` or a `:thinking` variant.
 */
export function normalizeModelId(id: string): string {
  let m = id.trim().toLowerCase();
  m = m.slice(m.lastIndexOf('/') + 1);
  m = m.replace(/^(?:[a-z]{2}\.)?anthropic\./, '');
  m = m.replace(/\[1m\]$/, '').replace(/:(?:thinking|1m)$/, '');
  m = m.replace(/@.*$/, '').replace(/-v\d+(?::\d+)?$/, '').replace(/-\d{8}$/, '').replace(/-latest$/, '');
  return m;
}

/** True when the id asks for the 1M-token window (`[1m]`, `:1m`). */
function wants1m(id: string): boolean {
  return /(?:\[1m\]|:1m)$/i.test(id.trim());
}

/** What the table says about a model id, or undefined when it does not know the model. */
export function modelInfo(id: string | null | undefined): ModelInfo | undefined {
  if (!id?.trim()) return undefined;
  const norm = normalizeModelId(id);
  let best: Entry | undefined;
  for (const e of TABLE) {
    // A prefix matches a whole name part only: `o3` is not `o3x`, `gpt-4o` is `gpt-4o-mini`.
    if (norm === e.prefix || (norm.startsWith(e.prefix) && /[-.:_]/.test(norm.charAt(e.prefix.length)))) {
      if (!best || e.prefix.length > best.prefix.length) best = e;
    }
  }
  if (!best) return undefined;
  const window = wants1m(id) && best.prefix.startsWith('claude-sonnet-4') ? 1_000_000 : best.contextWindow;
  return { id: best.prefix, contextWindow: window, maxTokens: best.maxTokens, hybridReasoning: best.hybridReasoning === true };
}
