// The topology webview's HTML: a strict CSP (nothing from the network; the one script and the
// one style sheet allowed by nonce), VS Code's theme colours with fallbacks, and the bundled
// renderer `dist/topology.js`. No VS Code import: tests load the same page in Chromium.

import { legend } from './topologyRender';

export interface PageOptions {
  /** The webview's `cspSource` (the origin of its local resources). */
  cspSource: string;
  /** A fresh random value per page. */
  nonce: string;
  /** URI of `dist/topology.js`, as the webview can load it. */
  scriptUri: string;
  title: string;
}

export function contentSecurityPolicy(cspSource: string, nonce: string): string {
  return [
    "default-src 'none'",
    `img-src ${cspSource} data:`,
    `style-src 'nonce-${nonce}'`,
    `script-src 'nonce-${nonce}'`,
    "connect-src 'none'",
    "form-action 'none'",
    "base-uri 'none'",
  ].join('; ');
}

export function randomNonce(random: () => number = Math.random): string {
  const chars = 'ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789';
  let s = '';
  for (let i = 0; i < 32; i++) {
    s += chars.charAt(Math.floor(random() * chars.length));
  }
  return s;
}

const STYLE = `
:root {
  --bg: var(--vscode-editor-background, #1e1e1e);
  --fg: var(--vscode-editor-foreground, #d4d4d4);
  --muted: var(--vscode-descriptionForeground, #9d9d9d);
  --box: var(--vscode-editorWidget-background, #252526);
  --line: var(--vscode-editorWidget-border, #6b6b6b);
  --focus: var(--vscode-focusBorder, #007fd4);
  --enforced: #4caf50; --partiallyEnforced: #ff9800; --overridden: #9e9e9e; --notEnforced: #ab47bc; --notAccepted: #ef5350; --unknown: #29b6f6;
}
body { margin: 0; background: var(--bg); color: var(--fg);
  font: 12px var(--vscode-editor-font-family, 'DejaVu Sans Mono', Menlo, Consolas, monospace); }
header { position: sticky; top: 0; z-index: 1; display: flex; gap: 16px; align-items: center; flex-wrap: wrap;
  padding: 8px 16px; background: var(--bg); border-bottom: 1px solid var(--line); }
header h1 { font-size: 13px; margin: 0; font-weight: 600; }
#summary { color: var(--muted); }
.legend-item { display: inline-flex; align-items: center; gap: 6px; margin-right: 12px; }
.swatch { width: 12px; height: 12px; border: 2px solid; border-radius: 2px; }
.legend-item.enforced .swatch { border-color: var(--enforced); }
.legend-item.partiallyEnforced .swatch { border-color: var(--partiallyEnforced); }
.legend-item.overridden .swatch { border-color: var(--overridden); }
.legend-item.notEnforced .swatch { border-color: var(--notEnforced); border-style: dotted; }
.legend-item.unknown .swatch { border-color: var(--unknown); border-style: dotted; }
.legend-item.notAccepted .swatch { border-color: var(--notAccepted); border-style: dashed; }
input { font: inherit; color: var(--fg); background: var(--bg); border: 1px solid var(--line); padding: 2px 6px; }
button { font: inherit; color: var(--fg); background: var(--box); border: 1px solid var(--line); padding: 2px 10px; cursor: pointer; }
#error { display: none; margin: 16px; color: var(--notAccepted); white-space: pre-wrap; }
#error.shown { display: block; }
main { padding: 8px; overflow: auto; }
main.fit svg { width: 100%; height: auto; }
.box rect { fill: var(--box); stroke: var(--line); stroke-width: 1.2; }
.box.object rect { stroke: #4f9fe8; }
.box.section rect { stroke: #7cb342; }
.box.namespace rect { stroke: #ffca28; stroke-width: 2; }
.box.virtual rect { stroke: #ab47bc; stroke-dasharray: 2 3; }
.box.policy rect { stroke-width: 2; }
.box.policy.enforced rect { stroke: var(--enforced); }
.box.policy.partiallyEnforced rect { stroke: var(--partiallyEnforced); }
.box.policy.overridden rect { stroke: var(--overridden); }
.box.policy.notEnforced rect { stroke: var(--notEnforced); stroke-dasharray: 2 3; }
.box.policy.unknown rect { stroke: var(--unknown); stroke-dasharray: 2 3; }
.box.policy.notAccepted rect { stroke: var(--notAccepted); stroke-dasharray: 6 4; }
.box rect.bar { stroke: none; }
.box.reached.enforced rect.bar { fill: var(--enforced); }
.box.reached.partiallyEnforced rect.bar { fill: var(--partiallyEnforced); }
.box.reached.overridden rect.bar { fill: var(--overridden); }
.box.reached.notEnforced rect.bar { fill: var(--notEnforced); }
.box.reached.notAccepted rect.bar { fill: var(--notAccepted); }
.box text { fill: var(--fg); font-size: 12px; }
.box text.kind { fill: var(--muted); font-size: 11px; }
.box text.status { font-size: 11px; }
.box.policy.enforced text.status { fill: var(--enforced); }
.box.policy.partiallyEnforced text.status { fill: var(--partiallyEnforced); }
.box.policy.overridden text.status { fill: var(--overridden); }
.box.policy.notEnforced text.status { fill: var(--notEnforced); }
.box.policy.unknown text.status { fill: var(--unknown); }
.box.policy.notAccepted text.status, .box.policy.notAccepted text.name { fill: var(--notAccepted); }
.box.clickable { cursor: pointer; }
.box.clickable:hover rect, .box:focus rect { stroke: var(--focus); stroke-width: 2.5; }
.box:focus { outline: none; }
.caption { fill: var(--muted); font-size: 12px; }
.link { fill: none; stroke-width: 1.3; }
.link.tree { stroke: var(--line); }
.link.attach { stroke-dasharray: 5 4; }
.link.enforced { stroke: var(--enforced); }
.link.partiallyEnforced { stroke: var(--partiallyEnforced); }
.link.overridden { stroke: var(--overridden); }
.link.notEnforced { stroke: var(--notEnforced); }
.link.notAccepted { stroke: var(--notAccepted); }
.marker.tree path { fill: var(--line); }
.marker.enforced path { fill: var(--enforced); }
.marker.partiallyEnforced path { fill: var(--partiallyEnforced); }
.marker.overridden path { fill: var(--overridden); }
.marker.notEnforced path { fill: var(--notEnforced); }
.marker.notAccepted path { fill: var(--notAccepted); }
`;

export function topologyHtml(o: PageOptions): string {
  const esc = (s: string) => s.replace(/&/g, '&amp;').replace(/</g, '&lt;').replace(/"/g, '&quot;');
  return `<!DOCTYPE html>
<html lang="en">
<head>
<meta charset="utf-8">
<meta http-equiv="Content-Security-Policy" content="${esc(contentSecurityPolicy(o.cspSource, o.nonce))}">
<meta name="viewport" content="width=device-width, initial-scale=1">
<title>${esc(o.title)}</title>
<style nonce="${o.nonce}">${STYLE}</style>
</head>
<body>
<header>
<h1>${esc(o.title)}</h1>
<span id="summary">loading…</span>
<span class="legend">${legend()}</span>
<input id="focus" type="text" size="40" spellcheck="false" placeholder="Focus: Kind/namespace/name[#section]" aria-label="Focus on a node">
<button id="fit" type="button">Fit</button>
<button id="refresh" type="button">Refresh</button>
</header>
<div id="error" role="alert"></div>
<main id="canvas"></main>
<script nonce="${o.nonce}" src="${esc(o.scriptUri)}"></script>
</body>
</html>
`;
}
