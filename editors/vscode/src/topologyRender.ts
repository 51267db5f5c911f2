// The topology view's picture: a laid-out graph as SVG markup. Presentation attributes and
// classes only (no `style=` attributes: the webview's CSP allows no inline styles), every
// text escaped. Each box carries its id, key, file and line for the click handler and tests.

import { Box, Layout, LINE_H, STATE_LABEL, PolicyState } from './topologyModel';

export function escapeXml(s: string): string {
  return s.replace(/&/g, '&amp;').replace(/</g, '&lt;').replace(/>/g, '&gt;').replace(/"/g, '&quot;').replace(/'/g, '&#39;');
}

function attrs(b: Box): string {
  const data = [
    `data-${b.role}-id="${escapeXml(b.id)}"`,
    `data-key="${escapeXml(b.key)}"`,
    b.file !== undefined ? `data-file="${escapeXml(b.file)}"` : '',
    b.line !== undefined ? `data-line="${b.line}"` : '',
  ];
  return data.filter((d) => d !== '').join(' ');
}

function box(b: Box): string {
  const rx = b.cls === 'section' || b.cls === 'namespace' ? 9 : b.role === 'policy' ? 2 : 4;
  const open = b.file !== undefined ? ' clickable' : '';
  const text = b.lines
    .map((l, i) => {
      const cls = i === 0 ? 'kind' : i === 1 ? 'name' : 'status';
      return `<text class="${cls}" x="${b.x + 10}" y="${b.y + 7 + LINE_H * (i + 1) - 4}">${escapeXml(l)}</text>`;
    })
    .join('');
  // A node's policies' state: a bar along its left edge.
  const bar = b.state !== undefined ? `<rect class="bar" x="${b.x}" y="${b.y}" width="5" height="${b.h}" rx="2"/>` : '';
  const state = b.state !== undefined ? ` reached ${b.state}` : '';
  return (
    `<g class="box ${b.role} ${b.cls}${state}${open}" ${attrs(b)} tabindex="0">` +
    `<title>${escapeXml(b.title)}</title>` +
    `<rect x="${b.x}" y="${b.y}" width="${b.w}" height="${b.h}" rx="${rx}"/>${bar}${text}</g>`
  );
}

export function renderSvg(l: Layout): string {
  const links = l.links
    .map((k) => {
      const cls = k.role === 'attach' ? `link attach ${k.state ?? ''}` : 'link tree';
      return `<path class="${cls}" data-from="${escapeXml(k.from)}" data-to="${escapeXml(k.to)}" d="${k.d}" marker-end="url(#arrow-${k.role === 'attach' ? k.state : 'tree'})"/>`;
    })
    .join('');
  const markers = ['tree', ...Object.keys(STATE_LABEL)]
    .map(
      (s) =>
        `<marker id="arrow-${s}" class="marker ${s}" viewBox="0 0 10 10" refX="10" refY="5" markerWidth="7" markerHeight="7" orient="auto-start-reverse"><path d="M0,0 L10,5 L0,10 z"/></marker>`,
    )
    .join('');
  return (
    `<svg xmlns="http://www.w3.org/2000/svg" id="graph" width="${l.width}" height="${l.height}" viewBox="0 0 ${l.width} ${l.height}">` +
    `<defs>${markers}</defs><g class="links">${links}</g><g class="boxes">${l.boxes.map(box).join('')}</g>` +
    l.captions.map((c) => `<text class="caption" x="${c.x}" y="${c.y}">${escapeXml(c.text)}</text>`).join('') +
    '</svg>'
  );
}

/** The legend's entries: the policy states, in the order of the view's colours. */
export function legend(): string {
  return (Object.keys(STATE_LABEL) as PolicyState[])
    .map((s) => `<span class="legend-item ${s}"><span class="swatch"></span>${STATE_LABEL[s]}</span>`)
    .join('');
}
