// The Show Effective Policy view's content as the extension shows it: the readable `explain`
// text (the server's `policylens/explain` with `format: 'text'` renders it as the CLI does;
// taken here from the CLI) in a read-only editor tab, rendered in headless Chromium; the page
// holds exactly that text, and its screenshot is the README's.
import { test, after } from 'node:test';
import * as assert from 'node:assert/strict';
import * as path from 'node:path';

import { launch, pngSize, repo, runServer, screenshotPath } from './chromium.mjs';
import { editorHtml } from './editorPage.mjs';

// The cursor on `- name: pay` (shop/routes.yaml line 55): the server names the rule.
const folder = path.join(repo, 'fixtures', 'demo');
const text = runServer(['explain', '--target', 'HTTPRoute/shop/checkout#pay', '--color', 'never', folder], folder);
const tab = 'effective policy routes.yaml:55.txt';

const browser = await launch();
after(() => browser.close());
const page = await browser.context.newPage();

test('the explain text is the readable report, not JSON', () => {
  assert.ok(text.startsWith('HTTPRoute/shop/checkout#pay\n\nAuthPolicy.kuadrant.io\n'), text);
  assert.ok(text.includes('# shop/checkout-limits · AtomicDefaults'));
  assert.ok(text.split('\n').every((l) => l.length <= 100), text);
  assert.ok(!text.trimStart().startsWith('{'));
});

test('the editor page shows exactly the text, a line per row, in the active tab', async () => {
  const longest = Math.max(...text.split('\n').map((l) => l.length));
  const lines = text.split('\n').length;
  await page.setViewportSize({ width: Math.min(1900, Math.ceil(longest * 7.9) + 90), height: lines * 19 + 60 });
  await page.setContent(editorHtml({ tabs: ['routes.yaml', tab], active: tab, text }));
  const rows = await page.$$eval('.line', (els) => els.map((e) => e.textContent));
  assert.deepEqual(rows, text.replace(/\n$/, '').split('\n'));
  assert.equal(await page.textContent('.tab.active'), tab);
  const file = screenshotPath('effective-policy.png');
  await page.screenshot({ path: file, fullPage: true });
  const png = pngSize(file);
  assert.ok(png.height >= rows.length * 19, JSON.stringify(png));
});
