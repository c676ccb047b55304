/**
 * The few DOM calls the panel's drawing code (media/dom.ts, media/sections.ts) makes, enough to run it
 * in Node and read back the HTML it would show: elements with attributes, classes, a title and
 * children; text nodes; click listeners (kept, never fired). `html()` serializes a node the way
 * `outerHTML` would, text and attribute values escaped.
 */

const escapeText = (s: string): string => s.replace(/&/g, '&amp;').replace(/</g, '&lt;').replace(/>/g, '&gt;');
const escapeAttr = (s: string): string => escapeText(s).replace(/"/g, '&quot;');

class FakeText {
  constructor(public textContent: string) {}
}

class FakeElement {
  className = '';
  title = '';
  readonly attributes = new Map<string, string>();
  readonly children: (FakeElement | FakeText)[] = [];
  readonly dataset: Record<string, string> = {};

  constructor(readonly tagName: string) {}

  setAttribute(name: string, value: string): void {
    this.attributes.set(name, String(value));
    if (name.startsWith('data-')) this.dataset[name.slice(5).replace(/-([a-z])/g, (_m, c: string) => c.toUpperCase())] = String(value);
  }

  getAttribute(name: string): string | null {
    return this.attributes.get(name) ?? null;
  }

  append(...nodes: (FakeElement | FakeText | string)[]): void {
    for (const n of nodes) this.children.push(typeof n === 'string' ? new FakeText(n) : n);
  }

  addEventListener(): void {
    // Never fired here: the test reads what is drawn, not what a click does.
  }

  get textContent(): string {
    return this.children.map((c) => c.textContent).join('');
  }

  set textContent(text: string) {
    this.children.length = 0;
    this.children.push(new FakeText(text));
  }
}

/** Runs `draw` with a global `document` that builds {@link FakeElement}s. */
export function withFakeDocument<T>(draw: () => T): T {
  const g = globalThis as { document?: unknown };
  const before = g.document;
  g.document = { createElement: (tag: string) => new FakeElement(tag), createTextNode: (text: string) => new FakeText(text) };
  try {
    return draw();
  } finally {
    if (before === undefined) delete g.document;
    else g.document = before;
  }
}

/** The HTML of a node drawn under {@link withFakeDocument} (a string child is text). */
export function html(node: unknown): string {
  if (typeof node === 'string') return escapeText(node);
  if (node instanceof FakeText) return escapeText(node.textContent);
  if (!(node instanceof FakeElement)) throw new Error('not a node of the fake document');
  const attrs = [...(node.className ? [['class', node.className]] : []), ...(node.title ? [['title', node.title]] : []), ...node.attributes];
  const open = `<${node.tagName}${attrs.map(([k, v]) => ` ${k}="${escapeAttr(v!)}"`).join('')}>`;
  return `${open}${node.children.map(html).join('')}</${node.tagName}>`;
}
