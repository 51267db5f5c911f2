// The topology webview's real page in headless Chromium, fed the real `graph --format json` of
// fixtures/demo: what it draws equals the JSON, a click posts the definition's file and line,
// and nothing is loaded from the network or blocked by the CSP.
import { test, after } from 'node:test';
import * as assert from 'node:assert/strict';
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { createRequire } from 'node:module';
import { pathToFileURL } from 'node:url';

import { here, launch, pngSize, runServer, screenshotPath } from './chromium.mjs';

const require = createRequire(import.meta.url);
const { topologyHtml } = require(path.join(here, 'out-test', 'src', 'topologyPage.js'));

const graph = JSON.parse(runServer(['graph', '--format', 'json', 'fixtures/demo']));
const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'pl-topology-'));
const nonce = 'testnonce0123456789';
fs.writeFileSync(
  path.join(dir, 'index.html'),
  topologyHtml({
    cspSource: 'file:',
    nonce,
    scriptUri: pathToFileURL(path.join(here, 'dist', 'topology.js')).href,
    title: 'Topology: demo',
  }),
);

const browser = await launch();
after(async () => {
  await browser.close();
  fs.rmSync(dir, { recursive: true, force: true });
});
const page = await browser.context.newPage();
const requests = [];
page.on('request', (r) => requests.push(r.url()));
const errors = [];
page.on('pageerror', (e) => errors.push(e.message));
// What the extension host would be: posted messages are recorded; CSP violations too.
await page.addInitScript(() => {
  window.__posted = [];
  window.__violations = [];
  window.acquireVsCodeApi = () => ({ postMessage: (m) => window.__posted.push(m) });
  document.addEventListener('securitypolicyviolation', (e) => window.__violations.push(`${e.violatedDirective} ${e.blockedURI}`));
});
await page.goto(pathToFileURL(path.join(dir, 'index.html')).href);
await page.waitForFunction(() => window.__posted.some((m) => m.type === 'ready'));
await page.evaluate((g) => window.postMessage({ type: 'graph', graph: g }, '*'), graph);
await page.waitForSelector('svg#graph');

const attr = (sel, name) => page.$$eval(sel, (els, n) => els.map((e) => e.getAttribute(n)), name);
const sorted = (xs) => [...xs].sort();

test('the page draws every node of the JSON, with its key and name', async () => {
  assert.equal(graph.nodes.length, 30);
  assert.deepEqual(sorted(await attr('[data-node-id]', 'data-node-id')), sorted(graph.nodes.map((n) => n.id)));
  assert.deepEqual(sorted(await attr('[data-node-id]', 'data-key')), sorted(graph.nodes.map((n) => n.key)));
  const texts = await page.$$eval('[data-node-id]', (els) => els.map((e) => [e.getAttribute('data-key'), e.textContent]));
  for (const [key, text] of texts) {
    const name = key.slice(key.indexOf('/') + 1);
    assert.ok(text.includes(name), `${key}: ${text}`);
  }
});

test('the page draws every policy, coloured by its state, and every edge and attachment', async () => {
  assert.deepEqual(sorted(await attr('[data-policy-id]', 'data-policy-id')), sorted(graph.policies.map((p) => p.id)));
  const classes = await page.$$eval('[data-policy-id]', (els) => els.map((e) => [e.getAttribute('data-policy-id'), e.getAttribute('class')]));
  for (const [id, cls] of classes) {
    const p = graph.policies.find((q) => q.id === id);
    assert.ok(cls.split(' ').includes(p.state), `${id}: ${cls}`);
  }
  const notAccepted = await page.$$eval('[data-policy-id].notAccepted rect', (els) => els.map((e) => getComputedStyle(e).strokeDasharray));
  assert.equal(notAccepted.length, 4);
  assert.ok(notAccepted.every((d) => d !== 'none'), 'not accepted policies are dashed');
  const pairs = (sel) => page.$$eval(sel, (els) => els.map((e) => `${e.getAttribute('data-from')} -> ${e.getAttribute('data-to')}`));
  assert.deepEqual(sorted(await pairs('path.link.tree')), sorted(graph.edges.map((e) => `${e.from} -> ${e.to}`)));
  assert.deepEqual(
    sorted(await pairs('path.link.attach')),
    sorted(graph.policies.flatMap((p) => p.targets.map((t) => `${p.id} -> ${t}`))),
  );
  // A node a policy attaches to carries the worst state among them: Gateway/infra/edge has
  // a partially enforced BackendTrafficPolicy beside enforced ones.
  const rank = ['enforced', 'partiallyEnforced', 'overridden', 'notAccepted'];
  const want = new Map();
  for (const p of graph.policies) {
    for (const t of p.targets) {
      if (!want.has(t) || rank.indexOf(p.state) > rank.indexOf(want.get(t))) want.set(t, p.state);
    }
  }
  const reached = await page.$$eval('[data-node-id].reached', (els) =>
    els.map((e) => [e.getAttribute('data-node-id'), e.getAttribute('class').split(' ').find((c) => c !== 'box' && c !== 'node' && c !== 'reached' && c !== 'clickable' && !['object', 'section', 'namespace', 'virtual'].includes(c)), e.querySelectorAll('rect.bar').length]));
  assert.deepEqual(reached.sort(), [...want.entries()].map(([id, st]) => [id, st, 1]).sort());
  assert.equal(want.get('Gateway/infra/edge'), 'partiallyEnforced');
  const summary = await page.textContent('#summary');
  assert.equal(summary, '30 nodes, 39 links, 11 policies (4 not accepted)');
});

test('clicking a node or a policy posts its file and line', async () => {
  const node = graph.nodes.find((n) => n.key === 'HTTPRoute/shop/checkout#pay');
  await page.click(`[data-node-id="${node.id}"]`);
  const policy = graph.policies.find((p) => p.key === 'AuthPolicy.kuadrant.io/shop/checkout-auth');
  await page.click(`[data-policy-id="${policy.id}"]`);
  const opened = await page.evaluate(() => window.__posted.filter((m) => m.type === 'open'));
  assert.deepEqual(opened, [
    { type: 'open', key: node.key, file: 'fixtures/demo/shop/routes.yaml', line: node.line },
    { type: 'open', key: policy.key, file: 'fixtures/demo/policies/shop.yaml', line: policy.line },
  ]);
  assert.equal(node.line, 54);
});

test('nothing but the page and its script is loaded, nothing is blocked, no script error', async () => {
  assert.deepEqual(requests.map((u) => new URL(u).protocol), ['file:', 'file:']);
  assert.deepEqual(await page.evaluate(() => window.__violations), []);
  assert.deepEqual(errors, []);
});

test('the focus box asks for a node\'s neighbourhood; the focused graph and errors are shown', async () => {
  const ref = 'httproute/shop/checkout#pay';
  await page.fill('#focus', ref);
  await page.press('#focus', 'Enter');
  const asked = await page.evaluate(() => window.__posted.filter((m) => m.type === 'focus'));
  assert.deepEqual(asked, [{ type: 'focus', ref }]);
  const focused = JSON.parse(runServer(['graph', '--format', 'json', '--focus', ref, 'fixtures/demo']));
  await page.evaluate((g) => window.postMessage({ type: 'graph', graph: g.graph, focus: g.focus }, '*'), { graph: focused, focus: ref });
  await page.waitForFunction((n) => document.querySelectorAll('[data-node-id]').length === n, focused.nodes.length);
  assert.equal(focused.nodes.length, 7);
  assert.deepEqual(sorted(await attr('[data-policy-id]', 'data-policy-id')), sorted(focused.policies.map((p) => p.id)));
  assert.equal(await page.inputValue('#focus'), ref);
  await page.evaluate(() => window.postMessage({ type: 'error', message: 'policylens: `HTTPRoute/shop/chekout` is not in the workspace' }, '*'));
  await page.waitForSelector('#error.shown');
  assert.equal(await page.textContent('#error'), 'policylens: `HTTPRoute/shop/chekout` is not in the workspace');
  // Back to the whole workspace for the picture.
  await page.fill('#focus', '');
  await page.evaluate((g) => window.postMessage({ type: 'graph', graph: g, focus: '' }, '*'), graph);
  await page.waitForFunction((n) => document.querySelectorAll('[data-node-id]').length === n, graph.nodes.length);
  assert.equal(await page.isVisible('#error'), false);
});

test('a screenshot of the view', async () => {
  const size = await page.evaluate(() => {
    const svg = document.querySelector('svg#graph');
    return { width: Number(svg.getAttribute('width')), height: Number(svg.getAttribute('height')) };
  });
  // No hover or focus ring in the picture.
  await page.mouse.move(1, 1);
  await page.evaluate(() => document.activeElement?.blur());
  await page.setViewportSize({ width: Math.min(2400, size.width + 20), height: Math.min(1600, size.height + 60) });
  const file = screenshotPath('topology.png');
  await page.screenshot({ path: file, fullPage: true });
  const png = pngSize(file);
  assert.ok(png.width >= size.width && png.height >= size.height, `${JSON.stringify(png)} for ${JSON.stringify(size)}`);
});
