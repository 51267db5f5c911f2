// The topology view without VS Code: layout of the real demo graph (the CLI test's pinned
// output), the SVG markup, the page's CSP, and the checks on what the CLI printed.
import { test } from 'node:test';
import * as assert from 'node:assert/strict';
import * as fs from 'node:fs';
import * as path from 'node:path';

import { graphArgs } from '../src/serverPath';
import { Box, GraphJson, layout, parseGraph } from '../src/topologyModel';
import { escapeXml, renderSvg } from '../src/topologyRender';
import { contentSecurityPolicy, randomNonce, topologyHtml } from '../src/topologyPage';

const root = path.resolve(__dirname, '..', '..');
const demoPath = path.join(root, '..', '..', 'server', 'cli', 'tests', 'expected', 'demo-graph.json');
const demo = parseGraph(fs.readFileSync(demoPath, 'utf8')) as GraphJson;

function overlap(a: Box, b: Box): boolean {
  return a.x < b.x + b.w && b.x < a.x + a.w && a.y < b.y + b.h && b.y < a.y + a.h;
}

const small: GraphJson = {
  nodes: [
    { id: 'GatewayClass/eg', key: 'GatewayClass/eg', kind: 'GatewayClass', group: 'gateway.networking.k8s.io', type: 'object', file: 'gw.yaml', line: 3 },
    { id: 'Gateway/infra/edge', key: 'Gateway/infra/edge', kind: 'Gateway', group: 'gateway.networking.k8s.io', type: 'object', file: 'gw.yaml', line: 10 },
    { id: 'Gateway/infra/edge#https', key: 'Gateway/infra/edge#https', kind: 'Gateway', group: 'gateway.networking.k8s.io', type: 'section', file: 'gw.yaml', line: 15 },
    { id: 'Namespace/shop', key: 'Namespace/shop', kind: 'Namespace', group: '', type: 'namespace' },
  ],
  edges: [
    { from: 'GatewayClass/eg', to: 'Gateway/infra/edge' },
    { from: 'Gateway/infra/edge', to: 'Gateway/infra/edge#https' },
  ],
  policies: [
    { id: 'P/infra/gw', key: 'P/infra/gw', kind: 'P', group: 'x.io', file: 'p.yaml', line: 4,
      accepted: { status: true, reason: 'Accepted' }, enforcement: 'Enforced', state: 'enforced', targets: ['Gateway/infra/edge'] },
    { id: 'P/infra/class', key: 'P/infra/class', kind: 'P', group: 'x.io', file: 'p.yaml', line: 14,
      accepted: { status: true, reason: 'Accepted' }, enforcement: 'Overridden', state: 'overridden', targets: ['GatewayClass/eg'] },
    { id: 'P/shop/broken', key: 'P/shop/broken', kind: 'P', group: 'x.io', file: 'p.yaml', line: 24,
      accepted: { status: false, reason: 'TargetNotFound', message: 'Gateway/shop/nope does not exist' }, state: 'notAccepted', targets: [] },
  ],
};

test('layers run left to right along the edges; a policy sits a layer left of its target', () => {
  const l = layout(small);
  const at = (uid: string) => l.boxes.find((b) => b.uid === uid) as Box;
  assert.deepEqual(
    l.boxes.map((b) => [b.uid, b.layer]),
    [
      ['n:GatewayClass/eg', 1],
      ['n:Gateway/infra/edge', 2],
      ['n:Gateway/infra/edge#https', 3],
      ['n:Namespace/shop', 1],
      ['p:P/infra/gw', 1],
      ['p:P/infra/class', 0],
      // Attached to nothing: the row under the graph.
      ['p:P/shop/broken', -1],
    ],
  );
  assert.ok(at('n:GatewayClass/eg').x + at('n:GatewayClass/eg').w < at('n:Gateway/infra/edge').x);
  // Nodes take the (worst) state of the policies attached to them.
  assert.deepEqual(
    l.boxes.filter((b) => b.state !== undefined).map((b) => [b.uid, b.state]),
    [
      ['n:GatewayClass/eg', 'overridden'],
      ['n:Gateway/infra/edge', 'enforced'],
    ],
  );
  const graphBottom = Math.max(...l.boxes.filter((b) => b.layer >= 0).map((b) => b.y + b.h));
  assert.ok(at('p:P/shop/broken').y > graphBottom);
  assert.deepEqual(at('p:P/shop/broken').lines, ['P', 'shop/broken', 'not accepted: TargetNotFound']);
  assert.match(at('p:P/shop/broken').title, /Gateway\/shop\/nope does not exist\np\.yaml:25$/);
  assert.deepEqual(
    l.links.map((k) => [k.role, k.from, k.to, k.state ?? '']),
    [
      ['tree', 'GatewayClass/eg', 'Gateway/infra/edge', ''],
      ['tree', 'Gateway/infra/edge', 'Gateway/infra/edge#https', ''],
      ['attach', 'P/infra/gw', 'Gateway/infra/edge', 'enforced'],
      ['attach', 'P/infra/class', 'GatewayClass/eg', 'overridden'],
    ],
  );
});

test('the demo graph: every node, policy and link drawn once, no two boxes overlapping', () => {
  const l = layout(demo);
  assert.equal(demo.nodes.length, 30);
  assert.equal(demo.policies.length, 11);
  assert.equal(l.boxes.filter((b) => b.role === 'node').length, demo.nodes.length);
  assert.equal(l.boxes.filter((b) => b.role === 'policy').length, demo.policies.length);
  assert.equal(new Set(l.boxes.map((b) => b.uid)).size, l.boxes.length);
  const attachments = demo.policies.reduce((n, p) => n + p.targets.length, 0);
  assert.equal(l.links.length, demo.edges.length + attachments);
  for (let i = 0; i < l.boxes.length; i++) {
    const a = l.boxes[i];
    assert.ok(a.x >= 0 && a.y >= 0 && a.x + a.w <= l.width && a.y + a.h <= l.height, `${a.uid} out of bounds`);
    for (const b of l.boxes.slice(i + 1)) {
      assert.ok(!overlap(a, b), `${a.uid} overlaps ${b.uid}`);
    }
  }
  // Every edge goes rightwards: the layout is layered along the DAG.
  const byUid = new Map(l.boxes.map((b) => [b.uid, b]));
  for (const e of demo.edges) {
    const a = byUid.get(`n:${e.from}`) as Box;
    const b = byUid.get(`n:${e.to}`) as Box;
    assert.ok(a.x + a.w < b.x, `${e.from} -> ${e.to}`);
  }
  // Deterministic: the same input draws the same picture.
  assert.deepEqual(layout(demo), l);
});

test('the SVG has a group per box with its id, key, file and line, and escapes every text', () => {
  const g: GraphJson = JSON.parse(JSON.stringify(small));
  g.nodes[3].key = 'Namespace/<script>"x"';
  const svg = renderSvg(layout(g));
  assert.equal(svg.match(/data-node-id=/g)?.length, 4);
  assert.equal(svg.match(/data-policy-id=/g)?.length, 3);
  assert.equal(svg.match(/<path class="link /g)?.length, 4);
  assert.ok(!svg.includes('<script>'));
  assert.ok(svg.includes('data-key="Namespace/&lt;script&gt;&quot;x&quot;"'));
  assert.ok(svg.includes('data-node-id="Gateway/infra/edge#https" data-key="Gateway/infra/edge#https" data-file="gw.yaml" data-line="15"'));
  assert.ok(!/style=/.test(svg), 'no inline styles: the CSP forbids them');
  assert.equal(escapeXml(`a&b<'`), 'a&amp;b&lt;&#39;');
});

test('the page loads nothing from the network and runs only its own nonce-tagged script', () => {
  const nonce = randomNonce(() => 0.5);
  assert.equal(nonce.length, 32);
  const html = topologyHtml({ cspSource: 'vscode-resource:', nonce, scriptUri: 'vscode-resource:/dist/topology.js', title: 'Topology: demo' });
  const csp = contentSecurityPolicy('vscode-resource:', nonce);
  assert.ok(html.includes(`content="${csp}"`));
  assert.match(csp, /^default-src 'none'; /);
  assert.ok(!/https?:/.test(html), 'no http(s) URL in the page');
  assert.deepEqual([...html.matchAll(/<script([^>]*)>/g)].map((m) => m[1]), [` nonce="${nonce}" src="vscode-resource:/dist/topology.js"`]);
  assert.ok(html.includes(`<style nonce="${nonce}">`));
});

test('what the CLI printed is checked before it is drawn', () => {
  assert.match(parseGraph('not json') as string, /printed no JSON/);
  assert.match(parseGraph('{"nodes": []}') as string, /without `nodes`, `edges` and `policies`/);
  assert.deepEqual(parseGraph('{"nodes": [], "edges": [], "policies": []}'), { nodes: [], edges: [], policies: [] });
  assert.deepEqual(graphArgs('/w'), ['graph', '--format', 'json', '/w']);
  assert.deepEqual(graphArgs('/w', ' '), ['graph', '--format', 'json', '/w']);
  assert.deepEqual(graphArgs('/w', ' HTTPRoute/shop/a '), ['graph', '--format', 'json', '--focus', 'HTTPRoute/shop/a', '/w']);
});
