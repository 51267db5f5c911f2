// End to end in a real VS Code host: the platform VSIX installed into code-server (VS Code
// 1.100 from npm, see codeServer.mjs), a workspace with one broken targetRef opened in headless
// Chromium, and what a person would see checked: the extension activates and starts the server
// bundled in the VSIX, the status item follows the server (ready, with the findings counted)
// and opens its menu, the Problems panel shows the server's diagnostic, the route's code lens,
// a hover's Explain link opens the explain text, Show Effective Policy opens the same text;
// last, an untrusted folder whose settings name another server: that one never runs.
//
// Skips, saying why, only when code-server cannot be installed here; POLICYLENS_REQUIRE_HOST=1
// (CI) turns that skip into a failure.
import { test, after } from 'node:test';
import * as assert from 'node:assert/strict';
import { spawn, execFileSync } from 'node:child_process';
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';

import { here, launch, pngSize, repo, screenshotPath } from '../test-browser/chromium.mjs';
import { ensureCodeServer, VERSION } from './codeServer.mjs';

const pkg = JSON.parse(fs.readFileSync(path.join(here, 'package.json'), 'utf8'));
const target = process.env.VSIX_TARGET ?? `${process.platform}-${process.arch}`;
const vsix = process.env.VSIX ?? path.join(here, `policylens-${target}-${pkg.version}.vsix`);
const TIMEOUT = 120_000;

// test-host/workspace/app.yaml: a BackendTrafficPolicy names HTTPRoute `chekout` (line 66),
// the route is `checkout` (line 23).
const MESSAGE = 'HTTPRoute/shop/chekout does not exist; did you mean `checkout`?';

const host = await ensureCodeServer();
if (host.skip !== undefined) {
  if (process.env.POLICYLENS_REQUIRE_HOST === '1') {
    throw new Error(`POLICYLENS_REQUIRE_HOST=1 but code-server cannot be installed: ${host.skip}`);
  }
  console.log(`# SKIP the VS Code host test: ${host.skip}`);
  test('VS Code host (code-server) end to end', { skip: host.skip }, () => {});
} else {
  await hostTests(host.bin);
}

// The loopback API server of the cluster tests (server/bench/src/bin/fake_api.rs), built when
// missing.
function findFakeApi() {
  const built = ['debug', 'release'].map((p) => path.join(repo, 'target', p, 'policylens-fake-api'));
  const found = built.find((b) => fs.existsSync(b));
  if (found !== undefined) {
    return found;
  }
  execFileSync('cargo', ['build', '--quiet', '-p', 'policylens-bench', '--bin', 'policylens-fake-api'], { cwd: repo, stdio: 'inherit' });
  return built[0];
}

async function hostTests(bin) {
  assert.ok(fs.existsSync(vsix), `no VSIX at ${vsix}: npm run package (or node scripts/package.js --no-build) first`);
  const tmp = fs.mkdtempSync(path.join(os.tmpdir(), 'pl-host-'));
  const dirs = Object.fromEntries(['user', 'extensions', 'config', 'data', 'workspace'].map((d) => [d, path.join(tmp, d)]));
  Object.values(dirs).forEach((d) => fs.mkdirSync(d));
  fs.cpSync(path.join(here, 'test-host', 'workspace'), dirs.workspace, { recursive: true });
  // No welcome page, no trust prompt, nothing that reaches for the network.
  fs.mkdirSync(path.join(dirs.user, 'User'));
  fs.writeFileSync(
    path.join(dirs.user, 'User', 'settings.json'),
    JSON.stringify({
      'workbench.startupEditor': 'none',
      'security.workspace.trust.enabled': false,
      'telemetry.telemetryLevel': 'off',
      'extensions.autoUpdate': false,
      'extensions.autoCheckUpdates': false,
      'extensions.ignoreRecommendations': true,
      'update.mode': 'none',
      'workbench.enableExperiments': false,
      'workbench.tips.enabled': false,
    }),
  );
  // code-server keeps its config and state under XDG: a fresh home for each run.
  const env = { ...process.env, XDG_CONFIG_HOME: dirs.config, XDG_DATA_HOME: dirs.data };
  const common = ['--user-data-dir', dirs.user, '--extensions-dir', dirs.extensions];
  const installed = path.join(dirs.extensions, `${pkg.publisher}.${pkg.name}-${pkg.version}`);
  const bundled = path.join(installed, 'server', target, 'policylens');

  // The steps build on each other: after a failure the rest are skipped, not timed out.
  let failed;
  const step = (name, fn) =>
    test(name, { timeout: TIMEOUT }, async (t) => {
      if (failed !== undefined) {
        t.skip(`\`${failed}\` failed`);
        return;
      }
      try {
        await fn();
      } catch (e) {
        failed = name;
        throw e;
      }
    });

  let server;
  let browser;
  after(async () => {
    await browser?.close();
    if (server !== undefined && server.exitCode === null) {
      process.kill(-server.pid, 'SIGTERM');
    }
    fs.rmSync(tmp, { recursive: true, force: true });
  });

  // Starts code-server on `folder` (none: an empty window; closing a browser and a code-server
  // left open), opens it in headless Chromium and waits for the explorer to list `file`;
  // returns the page. `serverEnv` replaces the environment (a home of its own).
  async function openWorkbench(dirArgs, flags, folder, file = 'app.yaml', serverEnv = env) {
    await browser?.close();
    if (server !== undefined && server.exitCode === null && server.signalCode === null) {
      const exited = new Promise((resolve) => server.once('exit', resolve));
      try {
        process.kill(-server.pid, 'SIGTERM');
      } catch {
        // gone meanwhile
      }
      await exited;
    }
    server = spawn(
      bin,
      [...dirArgs, '--auth', 'none', '--bind-addr', '127.0.0.1:0', '--disable-telemetry', '--disable-update-check',
        ...flags, '--disable-getting-started-override', ...(folder === undefined ? [] : [folder])],
      { env: serverEnv, detached: true, stdio: ['ignore', 'pipe', 'pipe'] },
    );
    let log = '';
    server.stderr.on('data', (d) => (log += d));
    const url = await new Promise((resolve, reject) => {
      server.stdout.on('data', (d) => {
        log += d;
        const m = /HTTP server listening on (http:\/\/127\.0\.0\.1:\d+)\//.exec(log);
        if (m !== null) resolve(m[1]);
      });
      server.on('exit', (code) => reject(new Error(`code-server exited ${code}:\n${log}`)));
    });
    browser = await launch();
    const opened = await browser.context.newPage();
    if (folder === undefined) {
      await opened.goto(`${url}/?ew=true`);
      await opened.waitForSelector('.monaco-workbench', { timeout: TIMEOUT });
      return opened;
    }
    await opened.goto(`${url}/?folder=${encodeURIComponent(folder)}`);
    await opened.waitForSelector(`.explorer-folders-view .monaco-list-row[aria-label^="${file}"]`, { timeout: TIMEOUT });
    return opened;
  }

  // Opens `name` with Quick Open and waits for its tab.
  async function quickOpen(p, name) {
    await p.keyboard.press('Control+P');
    await p.waitForSelector('.quick-input-widget input');
    await p.keyboard.type(name);
    await p.waitForSelector(`.quick-input-list .monaco-list-row[aria-label*="${name}"]`);
    await p.keyboard.press('Enter');
    await p.waitForSelector(`.tab[aria-label^="${name}"]`, { timeout: TIMEOUT });
  }

  // The status item's accessible label once the server says it is ready (findings counted).
  async function readyItem(p) {
    const item = await p.waitForSelector('[id="policylens.policylens"][aria-label*="policylens · "], [id="policylens.policylens"][aria-label^="check  policylens,"]', {
      timeout: TIMEOUT,
    });
    return item.getAttribute('aria-label');
  }

  // The Problems panel's messages, once `count` are listed.
  async function problems(p, count, open = true) {
    if (open) {
      await p.keyboard.press('Control+Shift+M');
    }
    await p.waitForFunction((n) => document.querySelectorAll('.markers-panel .marker-message').length === n, count, {
      timeout: TIMEOUT,
    });
    return p.$$eval('.markers-panel .marker-message', (els) => els.map((e) => e.textContent));
  }

  // The messages `policylens check --format json PATH` reports, the CLI's own answer.
  function checkMessages(target) {
    let out;
    try {
      out = execFileSync(bundled, ['check', '--format', 'json', target], { encoding: 'utf8' });
    } catch (e) {
      out = e.stdout; // exit 1: findings
    }
    return JSON.parse(out).diagnostics.map((d) => d.message);
  }

  // Puts the cursor of app.yaml at `line:col` (Go to Line) and waits until the status bar says so.
  async function goTo(line, col) {
    await page.click('.tab[aria-label^="app.yaml"]');
    await page.keyboard.press('Control+G');
    await page.waitForSelector('.quick-input-widget input');
    await page.keyboard.type(`${line}:${col}`);
    await page.keyboard.press('Enter');
    await page.waitForSelector(`.statusbar-item[id="status.editor.selection"][aria-label="Ln ${line}, Col ${col}"]`);
  }

  step(`the VSIX installs into code-server ${VERSION}`, () => {
    const out = execFileSync(bin, [...common, '--install-extension', vsix], { env, encoding: 'utf8' });
    assert.match(out, new RegExp(`Extension '${path.basename(vsix).replace(/\./g, '\\.')}' was successfully installed\\.`));
    assert.ok(fs.statSync(bundled).mode & 0o111, `${bundled} is not executable`);
  });

  let page;
  step('the workbench opens the workspace', async () => {
    page = await openWorkbench(common, ['--disable-workspace-trust'], dirs.workspace);
  });

  step('opening a YAML file activates the extension, which starts the server from the VSIX', async () => {
    await page.keyboard.press('Control+P');
    await page.waitForSelector('.quick-input-widget input');
    await page.keyboard.type('app.yaml');
    await page.waitForSelector('.quick-input-list .monaco-list-row[aria-label*="app.yaml"]');
    await page.keyboard.press('Enter');
    await page.waitForSelector('.tab[aria-label^="app.yaml"]', { timeout: TIMEOUT });
    // The status item follows the server: ready, with its one finding counted; the tooltip
    // says which server runs, where it came from and what it reads.
    const item = await page.waitForSelector('[id="policylens.policylens"][aria-label*="warnings"]', {
      timeout: TIMEOUT,
    });
    // (Its icon's name, `check`, is part of the accessible label.)
    assert.equal(
      await item.getAttribute('aria-label'),
      `check  policylens · 1 error, 0 warnings, Running ${bundled} (bundled)\nRoot: ${dirs.workspace} — the workspace folder; no .policylens.yaml or .git in or above it\nConfig: none`,
    );
  });

  step('a click on the status item opens its menu', async () => {
    await page.click('[id="policylens.policylens"] a');
    await page.waitForSelector('.quick-input-list .monaco-list-row', { timeout: TIMEOUT });
    const rows = await page.$$eval('.quick-input-list .monaco-list-row', (els) => els.map((e) => e.getAttribute('aria-label')));
    // (Each row's accessible label starts with its icon's name.)
    assert.deepEqual(rows, ['debug-restart  Restart Server', 'output  Show Output', 'checklist  Show Policy Status', 'gear  Open Settings']);
    await page.keyboard.press('Escape');
  });

  step('the Problems panel shows the broken targetRef with the server\'s message', async () => {
    await page.keyboard.press('Control+Shift+M');
    await page.waitForSelector('.markers-panel .marker-message', { timeout: TIMEOUT });
    const rows = await page.$$eval('.markers-panel .monaco-list-row', (els) => els.map((e) => e.textContent));
    const messages = await page.$$eval('.markers-panel .marker-message', (els) => els.map((e) => e.textContent));
    assert.deepEqual(messages, [MESSAGE]);
    assert.deepEqual(rows, [
      'app.yaml1',
      `${MESSAGE}policylenstarget-not-found[Ln 66, Col 13]`,
      'app.yaml[Ln 23, Col 9]:`checkout` is defined here',
    ]);
  });

  step('the route shows its code lens', async () => {
    // The route (line 20 on) in view: editors draw the lenses of the lines in view.
    await goTo(30, 1);
    await page.waitForFunction(
      () => [...document.querySelectorAll('.codelens-decoration')].some((e) => e.textContent === '1 policy affects this'),
      undefined,
      { timeout: TIMEOUT },
    );
    const lenses = await page.$$eval('.codelens-decoration', (els) => els.map((e) => e.textContent).filter((t) => t !== ''));
    // The GatewayClass, Gateway, route, Service and the two policies (one broken), in order.
    assert.deepEqual(lenses, [
      'no policies affect this',
      'no policies affect this',
      '1 policy affects this',
      '1 policy affects this',
      'affects 1 rule',
      'not accepted: TargetNotFound',
    ]);
  });

  // Issue 39 §6: the view is filled when it comes into view, without Show Policy Status.
  step('the Policy Status view fills itself when it comes into view', async () => {
    await page.click('.pane-header:has-text("Policy Status")');
    await page.waitForFunction(
      () => {
        const rows = [...document.querySelectorAll('.monaco-list-row')].map((e) => e.textContent ?? '');
        return ['shop/checkout-timeout', 'shop/checkout-retries'].every((p) => rows.some((r) => r.includes(p)));
      },
      undefined,
      { timeout: TIMEOUT },
    );
    await page.click('.pane-header:has-text("Policy Status")');
  });

  step("a hover on the route ends in Explain, Show in topology and References; Explain opens the explain text", async () => {
    await goTo(23, 11);
    await page.keyboard.press('Control+K');
    await page.keyboard.press('Control+I');
    const hover = '.monaco-hover .hover-contents';
    await page.waitForFunction((sel) => (document.querySelector(sel)?.textContent ?? '').includes('References'), hover, {
      timeout: TIMEOUT,
    });
    const links = await page.$$eval(`${hover} a`, (els) => els.map((e) => e.textContent));
    assert.deepEqual(links.slice(-3), ['Explain', 'Show in topology', 'References']);
    await page.click(`${hover} a:text-is("Explain")`);
    const tab = 'effective policy HTTPRoute shop checkout.txt';
    await page.waitForSelector(`.tab.active[aria-label^="${tab}"]`, { timeout: TIMEOUT });
    const editor = '.editor-group-container.active .monaco-editor .view-lines';
    await page.waitForFunction((sel) => (document.querySelector(sel)?.textContent ?? '').includes('requestTimeout'), editor, {
      timeout: TIMEOUT,
    });
    await page.keyboard.press('Control+W');
  });

  step('Show Effective Policy on the route opens the explain text beside', async () => {
    // The cursor on `name: checkout` of the HTTPRoute (line 23).
    await goTo(23, 11);
    await page.keyboard.press('Control+Shift+P');
    await page.waitForSelector('.quick-input-widget input');
    await page.keyboard.type('policylens: Show Effective Policy');
    await page.waitForSelector('.quick-input-list .monaco-list-row[aria-label="policylens: Show Effective Policy"]');
    await page.keyboard.press('Enter');
    const tab = 'effective policy app.yaml:23.txt';
    await page.waitForSelector(`.tab.active[aria-label^="${tab}"]`, { timeout: TIMEOUT });
    const editor = '.editor-group-container.active .monaco-editor .view-lines';
    await page.waitForFunction((sel) => (document.querySelector(sel)?.textContent ?? '').includes('requestTimeout'), editor, {
      timeout: TIMEOUT,
    });
    const lines = await page.$$eval(`${editor} .view-line`, (els) =>
      els
        .map((e) => ({ top: parseFloat(e.style.top), text: e.textContent.replace(/\u00a0/g, ' ') }))
        .sort((a, b) => a.top - b.top)
        .map((l) => l.text),
    );
    // Exactly what the bundled binary's explain prints for the route, a line per editor line.
    const cli = execFileSync(bundled, ['explain', '--target', 'HTTPRoute/shop/checkout', '--color', 'never', dirs.workspace], {
      encoding: 'utf8',
    });
    assert.ok(cli.startsWith('HTTPRoute/shop/checkout\n\nBackendTrafficPolicy.gateway.envoyproxy.io\n'), cli);
    assert.match(cli, /^ +requestTimeout: 30s .*checkout-timeout/m);
    assert.deepEqual(lines, cli.split('\n'));
    await page.mouse.move(900, 800); // no hover over the tab clicked above in the picture
    await page.waitForTimeout(500);
    const file = screenshotPath('vscode-host.png');
    await page.screenshot({ path: file });
    assert.deepEqual(pngSize(file), { width: 1400, height: 900 });
  });

  // Issue 39 §1: VS Code opened on the demo's `shop/` folder. The server reads the whole demo
  // (its .policylens.yaml is above the folder) and reports the folder's files: the one finding
  // there, as `policylens check demo/shop` says; before, nine false not-found errors.
  const demo = path.join(tmp, 'demo');
  fs.cpSync(path.join(repo, 'fixtures', 'demo'), demo, { recursive: true });
  step('a subfolder opened alone is read within its workspace', async () => {
    const p = await openWorkbench(common, ['--disable-workspace-trust'], path.join(demo, 'shop'), 'routes.yaml');
    await quickOpen(p, 'routes.yaml');
    assert.equal(
      await readyItem(p),
      `check  policylens · 1 error, 0 warnings, Running ${bundled} (bundled)\nRoot: ${demo} — its .policylens.yaml is the nearest above the workspace folder ${demo}/shop\nConfig: ${demo}/.policylens.yaml`,
    );
    const cli = checkMessages(path.join(demo, 'shop'));
    assert.equal(cli.length, 1);
    assert.deepEqual(await problems(p, 1), cli);
  });

  // Issue 39 §3: `cluster.enabled` and nothing else. The other cluster settings are sent empty
  // by VS Code; an empty kubeconfig means the default: here ~/.kube/config (a home of its own,
  // no KUBECONFIG), which points at the tests' loopback API server.
  step('cluster mode with nothing else set reads the default kubeconfig', async () => {
    const fakeApi = findFakeApi();
    const home = path.join(tmp, 'home');
    fs.mkdirSync(path.join(home, '.kube'), { recursive: true });
    const api = spawn(fakeApi, [path.join(home, '.kube', 'config')], { stdio: ['pipe', 'pipe', 'inherit'] });
    let apiOut = '';
    api.stdout.on('data', (d) => (apiOut += d));
    const addr = await new Promise((resolve, reject) => {
      api.stdout.on('data', () => {
        const m = /^(http:\/\/127\.0\.0\.1:\d+)\n/.exec(apiOut);
        if (m !== null) resolve(m[1]);
      });
      api.on('exit', (code) => reject(new Error(`policylens-fake-api exited ${code}`)));
    });
    try {
      const folder = path.join(tmp, 'cluster-ws');
      fs.mkdirSync(folder);
      // The route's Gateway and Service exist only in the cluster.
      fs.writeFileSync(
        path.join(folder, 'route.yaml'),
        'apiVersion: gateway.networking.k8s.io/v1\nkind: HTTPRoute\nmetadata:\n  name: checkout\n  namespace: shop\nspec:\n  parentRefs:\n  - name: edge\n    namespace: infra\n    sectionName: https\n  rules:\n  - name: pay\n    backendRefs:\n    - name: checkout\n      port: 8080\n',
      );
      const userCluster = path.join(tmp, 'user-cluster');
      fs.mkdirSync(path.join(userCluster, 'User'), { recursive: true });
      const settings = JSON.parse(fs.readFileSync(path.join(dirs.user, 'User', 'settings.json'), 'utf8'));
      fs.writeFileSync(path.join(userCluster, 'User', 'settings.json'), JSON.stringify({ ...settings, 'policylens.cluster.enabled': true }));
      const homeEnv = { ...env, HOME: home };
      delete homeEnv.KUBECONFIG;
      const p = await openWorkbench(['--user-data-dir', userCluster, '--extensions-dir', dirs.extensions],
        ['--disable-workspace-trust'], folder, 'route.yaml', homeEnv);
      await quickOpen(p, 'route.yaml');
      const label = await readyItem(p);
      assert.ok(label.startsWith('check  policylens, '), label);
      assert.match(label, new RegExp(`\nCluster: cluster \`[^\`]+\` at ${addr.replace(/\./g, '\\.')}/: 6 objects, watched; `));
      assert.deepEqual(await problems(p, 0), []);
      assert.equal(await p.$('.notification-toast:has-text("kubeconfig")'), null, 'a kubeconfig error was shown');
    } finally {
      api.stdin.end();
      await new Promise((resolve) => api.on('close', resolve));
    }
    const requests = apiOut.trim().split('\n').slice(1);
    assert.ok(requests.length > 0, 'the loopback API server was never asked');
    assert.ok(requests.every((r) => r.startsWith('GET ') && !r.includes('secrets')), requests.join('\n'));
  });

  // Issue 39 §6: the server crashes five times in three minutes, so the client gives up; the
  // notice says so, and a successful Restart Server closes it (an error message would stay).
  // The bundled binary is wrapped by a script that, while `down` exists, kills the server two
  // seconds after it starts (after it has answered `initialize`, as a real crash would).
  step('after the server crashed for good, a successful restart closes the notice', async () => {
    const real = path.join(tmp, 'policylens-crash-real');
    const down = path.join(tmp, 'server-down');
    const pidFile = path.join(tmp, 'server.pid');
    fs.renameSync(bundled, real);
    fs.writeFileSync(
      bundled,
      `#!/bin/sh\necho $$ > '${pidFile}'\nif [ -e '${down}' ]; then (sleep 2; kill -9 $$) & fi\nexec '${real}' "$@"\n`,
      { mode: 0o755 },
    );
    try {
      const p = await openWorkbench(common, ['--disable-workspace-trust'], dirs.workspace);
      await quickOpen(p, 'app.yaml');
      await readyItem(p);
      fs.writeFileSync(down, '');
      process.kill(Number(fs.readFileSync(pidFile, 'utf8').trim()), 'SIGKILL');
      const notice = '.notification-toast:has-text("crashed 5 times")';
      await p.waitForSelector(notice, { timeout: TIMEOUT });
      await p.waitForSelector('[id="policylens.policylens"][aria-label*="policylens: stopped"]', { timeout: TIMEOUT });
      fs.rmSync(down);
      await p.keyboard.press('Control+Shift+P');
      await p.waitForSelector('.quick-input-widget input');
      await p.keyboard.type('policylens: Restart Server');
      await p.waitForSelector('.quick-input-list .monaco-list-row[aria-label="policylens: Restart Server"]');
      await p.keyboard.press('Enter');
      await readyItem(p);
      await p.waitForSelector(notice, { state: 'detached', timeout: TIMEOUT });
    } finally {
      fs.rmSync(bundled);
      fs.renameSync(real, bundled);
    }
  });

  // Workspace trust: a cloned repository's .vscode/settings.json names another server (a
  // script that leaves a marker, then runs the real one). In a folder that is not trusted (trust
  // on, the folder never trusted), with the bundled binary taken away so that the setting would
  // be next in line, that script must not run: the extension says it finds no server, in the
  // warning colour, and offers Open Settings. (The extension host does not see a PATH set for
  // code-server, so the found-on-PATH case is not reproduced here.)
  step('in an untrusted folder, the settings naming another server do not run it', async () => {
    const untrusted = path.join(tmp, 'untrusted');
    const real = path.join(tmp, 'policylens-real');
    const marker = path.join(tmp, 'evil-ran');
    fs.mkdirSync(path.join(untrusted, '.vscode'), { recursive: true });
    fs.cpSync(path.join(here, 'test-host', 'workspace'), untrusted, { recursive: true });
    fs.renameSync(bundled, real);
    const evil = path.join(tmp, 'evil.sh');
    fs.writeFileSync(evil, `#!/bin/sh\ntouch '${marker}'\nexec '${real}' "$@"\n`, { mode: 0o755 });
    fs.writeFileSync(
      path.join(untrusted, '.vscode', 'settings.json'),
      JSON.stringify({ 'policylens.server.path': evil, 'policylens.cluster.kubeconfig': marker }),
    );
    const userTrust = path.join(tmp, 'user-trust');
    fs.mkdirSync(path.join(userTrust, 'User'), { recursive: true });
    const settings = JSON.parse(fs.readFileSync(path.join(dirs.user, 'User', 'settings.json'), 'utf8'));
    fs.writeFileSync(
      path.join(userTrust, 'User', 'settings.json'),
      JSON.stringify({ ...settings, 'security.workspace.trust.enabled': true, 'security.workspace.trust.startupPrompt': 'never' }),
    );
    const p = await openWorkbench(['--user-data-dir', userTrust, '--extensions-dir', dirs.extensions], [], untrusted);
    await p.waitForSelector('.statusbar-item[aria-label^="Restricted Mode"]', { timeout: TIMEOUT });
    await p.keyboard.press('Control+P');
    await p.waitForSelector('.quick-input-widget input');
    await p.keyboard.type('app.yaml');
    await p.waitForSelector('.quick-input-list .monaco-list-row[aria-label*="app.yaml"]');
    await p.keyboard.press('Enter');
    const item = await p.waitForSelector('[id="policylens.policylens"][aria-label*="no server"]', { timeout: TIMEOUT });
    assert.equal(
      await item.getAttribute('aria-label'),
      'warning  policylens: no server, policylens: cannot find the language server (no bundled server, and no `policylens` on PATH). Install policylens (https://github.com/policylens/policylens#editor-setup) or set `policylens.server.path`.',
    );
    const toast = await p.waitForSelector('.notification-toast:has-text("cannot find the language server")', { timeout: TIMEOUT });
    await (await toast.waitForSelector('a.monaco-button:has-text("Open Settings")')).click();
    await p.waitForSelector('.tab.active[aria-label^="Settings"]', { timeout: TIMEOUT });
    assert.equal(fs.existsSync(marker), false, 'the folder\'s server.path ran');
  });
}
