/**
 * The handoff panel's webview script. It draws what the host sends (validated against the shared
 * protocol) with DOM APIs only and sends user intents back; all effects (clipboard, files, generate)
 * happen in the host.
 */
import type { HostMessage, PanelAction, PanelEmpty, PanelModel, PanelState, WebviewMessage } from '../src/ui/protocol';
import { parseHostMessage, parsePanelState } from '../src/ui/protocol';
import { h, icon, refreshTimes } from './dom';
import { packetSections } from './sections';

interface VsCodeApi {
  postMessage(msg: WebviewMessage): void;
  getState(): unknown;
  setState(state: PanelState): void;
}
declare function acquireVsCodeApi(): VsCodeApi;

const vscode = acquireVsCodeApi();
const post = (msg: WebviewMessage): void => vscode.postMessage(msg);

const root = document.getElementById('root') as HTMLElement;
const live = h('div', { class: 'sr-only', attrs: { 'aria-live': 'polite', role: 'status', id: 'live' } });

/** A toolbar button; the label lives in its own span so "Copied" can replace it briefly. */
function button(id: string, codicon: string, label: string, msg: WebviewMessage, primary = false): HTMLButtonElement {
  const b = h(
    'button',
    { class: primary ? 'primary' : 'secondary', attrs: { type: 'button', id, 'data-label': label } },
    icon(codicon),
    h('span', { class: 'label' }, label),
  );
  b.addEventListener('click', () => post(msg));
  return b;
}

const copyPrompt = button('copy-prompt', 'copy', 'Copy Restart Prompt', { type: 'copyPrompt' }, true);
/** Every toolbar button by the action it sends; a render shows only those the host offers. */
const buttons: Record<PanelAction, HTMLButtonElement> = {
  copyPrompt,
  copyAsNewTask: button('copy-task', 'add', 'Copy as New Task', { type: 'copyAsNewTask' }),
  copyJson: button('copy-json', 'json', 'Copy JSON', { type: 'copyJson' }),
  copyPrSummary: button('copy-pr', 'git-pull-request', 'Copy PR Summary', { type: 'copyPrSummary' }),
  trustPacket: button('trust-packet', 'shield', 'Trust This Packet', { type: 'trustPacket' }),
  openMarkdown: button('open-md', 'markdown', 'Open handoff.md', { type: 'openMarkdown' }),
  regenerate: button('regenerate', 'refresh', 'Regenerate', { type: 'regenerate' }),
  generate: button('toolbar-generate', 'add', 'Generate Handoff', { type: 'generate' }, true),
};
const toolbar = h('div', { class: 'toolbar', attrs: { role: 'toolbar', 'aria-label': 'Handoff actions' } }, ...Object.values(buttons));

/** Shows the buttons that apply to what is drawn, and hides the rest (they would only fail). */
function showActions(actions: readonly PanelAction[]): void {
  for (const [action, b] of Object.entries(buttons) as [PanelAction, HTMLButtonElement][]) b.hidden = !actions.includes(action);
}
/** A visible one-line notice for a request that failed (e.g. a changed file that no longer exists). */
const notice = h('span', { class: 'notice', attrs: { id: 'notice', role: 'status', 'aria-live': 'polite' } });
toolbar.append(notice);
const content = h('main', { attrs: { id: 'content' } });

function renderPacket(model: PanelModel): void {
  toolbar.hidden = false;
  showActions(model.actions);
  content.replaceChildren(...packetSections(model, post));
  vscode.setState({ folderUri: model.folderUri, packetId: model.pinned ? model.packet.packet_id : undefined });
}

function renderEmpty(empty: PanelEmpty): void {
  toolbar.hidden = true;
  const children: Node[] = [h('h1', {}, 'Session Handoff'), h('p', { attrs: { 'data-testid': 'empty' } }, empty.reason)];
  if (empty.canGenerate) {
    const gen = h('button', { class: 'primary', attrs: { type: 'button', id: 'generate' } }, icon('add'), h('span', { class: 'label' }, 'Generate Handoff'));
    gen.addEventListener('click', () => post({ type: 'generate' }));
    children.push(gen);
  }
  content.replaceChildren(...children);
}

const timers = new Map<string, ReturnType<typeof setTimeout>>();

/** Swaps a button's label to "Copied" for a moment and announces it to screen readers. */
function flashCopied(id: string): void {
  const b = document.getElementById(id);
  const label = b?.querySelector('.label');
  if (!b || !label) return;
  label.textContent = 'Copied';
  b.classList.add('copied');
  live.textContent =
    id === 'copy-prompt'
      ? 'Restart prompt copied to the clipboard'
      : id === 'copy-task'
        ? 'Restart prompt copied for a new task'
        : id === 'copy-pr'
          ? 'Pull request summary copied to the clipboard'
          : 'Packet JSON copied to the clipboard';
  clearTimeout(timers.get(id));
  timers.set(
    id,
    setTimeout(() => {
      label.textContent = b.getAttribute('data-label') ?? '';
      b.classList.remove('copied');
    }, 2000),
  );
}

function onMessage(msg: HostMessage): void {
  switch (msg.type) {
    case 'render':
      renderPacket(msg.model);
      break;
    case 'empty':
      renderEmpty(msg.empty);
      break;
    case 'copied':
      flashCopied({ prompt: 'copy-prompt', task: 'copy-task', json: 'copy-json', pr: 'copy-pr' }[msg.what]);
      break;
    case 'failed':
      notice.textContent = msg.message;
      clearTimeout(timers.get('notice'));
      timers.set('notice', setTimeout(() => (notice.textContent = ''), 6000));
      break;
  }
}

window.addEventListener('message', (event: MessageEvent) => {
  const msg = parseHostMessage(event.data);
  // Anything that does not match the protocol is dropped: the page never draws unvalidated data.
  if (msg) onMessage(msg);
});

root.replaceChildren(toolbar, content, live);
// "5 min ago" must not stay "just now" while the panel is open.
setInterval(() => refreshTimes(content), 60_000);
// Keep the restored state (the serializer reads it) until the host sends a fresh render.
vscode.setState(parsePanelState(vscode.getState()));
content.append(h('p', { class: 'muted' }, 'Loading…'));
post({ type: 'ready' });
