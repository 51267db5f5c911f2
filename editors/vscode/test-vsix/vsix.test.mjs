// Inspects the platform VSIX that `npm run package` built: manifest, bundle, server binary.
// VSIX=path overrides the file; by default the one of this host's target in the extension dir.
import { test } from 'node:test';
import * as assert from 'node:assert/strict';
import { execFileSync } from 'node:child_process';
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { fileURLToPath } from 'node:url';
import yauzl from 'yauzl';

const here = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..');
const pkg = JSON.parse(fs.readFileSync(path.join(here, 'package.json'), 'utf8'));
const target = process.env.VSIX_TARGET ?? `${process.platform}-${process.arch}`;
const vsix = process.env.VSIX ?? path.join(here, `policylens-${target}-${pkg.version}.vsix`);

function readZip(file) {
  return new Promise((resolve, reject) => {
    yauzl.open(file, { lazyEntries: true }, (err, zip) => {
      if (err) return reject(err);
      const entries = new Map();
      zip.on('entry', (entry) => {
        zip.openReadStream(entry, (e, stream) => {
          if (e) return reject(e);
          const chunks = [];
          stream.on('data', (c) => chunks.push(c));
          stream.on('end', () => {
            entries.set(entry.fileName, { mode: (entry.externalFileAttributes >>> 16) & 0o777, data: Buffer.concat(chunks) });
            zip.readEntry();
          });
        });
      });
      zip.on('end', () => resolve(entries));
      zip.on('error', reject);
      zip.readEntry();
    });
  });
}

const entries = await readZip(vsix);

test('the VSIX holds the bundle, the manifest and only this target\'s server', () => {
  const names = [...entries.keys()].sort();
  assert.ok(names.includes('extension/dist/extension.js'));
  // The topology view's renderer: bundled, nothing fetched at run time.
  assert.ok(names.includes('extension/dist/topology.js'));
  assert.ok(names.includes('extension/package.json'));
  assert.ok(names.includes('extension.vsixmanifest'));
  const servers = names.filter((n) => n.startsWith('extension/server/'));
  assert.deepEqual(servers, [`extension/server/${target}/policylens`]);
  // No sources, tests, maps or node_modules: esbuild put the client in one file.
  assert.deepEqual(names.filter((n) => /\/(src|test|node_modules|out-test)\/|\.map$|\.ts$/.test(n)), []);
});

test('the vsixmanifest names the platform target', () => {
  const manifest = entries.get('extension.vsixmanifest').data.toString('utf8');
  assert.match(manifest, new RegExp(`TargetPlatform="${target}"`));
});

test('the packaged manifest activates on YAML and contributes the commands', () => {
  const m = JSON.parse(entries.get('extension/package.json').data.toString('utf8'));
  assert.deepEqual(m.activationEvents, ['onLanguage:yaml']);
  assert.equal(m.main, './dist/extension.js');
  assert.deepEqual(m.contributes.commands.map((c) => c.command).sort(), [
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
  // Limited support in untrusted folders: the packaged manifest keeps the declaration.
  assert.equal(m.capabilities.untrustedWorkspaces.supported, 'limited');
});

test('the bundled server is executable and runs', { skip: !target.startsWith(`${process.platform}-`) }, () => {
  const entry = entries.get(`extension/server/${target}/policylens`);
  assert.equal(entry.mode & 0o111, 0o111, `mode ${entry.mode.toString(8)}`);
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'pl-vsix-'));
  const bin = path.join(dir, 'policylens');
  fs.writeFileSync(bin, entry.data, { mode: entry.mode });
  const out = execFileSync(bin, ['--version'], { encoding: 'utf8' });
  assert.match(out, /^policylens \d+\.\d+\.\d+/);
  fs.rmSync(dir, { recursive: true });
});
