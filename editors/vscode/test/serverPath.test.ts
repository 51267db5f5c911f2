import { test } from 'node:test';
import * as assert from 'node:assert/strict';
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';

import {
  explainText,
  findServer,
  isExecutableFile,
  LookupEnv,
  notFoundMessage,
  platformTarget,
} from '../src/serverPath';

function env(files: string[], over: Partial<LookupEnv> = {}): LookupEnv {
  const set = new Set(files);
  return {
    extensionPath: '/ext',
    configured: '',
    pathVar: '/usr/local/bin:/usr/bin',
    platform: 'linux',
    arch: 'x64',
    isExecutable: (f) => set.has(f),
    ...over,
  };
}

test('the bundled binary wins over the setting and PATH', () => {
  const e = env(['/ext/server/linux-x64/policylens', '/opt/pl', '/usr/bin/policylens'], { configured: '/opt/pl' });
  assert.deepEqual(findServer(e), { command: '/ext/server/linux-x64/policylens', source: 'bundled' });
});

test('a bundled binary of another platform is not used', () => {
  const e = env(['/ext/server/darwin-arm64/policylens', '/usr/bin/policylens']);
  assert.deepEqual(findServer(e), { command: '/usr/bin/policylens', source: 'path' });
});

test('the setting, as a path, is used when nothing is bundled', () => {
  const e = env(['/opt/pl', '/usr/bin/policylens'], { configured: ' /opt/pl ' });
  assert.deepEqual(findServer(e), { command: '/opt/pl', source: 'setting' });
});

test('a setting naming a missing file finds nothing rather than falling back', () => {
  const e = env(['/usr/bin/policylens'], { configured: '/opt/missing' });
  assert.equal(findServer(e), undefined);
});

test('a bare name in the setting is looked up on PATH', () => {
  const e = env(['/usr/bin/policylens-dev'], { configured: 'policylens-dev' });
  assert.deepEqual(findServer(e), { command: '/usr/bin/policylens-dev', source: 'setting' });
});

test('PATH is searched in order', () => {
  const e = env(['/usr/local/bin/policylens', '/usr/bin/policylens']);
  assert.deepEqual(findServer(e), { command: '/usr/local/bin/policylens', source: 'path' });
});

test('Windows: .exe, ; separator and win32 paths', () => {
  const e = env(['C:\\tools\\policylens.exe'], { platform: 'win32', pathVar: 'C:\\bin;C:\\tools' });
  assert.deepEqual(findServer(e), { command: 'C:\\tools\\policylens.exe', source: 'path' });
});

test('nothing found gives undefined and a message with the install link', () => {
  assert.equal(findServer(env([])), undefined);
  assert.equal(
    notFoundMessage(''),
    'policylens: cannot find the language server (no bundled server, and no `policylens` on PATH). ' +
      'Install policylens (https://github.com/policylens/policylens#editor-setup) or set `policylens.server.path`.',
  );
  assert.match(notFoundMessage('/opt/x'), /`policylens.server.path` is `\/opt\/x`, which is not an executable/);
});

test('platformTarget names VSIX targets', () => {
  assert.equal(platformTarget('linux', 'x64'), 'linux-x64');
  assert.equal(platformTarget('darwin', 'arm64'), 'darwin-arm64');
  assert.equal(platformTarget('win32', 'x64'), 'win32-x64');
});

test('isExecutableFile checks the file, its kind and its execute bit', { skip: process.platform === 'win32' }, () => {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'pl-'));
  const exe = path.join(dir, 'a');
  const plain = path.join(dir, 'b');
  fs.writeFileSync(exe, '#!/bin/sh\n', { mode: 0o755 });
  fs.writeFileSync(plain, 'x', { mode: 0o644 });
  assert.equal(isExecutableFile(exe), true);
  assert.equal(isExecutableFile(plain), false);
  assert.equal(isExecutableFile(dir), false);
  assert.equal(isExecutableFile(path.join(dir, 'missing')), false);
  fs.rmSync(dir, { recursive: true });
});

test('the effective-policy view shows the server\'s explain text, else the JSON', () => {
  assert.equal(explainText({ target: 'Gateway/infra/edge', text: 'Gateway/infra/edge\n\nno policy reaches it\n' }),
    'Gateway/infra/edge\n\nno policy reaches it\n');
  assert.equal(explainText({ target: 'Gateway/infra/edge', policies: [] }), '{\n  "target": "Gateway/infra/edge",\n  "policies": []\n}\n');
});
