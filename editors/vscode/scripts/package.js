#!/usr/bin/env node
// Builds a platform VSIX with the release server inside:
//   node scripts/package.js [--target linux-x64] [--binary PATH] [--no-build]
// Without --binary it runs `cargo build --release -p policylens` in the repository.
'use strict';

const { execFileSync } = require('node:child_process');
const fs = require('node:fs');
const path = require('node:path');

const here = path.resolve(__dirname, '..');
const repo = path.resolve(here, '..', '..');

function arg(name, fallback) {
  const i = process.argv.indexOf(name);
  return i >= 0 && i + 1 < process.argv.length ? process.argv[i + 1] : fallback;
}

const target = arg('--target', `${process.platform}-${process.arch}`);
const exe = target.startsWith('win32-') ? 'policylens.exe' : 'policylens';
let binary = arg('--binary', undefined);
if (binary === undefined) {
  if (!process.argv.includes('--no-build')) {
    execFileSync('cargo', ['build', '--release', '-p', 'policylens'], { cwd: repo, stdio: 'inherit' });
  }
  binary = path.join(repo, 'target', 'release', exe);
}
if (!fs.existsSync(binary)) {
  console.error(`package: no server binary at ${binary}`);
  process.exit(1);
}

// Only this target's binary goes in: a VSIX is per platform.
const serverDir = path.join(here, 'server');
fs.rmSync(serverDir, { recursive: true, force: true });
fs.mkdirSync(path.join(serverDir, target), { recursive: true });
const dest = path.join(serverDir, target, exe);
fs.copyFileSync(binary, dest);
fs.chmodSync(dest, 0o755);

const version = JSON.parse(fs.readFileSync(path.join(here, 'package.json'), 'utf8')).version;
const out = path.join(here, `policylens-${target}-${version}.vsix`);
const vsce = path.join(here, 'node_modules', '.bin', process.platform === 'win32' ? 'vsce.cmd' : 'vsce');
execFileSync(vsce, ['package', '--target', target, '--out', out], { cwd: here, stdio: 'inherit' });
console.log(`package: ${out}`);
