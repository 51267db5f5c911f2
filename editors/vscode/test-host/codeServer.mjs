// A real VS Code host without a download from outside the npm registry: code-server from npm,
// installed once into a cache directory. Its postinstall compiles the native modules with
// node-gyp (headers from the local Node; kerberos needs Debian's libkrb5-dev) and fetches
// ripgrep from GitHub, which is out of reach here: Debian's `rg` is put where that download
// would land (the package's own download cache), so the fetch never happens.
import { spawn, spawnSync } from 'node:child_process';
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';

// The last code-server whose engines.node is 20 (4.103 and later want Node 22 or 24);
// VS Code 1.100.3, which the extension's engines (^1.91.0) accepts.
export const VERSION = '4.100.3';
// What that release's lib/vscode pins: @vscode/ripgrep and the ripgrep build it fetches.
const RIPGREP_PACKAGE = '1.15.11';
const RIPGREP_BUILD = 'v13.0.0-10';
const RIPGREP_TARGET = { x64: 'x86_64-unknown-linux-musl', arm64: 'aarch64-unknown-linux-musl' };

const NEEDS_APT = 'apt-get install ripgrep libkrb5-dev g++ make';

function cacheRoot() {
  const base = process.env.XDG_CACHE_HOME || path.join(os.homedir(), '.cache');
  return process.env.POLICYLENS_CODE_SERVER_DIR || path.join(base, 'policylens', `code-server-${VERSION}`);
}

function binOf(dir) {
  return path.join(dir, 'node_modules', '.bin', 'code-server');
}

function which(name) {
  return spawnSync('sh', ['-c', `command -v ${name}`], { encoding: 'utf8' }).stdout.trim();
}

/** Why code-server cannot be installed on this machine, or undefined when it can be tried. */
function missingPrerequisite() {
  if (process.platform !== 'linux') {
    return `the host test runs on Linux only (this is ${process.platform})`;
  }
  const major = Number(process.versions.node.split('.')[0]);
  if (major !== 20) {
    return `code-server ${VERSION} installs on Node 20 only (this is Node ${process.versions.node})`;
  }
  if (RIPGREP_TARGET[process.arch] === undefined) {
    return `no ripgrep build name for ${process.arch}`;
  }
  for (const tool of ['rg', 'g++', 'make', 'python3']) {
    if (which(tool) === '') {
      return `\`${tool}\` is missing (${NEEDS_APT})`;
    }
  }
  if (!fs.existsSync('/usr/include/gssapi/gssapi.h')) {
    return `the Kerberos headers are missing (${NEEDS_APT})`;
  }
  return undefined;
}

function run(cmd, args, options) {
  return new Promise((resolve) => {
    const child = spawn(cmd, args, { ...options, stdio: ['ignore', 'pipe', 'pipe'] });
    const log = fs.createWriteStream(options.log);
    child.stdout.pipe(log);
    child.stderr.pipe(log);
    child.on('close', (code) => log.end(() => resolve(code)));
  });
}

/**
 * code-server's executable, installing it first when the cache has none: `{ bin }`, or
 * `{ skip }` with the reason when it cannot be installed here.
 */
export async function ensureCodeServer() {
  const dir = cacheRoot();
  if (fs.existsSync(path.join(dir, 'installed')) && fs.existsSync(binOf(dir))) {
    return { bin: binOf(dir) };
  }
  const missing = missingPrerequisite();
  if (missing !== undefined) {
    return { skip: missing };
  }
  // Installed beside the final directory and renamed into place, so a half install is never used.
  fs.mkdirSync(path.dirname(dir), { recursive: true });
  const work = fs.mkdtempSync(`${dir}.partial-`);
  const tmp = path.join(work, 'tmp');
  const cache = path.join(tmp, `vscode-ripgrep-cache-${RIPGREP_PACKAGE}`);
  const stage = path.join(work, 'rg');
  fs.mkdirSync(cache, { recursive: true });
  fs.mkdirSync(stage);
  fs.copyFileSync(which('rg'), path.join(stage, 'rg'));
  const tarball = path.join(cache, `ripgrep-${RIPGREP_BUILD}-${RIPGREP_TARGET[process.arch]}.tar.gz`);
  if (spawnSync('tar', ['czf', tarball, '-C', stage, 'rg']).status !== 0) {
    return { skip: 'cannot pack Debian ripgrep for code-server' };
  }
  fs.writeFileSync(path.join(work, 'package.json'), '{ "name": "policylens-code-server", "private": true }\n');
  const log = path.join(work, 'install.log');
  const started = Date.now();
  console.log(`# installing code-server ${VERSION} into ${dir} (compiles native modules; a few minutes)`);
  const code = await run('npm', ['install', '--no-audit', '--no-fund', '--foreground-scripts', `code-server@${VERSION}`], {
    cwd: work,
    log,
    env: {
      ...process.env,
      TMPDIR: tmp,
      // code-server's postinstall refuses to run as root without it (npm 11 ignores the flag
      // itself but still passes it to scripts); node-pty's postinstall runs `npx node-gyp`.
      npm_config_unsafe_perm: 'true',
      npm_config_yes: 'true',
    },
  });
  if (code !== 0 || !fs.existsSync(binOf(work))) {
    const tail = fs.readFileSync(log, 'utf8').trimEnd().split('\n').slice(-15).join('\n');
    for (const name of ['node_modules', 'tmp', 'rg']) {
      fs.rmSync(path.join(work, name), { recursive: true, force: true }); // keeps the log
    }
    return { skip: `npm install code-server@${VERSION} failed (exit ${code}; log ${log}):\n${tail}` };
  }
  fs.rmSync(tmp, { recursive: true, force: true });
  fs.rmSync(stage, { recursive: true, force: true });
  fs.writeFileSync(path.join(work, 'installed'), `${VERSION}\n`);
  fs.rmSync(dir, { recursive: true, force: true });
  fs.renameSync(work, dir);
  console.log(`# code-server ${VERSION} installed in ${Math.round((Date.now() - started) / 1000)} s`);
  return { bin: binOf(dir) };
}
