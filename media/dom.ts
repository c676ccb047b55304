import { humanTime, isoTime } from '../src/ui/format/when';

/**
 * Tiny DOM builders for the panel. Every string goes in through `textContent`: packet text is
 * agent-written and untrusted, so nothing here ever touches `innerHTML`.
 */

type Child = Node | string | null | undefined | false;

/** Creates an element with classes, attributes and children (strings become text nodes). */
export function h<K extends keyof HTMLElementTagNameMap>(
  tag: K,
  props: { class?: string; attrs?: Record<string, string>; title?: string } = {},
  ...children: Child[]
): HTMLElementTagNameMap[K] {
  const el = document.createElement(tag);
  if (props.class) el.className = props.class;
  if (props.title) el.title = props.title;
  for (const [k, v] of Object.entries(props.attrs ?? {})) el.setAttribute(k, v);
  for (const c of children) {
    if (c === null || c === undefined || c === false) continue;
    el.append(typeof c === 'string' ? document.createTextNode(c) : c);
  }
  return el;
}

/** A codicon glyph; decorative, so hidden from screen readers. */
export function icon(name: string, extra = ''): HTMLElement {
  return h('span', { class: `codicon codicon-${name} ${extra}`.trim(), attrs: { 'aria-hidden': 'true' } });
}

/** A titled section; `count` is shown next to the heading when given. */
export function section(id: string, title: string, body: Node, count?: number): HTMLElement {
  const heading = h('h2', { attrs: { id: `${id}-title` } }, title, count === undefined ? null : h('span', { class: 'count' }, String(count)));
  return h('section', { class: `section ${id}`, attrs: { 'aria-labelledby': `${id}-title`, 'data-section': id } }, heading, body);
}

/** A muted one-liner for an empty list. */
export function none(text: string): HTMLElement {
  return h('p', { class: 'muted' }, text);
}

/**
 * A time for people ("5 min ago (11:12)") with the exact ISO time as its tooltip; it keeps its epoch
 * ms so `refreshTimes` can redraw the relative part later.
 */
export function timeEl(ms: number): HTMLElement {
  return h('time', { title: isoTime(ms) ?? '', attrs: { datetime: isoTime(ms) ?? '', 'data-ms': String(ms) } }, humanTime(ms, Date.now()));
}

/** Redraws every `timeEl` under `root` against the current clock. */
export function refreshTimes(root: ParentNode): void {
  for (const el of root.querySelectorAll<HTMLElement>('time[data-ms]')) el.textContent = humanTime(Number(el.dataset['ms']), Date.now());
}

/** Short form of a commit hash for display. */
export function shortHash(hash: string | null): string {
  return hash ? hash.slice(0, 8) : 'unknown';
}
