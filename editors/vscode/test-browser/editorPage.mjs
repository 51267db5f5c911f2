// A static page that shows a read-only text document as VS Code's editor area does (dark
// theme: tab strip, line-number gutter, monospace text, no wrapping): what Show Effective
// Policy opens, for the README's picture. Test-only; no script, nothing external.
const esc = (s) => s.replace(/&/g, '&amp;').replace(/</g, '&lt;').replace(/>/g, '&gt;');

export function editorHtml({ tabs, active, text }) {
  const lines = text.replace(/\n$/, '').split('\n');
  const digits = String(lines.length).length;
  const tabHtml = tabs
    .map((t) => `<div class="tab${t === active ? ' active' : ''}">${esc(t)}</div>`)
    .join('');
  const rows = lines
    .map((l, i) => `<div class="row"><span class="num">${String(i + 1).padStart(digits)}</span><span class="line">${esc(l)}</span></div>`)
    .join('');
  return `<!DOCTYPE html>
<html lang="en"><head><meta charset="utf-8">
<meta http-equiv="Content-Security-Policy" content="default-src 'none'; style-src 'unsafe-inline'">
<style>
body { margin: 0; background: #1e1e1e; color: #d4d4d4; font: 13px/19px 'DejaVu Sans Mono', monospace; }
.tabs { display: flex; background: #252526; height: 35px; }
.tab { padding: 0 18px; line-height: 35px; color: #969696; background: #2d2d2d; border-right: 1px solid #252526;
  font: 13px/35px 'DejaVu Sans', sans-serif; }
.tab.active { color: #ffffff; background: #1e1e1e; font-style: italic; border-top: 1px solid #0078d4; }
.editor { padding: 4px 0 12px; white-space: pre; overflow: hidden; }
.row { display: flex; }
.num { color: #6e7681; width: ${digits + 4}ch; text-align: right; padding-right: 2ch; flex: none; }
.line { flex: none; }
</style></head>
<body><div class="tabs">${tabHtml}</div><div class="editor">${rows}</div></body></html>
`;
}
