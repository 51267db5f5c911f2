// The topology view's layout: `policylens graph --format json` (docs/json.md) laid out left to
// right in layers, without the DOM or VS Code, so node's test runner can check it.
//
// Layers follow the DAG's edges (GatewayClass → Gateway → listener → route → rule → Service →
// port); a policy sits one layer left of its leftmost target; policies that attach to nothing
// (not accepted) get a row of their own under the graph.

export type NodeType = 'object' | 'section' | 'namespace' | 'virtual';
export type PolicyState =
  | 'enforced'
  | 'partiallyEnforced'
  | 'overridden'
  | 'notEnforced'
  | 'notAccepted'
  | 'unknown';

export interface GraphNode {
  id: string;
  key: string;
  kind: string;
  group: string;
  type: NodeType;
  file?: string;
  line?: number;
}

export interface GraphPolicy {
  id: string;
  key: string;
  kind: string;
  group: string;
  /** Absent for a policy only the live cluster holds. */
  file?: string;
  line?: number;
  accepted: { status: boolean; reason: string; message?: string };
  enforcement?: string;
  state: PolicyState;
  targets: string[];
}

export interface GraphJson {
  nodes: GraphNode[];
  edges: { from: string; to: string }[];
  policies: GraphPolicy[];
}

export interface Box {
  /** `n:` + node id or `p:` + policy id: node and policy ids live apart. */
  uid: string;
  id: string;
  role: 'node' | 'policy';
  key: string;
  /** `object` … `virtual` for nodes, the state for policies. */
  cls: string;
  /** For a node: the worst state of the policies attached to it (drawn as a bar). */
  state?: PolicyState;
  lines: string[];
  /** Hover text. */
  title: string;
  file?: string;
  line?: number;
  layer: number;
  x: number;
  y: number;
  w: number;
  h: number;
}

export interface Link {
  from: string;
  to: string;
  /** `tree` (a DAG edge) or `attach` (a policy to a target). */
  role: 'tree' | 'attach';
  state?: PolicyState;
  /** SVG path data. */
  d: string;
}

export interface Caption {
  x: number;
  y: number;
  text: string;
}

export interface Layout {
  boxes: Box[];
  links: Link[];
  captions: Caption[];
  width: number;
  height: number;
}

export const STATE_LABEL: Record<PolicyState, string> = {
  enforced: 'enforced',
  partiallyEnforced: 'partially enforced',
  overridden: 'overridden',
  notEnforced: 'not enforced',
  notAccepted: 'not accepted',
  unknown: 'effect unknown',
};

/** Text metrics: a fixed advance per character (the view's font is monospace). */
export const CHAR_W = 7.2;
export const LINE_H = 16;
const PAD_X = 10;
const PAD_Y = 7;
const COL_GAP = 70;
const ROW_GAP = 14;
const MARGIN = 20;

/** The key without its kind: `shop/checkout#pay`. */
function nameOf(key: string): string {
  const i = key.indexOf('/');
  return i < 0 ? key : key.slice(i + 1);
}

function kindOf(key: string): string {
  const i = key.indexOf('/');
  return i < 0 ? key : key.slice(0, i);
}

function size(lines: string[]): { w: number; h: number } {
  const chars = Math.max(...lines.map((l) => l.length));
  return { w: Math.ceil(chars * CHAR_W + 2 * PAD_X), h: lines.length * LINE_H + 2 * PAD_Y };
}

function nodeBox(n: GraphNode): Box {
  const lines = [kindOf(n.key), nameOf(n.key)];
  const where = n.file !== undefined && n.line !== undefined ? `\n${n.file}:${n.line + 1}` : '';
  return { uid: `n:${n.id}`, id: n.id, role: 'node', key: n.key, cls: n.type, lines, title: n.key + where,
    file: n.file, line: n.line, layer: 0, x: 0, y: 0, ...size(lines) };
}

function policyBox(p: GraphPolicy): Box {
  const status = p.state === 'notAccepted' ? `not accepted: ${p.accepted.reason}` : STATE_LABEL[p.state];
  const lines = [kindOf(p.key), nameOf(p.key), status];
  const why = p.accepted.message !== undefined ? `\n${p.accepted.message}` : '';
  const where = p.file !== undefined && p.line !== undefined ? `\n${p.file}:${p.line + 1}` : '\nlive cluster';
  return { uid: `p:${p.id}`, id: p.id, role: 'policy', key: p.key, cls: p.state, lines,
    title: `${p.key}\n${status}${why}${where}`, file: p.file, line: p.line, layer: 0, x: 0, y: 0,
    ...size(lines) };
}

/** Longest-path layers over the DAG edges; nodes on a cycle (mesh) take the layer after
 *  their placed parents. */
function layers(ids: string[], edges: [string, string][]): Map<string, number> {
  const preds = new Map<string, string[]>(ids.map((i) => [i, []]));
  const succs = new Map<string, string[]>(ids.map((i) => [i, []]));
  for (const [a, b] of edges) {
    succs.get(a)?.push(b);
    preds.get(b)?.push(a);
  }
  const indegree = new Map(ids.map((i) => [i, preds.get(i)?.length ?? 0]));
  const layer = new Map<string, number>();
  const queue = ids.filter((i) => indegree.get(i) === 0);
  const place = (i: string) => {
    layer.set(i, Math.max(0, ...(preds.get(i) ?? []).filter((p) => layer.has(p)).map((p) => (layer.get(p) ?? 0) + 1)));
  };
  for (;;) {
    while (queue.length > 0) {
      const i = queue.shift() as string;
      place(i);
      for (const s of succs.get(i) ?? []) {
        const d = (indegree.get(s) ?? 0) - 1;
        indegree.set(s, d);
        if (d === 0) {
          queue.push(s);
        }
      }
    }
    // A cycle: start again from its first node in input order.
    const rest = ids.find((i) => !layer.has(i));
    if (rest === undefined) {
      break;
    }
    indegree.set(rest, 0);
    queue.push(rest);
  }
  return layer;
}

export function layout(graph: GraphJson): Layout {
  const nodeBoxes = graph.nodes.map(nodeBox);
  const byId = new Map(nodeBoxes.map((b) => [b.id, b]));
  const treeEdges: [string, string][] = graph.edges
    .filter((e) => byId.has(e.from) && byId.has(e.to))
    .map((e) => [e.from, e.to]);
  const nodeLayer = layers(graph.nodes.map((n) => n.id), treeEdges);
  const attached: Box[] = [];
  const loose: Box[] = [];
  for (const p of graph.policies) {
    const b = policyBox(p);
    const targets = p.targets.filter((t) => byId.has(t));
    if (targets.length === 0) {
      loose.push(b);
    } else {
      b.layer = Math.min(...targets.map((t) => nodeLayer.get(t) ?? 0)) - 1;
      attached.push(b);
    }
  }
  // Policies on roots sit at layer -1: shift everything right by one then.
  const shift = attached.some((b) => b.layer < 0) ? 1 : 0;
  for (const b of nodeBoxes) {
    b.layer = (nodeLayer.get(b.id) ?? 0) + shift;
  }
  for (const b of attached) {
    b.layer += shift;
  }
  // A node is coloured by the worst state of what attaches to it.
  const worst: PolicyState[] = ['enforced', 'unknown', 'partiallyEnforced', 'overridden', 'notEnforced', 'notAccepted'];
  for (const p of graph.policies) {
    for (const t of p.targets) {
      const b = byId.get(t);
      if (b !== undefined && (b.state === undefined || worst.indexOf(p.state) > worst.indexOf(b.state))) {
        b.state = p.state;
      }
    }
  }
  const boxes = [...nodeBoxes, ...attached];
  const byUid = new Map(boxes.map((b) => [b.uid, b]));
  const pairs: [string, string][] = treeEdges.map(([a, b]) => [`n:${a}`, `n:${b}`]);
  const policyById = new Map(graph.policies.map((p) => [p.id, p]));
  for (const b of attached) {
    for (const t of policyById.get(b.id)?.targets ?? []) {
      if (byId.has(t)) {
        pairs.push([b.uid, `n:${t}`]);
      }
    }
  }
  const columns = order(boxes, pairs);
  place(columns, pairs, byUid);

  // Policies attached to nothing: a row under the graph, wrapped at its width.
  let bottom = Math.max(MARGIN, ...boxes.map((b) => b.y + b.h));
  let right = Math.max(MARGIN, ...boxes.map((b) => b.x + b.w));
  const captions: Caption[] = [];
  if (loose.length > 0) {
    const rowWidth = Math.max(right, 600);
    let x = MARGIN;
    captions.push({ x, y: bottom + 3 * ROW_GAP, text: 'Attached to nothing (no target resolves):' });
    let y = bottom + 3 * ROW_GAP + LINE_H;
    let rowH = 0;
    for (const b of loose) {
      if (x > MARGIN && x + b.w > rowWidth) {
        x = MARGIN;
        y += rowH + ROW_GAP;
        rowH = 0;
      }
      b.layer = -1;
      b.x = x;
      b.y = y;
      x += b.w + ROW_GAP;
      rowH = Math.max(rowH, b.h);
      right = Math.max(right, b.x + b.w);
    }
    bottom = y + rowH;
    boxes.push(...loose);
  }

  const links: Link[] = pairs.map(([a, b]) => {
    const from = byUid.get(a) as Box;
    const to = byUid.get(b) as Box;
    const policy = from.role === 'policy' ? policyById.get(from.id) : undefined;
    return {
      from: from.id,
      to: to.id,
      role: policy === undefined ? 'tree' : 'attach',
      state: policy?.state,
      d: curve(from, to),
    };
  });
  return { boxes, links, captions, width: Math.ceil(right + MARGIN), height: Math.ceil(bottom + MARGIN) };
}

/** Boxes per layer, ordered by a few barycenter sweeps (fewer crossings). */
function order(boxes: Box[], pairs: [string, string][]): Box[][] {
  const count = Math.max(0, ...boxes.map((b) => b.layer)) + 1;
  const columns: Box[][] = Array.from({ length: count }, () => []);
  for (const b of boxes) {
    columns[b.layer].push(b);
  }
  const preds = new Map<string, string[]>();
  const succs = new Map<string, string[]>();
  for (const [a, b] of pairs) {
    (succs.get(a) ?? succs.set(a, []).get(a))?.push(b);
    (preds.get(b) ?? preds.set(b, []).get(b))?.push(a);
  }
  const rank = new Map<string, number>();
  const rerank = () => columns.forEach((col) => col.forEach((b, i) => rank.set(b.uid, i / Math.max(1, col.length))));
  rerank();
  const sweep = (col: Box[], neighbours: Map<string, string[]>) => {
    const key = new Map<string, number>();
    col.forEach((b, i) => {
      const ns = (neighbours.get(b.uid) ?? []).filter((n) => rank.has(n));
      key.set(b.uid, ns.length === 0 ? (rank.get(b.uid) ?? i) : ns.reduce((s, n) => s + (rank.get(n) ?? 0), 0) / ns.length);
    });
    // Stable: equal keys keep their order.
    col.sort((a, b) => (key.get(a.uid) ?? 0) - (key.get(b.uid) ?? 0));
    rerank();
  };
  for (let round = 0; round < 4; round++) {
    for (let l = 1; l < count; l++) {
      sweep(columns[l], preds);
    }
    for (let l = count - 2; l >= 0; l--) {
      sweep(columns[l], succs);
    }
  }
  return columns;
}

/** Columns left to right; in each, boxes near the middle of their neighbours, never overlapping. */
function place(columns: Box[][], pairs: [string, string][], byUid: Map<string, Box>): void {
  let x = MARGIN;
  for (const col of columns) {
    const w = Math.max(0, ...col.map((b) => b.w));
    let y = MARGIN;
    for (const b of col) {
      b.x = x;
      b.y = y;
      y += b.h + ROW_GAP;
    }
    x += w + COL_GAP;
  }
  const neighbours = new Map<string, string[]>();
  for (const [a, b] of pairs) {
    (neighbours.get(a) ?? neighbours.set(a, []).get(a))?.push(b);
    (neighbours.get(b) ?? neighbours.set(b, []).get(b))?.push(a);
  }
  const centre = (b: Box) => b.y + b.h / 2;
  // Two passes: each column's boxes move towards their neighbours' centres, then are pushed
  // apart top to bottom.
  for (let pass = 0; pass < 2; pass++) {
    for (const col of columns) {
      for (const b of col) {
        const ns = (neighbours.get(b.uid) ?? []).map((u) => byUid.get(u)).filter((n): n is Box => n !== undefined);
        if (ns.length > 0) {
          b.y = ns.reduce((s, n) => s + centre(n), 0) / ns.length - b.h / 2;
        }
      }
      let next = MARGIN;
      for (const b of col) {
        b.y = Math.round(Math.max(b.y, next));
        next = b.y + b.h + ROW_GAP;
      }
    }
  }
}

/** A horizontal S-curve from the right side of `a` to the left side of `b`. */
function curve(a: Box, b: Box): string {
  const x1 = a.x + a.w;
  const y1 = a.y + a.h / 2;
  const x2 = b.x;
  const y2 = b.y + b.h / 2;
  const dx = Math.max(30, (x2 - x1) / 2);
  return `M${x1},${y1} C${x1 + dx},${y1} ${x2 - dx},${y2} ${x2},${y2}`;
}

/** `graph --format json` output checked for the shape the view reads; a message when it is not. */
export function parseGraph(text: string): GraphJson | string {
  let v: unknown;
  try {
    v = JSON.parse(text);
  } catch (e) {
    return `policylens graph printed no JSON (${e instanceof Error ? e.message : String(e)})`;
  }
  const g = v as Partial<GraphJson> | null;
  if (g === null || typeof g !== 'object' || !Array.isArray(g.nodes) || !Array.isArray(g.edges) || !Array.isArray(g.policies)) {
    return 'policylens graph printed JSON without `nodes`, `edges` and `policies`: is the server binary older than the extension?';
  }
  return g as GraphJson;
}
