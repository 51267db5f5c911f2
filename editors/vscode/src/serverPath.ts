// Where the `policylens` executable comes from. Kept free of the `vscode` module so that node's
// test runner can exercise it without an editor host.

import * as fs from 'node:fs';
import * as path from 'node:path';

export const INSTALL_URL = 'https://github.com/policylens/policylens#editor-setup';

/** The VSIX platform target (`linux-x64`, `win32-x64`, `darwin-arm64`, ...) of this host. */
export function platformTarget(platform: string = process.platform, arch: string = process.arch): string {
  return `${platform}-${arch}`;
}

export function executableName(platform: string = process.platform): string {
  return platform === 'win32' ? 'policylens.exe' : 'policylens';
}

export type ServerSource = 'bundled' | 'setting' | 'path';

export interface FoundServer {
  command: string;
  source: ServerSource;
}

export interface LookupEnv {
  /** The extension's install directory. */
  extensionPath: string;
  /** The `policylens.server.path` setting, possibly empty. */
  configured: string;
  /** `PATH` as the editor sees it. */
  pathVar: string;
  platform: string;
  arch: string;
  isExecutable: (file: string) => boolean;
}

export function isExecutableFile(file: string): boolean {
  try {
    if (!fs.statSync(file).isFile()) {
      return false;
    }
    // Windows has no execute bit: existence is all one can check.
    if (process.platform !== 'win32') {
      fs.accessSync(file, fs.constants.X_OK);
    }
    return true;
  } catch {
    return false;
  }
}

/**
 * The server to start: the binary bundled in a platform VSIX, else the `policylens.server.path`
 * setting, else `policylens` on PATH; `undefined` when none is there.
 */
export function findServer(env: LookupEnv): FoundServer | undefined {
  const exe = executableName(env.platform);
  const bundled = path.join(env.extensionPath, 'server', platformTarget(env.platform, env.arch), exe);
  if (env.isExecutable(bundled)) {
    return { command: bundled, source: 'bundled' };
  }
  const configured = env.configured.trim();
  if (configured !== '') {
    // A bare name is looked up on PATH like the default; a path must name an executable.
    if (!configured.includes('/') && !configured.includes('\\')) {
      const hit = searchPath(configured, env);
      return hit === undefined ? undefined : { command: hit, source: 'setting' };
    }
    return env.isExecutable(configured) ? { command: configured, source: 'setting' } : undefined;
  }
  const hit = searchPath(exe, env);
  return hit === undefined ? undefined : { command: hit, source: 'path' };
}

function searchPath(name: string, env: LookupEnv): string | undefined {
  const sep = env.platform === 'win32' ? ';' : ':';
  for (const dir of env.pathVar.split(sep)) {
    if (dir === '') {
      continue;
    }
    const candidate = env.platform === 'win32' ? path.win32.join(dir, name) : path.posix.join(dir, name);
    if (env.isExecutable(candidate)) {
      return candidate;
    }
  }
  return undefined;
}

/** The message shown when no server can be found. */
export function notFoundMessage(configured: string): string {
  const c = configured.trim();
  const what =
    c === ''
      ? 'no bundled server, and no `policylens` on PATH'
      : `\`policylens.server.path\` is \`${c}\`, which is not an executable`;
  return `policylens: cannot find the language server (${what}). Install policylens (${INSTALL_URL}) or set \`policylens.server.path\`.`;
}

/** The readable text of a `policylens/explain` answer asked with `format: 'text'` (what
 *  `policylens explain` prints); an answer without one is shown as its JSON. */
export function explainText(answer: unknown): string {
  const t = (answer as { text?: unknown } | null)?.text;
  return typeof t === 'string' ? t : JSON.stringify(answer, null, 2) + '\n';
}

/** The CLI arguments for the topology view's graph of workspace folder `folder`, kept to one
 *  node's neighbourhood when `focus` is a reference. */
export function graphArgs(folder: string, focus = ''): string[] {
  const f = focus.trim();
  return ['graph', '--format', 'json', ...(f === '' ? [] : ['--focus', f]), folder];
}
