// Headless Chromium for the page tests: Debian's `chromium` driven by playwright-core (no
// browser download), a fresh profile, no network of its own; and the real policylens binary.
import { execFileSync } from 'node:child_process';
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { fileURLToPath } from 'node:url';
import { chromium } from 'playwright-core';

export const here = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..');
export const repo = path.resolve(here, '..', '..');

export const CHROMIUM = process.env.POLICYLENS_CHROMIUM ?? '/usr/bin/chromium';
const FLAGS = [
  '--headless',
  '--no-sandbox',
  '--disable-gpu',
  '--disable-quic',
  '--no-first-run',
  '--disable-background-networking',
  '--disable-component-update',
  '--disable-sync',
];

/** A browser context on a fresh user-data-dir; `close()` removes it. */
export async function launch() {
  if (!fs.existsSync(CHROMIUM)) {
    throw new Error(`no Chromium at ${CHROMIUM}: apt-get install chromium (or set POLICYLENS_CHROMIUM)`);
  }
  const profile = fs.mkdtempSync(path.join(os.tmpdir(), 'pl-chromium-'));
  const context = await chromium.launchPersistentContext(profile, {
    executablePath: CHROMIUM,
    headless: true,
    args: FLAGS,
    viewport: { width: 1400, height: 900 },
    deviceScaleFactor: 1,
  });
  return {
    context,
    async close() {
      await context.close();
      fs.rmSync(profile, { recursive: true, force: true });
    },
  };
}

/** The built server: POLICYLENS_BIN, else the release build, else the debug build. */
export function serverBinary() {
  const candidates = [
    process.env.POLICYLENS_BIN,
    path.join(repo, 'target', 'release', 'policylens'),
    path.join(repo, 'target', 'debug', 'policylens'),
  ].filter((c) => c !== undefined && c !== '');
  const found = candidates.find((c) => fs.existsSync(c));
  if (found === undefined) {
    throw new Error(`no policylens binary (looked at ${candidates.join(', ')}): cargo build -p policylens first`);
  }
  return found;
}

export function runServer(args, cwd = repo) {
  return execFileSync(serverBinary(), args, { cwd, encoding: 'utf8', env: { ...process.env, NO_COLOR: '1' } });
}

/** Where screenshots go: docs/images with UPDATE_SCREENSHOTS=1, else a temporary directory. */
export function screenshotPath(name) {
  const dir = process.env.UPDATE_SCREENSHOTS === '1' ? path.join(repo, 'docs', 'images') : fs.mkdtempSync(path.join(os.tmpdir(), 'pl-shot-'));
  fs.mkdirSync(dir, { recursive: true });
  return path.join(dir, name);
}

/** Width and height of a PNG, from its IHDR chunk. */
export function pngSize(file) {
  const b = fs.readFileSync(file);
  if (b.toString('latin1', 1, 4) !== 'PNG') {
    throw new Error(`${file} is not a PNG`);
  }
  return { width: b.readUInt32BE(16), height: b.readUInt32BE(20) };
}
