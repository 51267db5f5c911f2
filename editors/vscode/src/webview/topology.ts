// The script of the topology webview (bundled into dist/topology.js, runs in the webview):
// draws the graph the extension posts, and posts back which definition to open on a click.

import { GraphJson, layout } from '../topologyModel';
import { renderSvg } from '../topologyRender';

interface VsCodeApi {
  postMessage(message: unknown): void;
}
declare function acquireVsCodeApi(): VsCodeApi;

const vscode = acquireVsCodeApi();
const canvas = document.getElementById('canvas') as HTMLElement;
const summary = document.getElementById('summary') as HTMLElement;
const error = document.getElementById('error') as HTMLElement;

function draw(graph: GraphJson): void {
  const l = layout(graph);
  canvas.innerHTML = renderSvg(l);
  const links = l.links.length;
  const rejected = graph.policies.filter((p) => p.state === 'notAccepted').length;
  summary.textContent =
    `${graph.nodes.length} nodes, ${links} links, ${graph.policies.length} policies` +
    (rejected > 0 ? ` (${rejected} not accepted)` : '');
  error.textContent = '';
  error.classList.remove('shown');
}

function showError(message: string): void {
  error.textContent = message;
  error.classList.add('shown');
  summary.textContent = '';
}

function open(target: EventTarget | null): void {
  const box = target instanceof Element ? target.closest('[data-file]') : null;
  if (box === null) {
    return;
  }
  const line = Number(box.getAttribute('data-line') ?? '0');
  vscode.postMessage({
    type: 'open',
    key: box.getAttribute('data-key'),
    file: box.getAttribute('data-file'),
    line: Number.isFinite(line) ? line : 0,
  });
}

window.addEventListener('message', (event: MessageEvent) => {
  const m = event.data as { type?: string; graph?: GraphJson; message?: string; focus?: string };
  if (m.type === 'graph' && m.graph !== undefined) {
    if (typeof m.focus === 'string') {
      focus.value = m.focus;
    }
    try {
      draw(m.graph);
    } catch (e) {
      showError(`cannot draw the graph: ${e instanceof Error ? e.message : String(e)}`);
    }
  } else if (m.type === 'error') {
    showError(m.message ?? 'unknown error');
  }
});
canvas.addEventListener('click', (e) => open(e.target));
canvas.addEventListener('keydown', (e) => {
  if (e.key === 'Enter') {
    open(e.target);
  }
});
document.getElementById('fit')?.addEventListener('click', () => canvas.classList.toggle('fit'));
const focus = document.getElementById('focus') as HTMLInputElement;
document.getElementById('refresh')?.addEventListener('click', () => vscode.postMessage({ type: 'focus', ref: focus.value }));
// Enter in the focus box redraws around that node (empty: the whole workspace).
focus.addEventListener('keydown', (e) => {
  if (e.key === 'Enter') {
    vscode.postMessage({ type: 'focus', ref: focus.value });
  }
});
vscode.postMessage({ type: 'ready' });
