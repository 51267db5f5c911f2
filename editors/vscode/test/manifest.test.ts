// The manifest's commands, activation and settings agree with what the extension registers.
import { test } from 'node:test';
import * as assert from 'node:assert/strict';
import * as fs from 'node:fs';
import * as path from 'node:path';

const root = path.resolve(__dirname, '..', '..');
const pkg = JSON.parse(fs.readFileSync(path.join(root, 'package.json'), 'utf8'));
const source = fs.readFileSync(path.join(root, 'src', 'extension.ts'), 'utf8');

test('every registered command is contributed, and every contributed one is registered', () => {
  const contributed = pkg.contributes.commands.map((c: { command: string }) => c.command).sort();
  // The code lenses' command is the server's (executeCommandProvider): the language client
  // registers it, the middleware runs it; registering it too stops the client from starting.
  const fromServer = 'policylens.showReferences';
  const registered = [...source.matchAll(/registerCommand\('([^']+)'/g)].map((m) => m[1]);
  assert.ok(!registered.includes(fromServer), `${fromServer} must be left to the language client`);
  assert.match(source, /executeCommand: \(command, args, next\) =>\s+command === SHOW_REFERENCES/);
  assert.deepEqual(contributed, [...registered, fromServer].sort());
  assert.deepEqual(contributed, [
    'policylens.explain',
    'policylens.findReferences',
    'policylens.openSettings',
    'policylens.previewWithout',
    'policylens.restartServer',
    'policylens.showEffectivePolicy',
    'policylens.showOutput',
    'policylens.showReferences',
    'policylens.showStatus',
    'policylens.showTopology',
    'policylens.statusMenu',
  ]);
});

// A cloned repository's .vscode/settings.json must not choose what runs or which credentials
// are used: those settings are user-only (`machine`) and restricted in untrusted folders,
// where the extension declares limited support (it only reads the files).
test('executable and credential settings cannot come from a folder', () => {
  const props = pkg.contributes.configuration.properties;
  assert.equal(props['policylens.server.path'].scope, 'machine');
  assert.equal(props['policylens.cluster.kubeconfig'].scope, 'machine');
  const untrusted = pkg.capabilities.untrustedWorkspaces;
  assert.equal(untrusted.supported, 'limited');
  assert.deepEqual(untrusted.restrictedConfigurations, [
    'policylens.server.path',
    'policylens.cluster.enabled',
    'policylens.cluster.context',
    'policylens.cluster.kubeconfig',
  ]);
  for (const key of untrusted.restrictedConfigurations) {
    assert.ok(key in props, `${key} is restricted but not contributed`);
  }
});

// Hovers carry links to these commands: the client must trust exactly them.
test('hover links run only the commands the client trusts', () => {
  assert.match(source, /markdown: \{ isTrusted: \{ enabledCommands: \[EXPLAIN, SHOW_TOPOLOGY, FIND_REFERENCES\] \} \}/);
  assert.match(source, /initializationOptions: \{ hoverActions: true, statusNotifications: true \}/);
});

test('activates on YAML and runs the bundle', () => {
  assert.deepEqual(pkg.activationEvents, ['onLanguage:yaml']);
  assert.equal(pkg.main, './dist/extension.js');
});

test('every setting the extension reads is contributed', () => {
  const read = [...source.matchAll(/\.get<[^>]+>\('([^']+)'/g)].map((m) => `policylens.${m[1]}`);
  const props = Object.keys(pkg.contributes.configuration.properties);
  for (const key of read) {
    assert.ok(props.includes(key), `${key} is read but not contributed`);
  }
  assert.ok(props.includes('policylens.server.path'));
  assert.ok(props.includes('policylens.trace.server'));
});

// The settings the language server reads are the table under "Editor settings" in
// docs/configuration.md; the manifest must contribute exactly those, plus the client's own.
test('contributed settings match the server settings documented in docs/configuration.md', () => {
  const doc = fs.readFileSync(path.join(root, '..', '..', 'docs', 'configuration.md'), 'utf8');
  const section = doc.slice(doc.indexOf('## Editor settings'));
  const table = section.slice(0, section.indexOf('\n## ') === -1 ? undefined : section.indexOf('\n## '));
  const documented = [...table.matchAll(/^\| `(policylens\.[A-Za-z.]+)` \|/gm)].map((m) => m[1]);
  assert.ok(documented.length >= 4, `found ${documented.join(', ')}`);
  const clientOnly = ['policylens.server.path', 'policylens.trace.server'];
  const contributed = Object.keys(pkg.contributes.configuration.properties).filter((k) => !clientOnly.includes(k));
  assert.deepEqual(contributed.sort(), documented.sort());
});
