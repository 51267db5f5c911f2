// `policylens.showTopology`: a webview drawing `policylens graph --format json` of the active
// file's workspace folder; a click on a node opens its definition. The drawing is done by
// dist/topology.js inside the webview (src/webview/topology.ts), with no network access.

import { execFile } from 'node:child_process';
import * as path from 'node:path';
import * as vscode from 'vscode';

import { graphArgs } from './serverPath';
import { GraphJson, parseGraph } from './topologyModel';
import { randomNonce, topologyHtml } from './topologyPage';

let panel: vscode.WebviewPanel | undefined;
let folder = '';
// The node the view is focused on (`graph --focus`); empty: the whole workspace.
let focus = '';

function runGraph(command: string, dir: string): Promise<GraphJson | string> {
  return new Promise((resolve) => {
    execFile(
      command,
      graphArgs(dir, focus),
      { cwd: dir, timeout: 60_000, maxBuffer: 256 * 1024 * 1024 },
      (err, stdout, stderr) => {
        if (err !== null) {
          // The CLI's own message (`policylens: … did you mean …?`) says it best.
          resolve(stderr.trim() || `policylens graph: ${err.message}`);
          return;
        }
        resolve(parseGraph(stdout));
      },
    );
  });
}

async function post(command: string, log: vscode.LogOutputChannel | undefined): Promise<void> {
  const p = panel;
  if (p === undefined) {
    return;
  }
  const graph = await runGraph(command, folder);
  if (typeof graph === 'string') {
    log?.warn(graph);
    await p.webview.postMessage({ type: 'error', message: graph });
  } else {
    await p.webview.postMessage({ type: 'graph', graph, focus });
  }
}

async function openDefinition(file: unknown, line: unknown): Promise<void> {
  if (typeof file !== 'string' || file === '') {
    return;
  }
  // The CLI ran in the folder: its paths are relative to it.
  const uri = vscode.Uri.file(path.resolve(folder, file));
  const at = new vscode.Position(typeof line === 'number' && line >= 0 ? line : 0, 0);
  await vscode.window.showTextDocument(uri, {
    selection: new vscode.Range(at, at),
    viewColumn: vscode.ViewColumn.One,
  });
}

/** Opens (or refreshes) the topology view; `command` is the server binary. */
export async function showTopology(
  context: vscode.ExtensionContext,
  command: string | undefined,
  log: vscode.LogOutputChannel | undefined,
  focusOn?: string,
): Promise<void> {
  // A hover's "Show in topology" link names the object to focus on.
  if (focusOn !== undefined) {
    focus = focusOn;
  }
  const active = vscode.window.activeTextEditor?.document.uri;
  const ws = (active !== undefined ? vscode.workspace.getWorkspaceFolder(active) : undefined) ??
    vscode.workspace.workspaceFolders?.[0];
  if (command === undefined) {
    void vscode.window.showErrorMessage('policylens: no server binary found to draw the topology with.');
    return;
  }
  if (ws === undefined) {
    void vscode.window.showErrorMessage('policylens: open a folder to see its topology.');
    return;
  }
  folder = ws.uri.fsPath;
  const title = `Topology: ${ws.name}`;
  if (panel !== undefined) {
    panel.title = title;
    panel.reveal();
    await post(command, log);
    return;
  }
  const dist = vscode.Uri.joinPath(context.extensionUri, 'dist');
  const p = vscode.window.createWebviewPanel('policylens.topology', title, vscode.ViewColumn.Beside, {
    enableScripts: true,
    localResourceRoots: [dist],
    retainContextWhenHidden: true,
  });
  panel = p;
  const webview = p.webview;
  webview.html = topologyHtml({
    cspSource: webview.cspSource,
    nonce: randomNonce(),
    scriptUri: webview.asWebviewUri(vscode.Uri.joinPath(dist, 'topology.js')).toString(),
    title,
  });
  p.onDidDispose(() => {
    panel = undefined;
  }, undefined, context.subscriptions);
  webview.onDidReceiveMessage(
    async (m: { type?: string; file?: unknown; line?: unknown; ref?: unknown }) => {
      if (m.type === 'ready') {
        await post(command, log);
      } else if (m.type === 'focus') {
        focus = typeof m.ref === 'string' ? m.ref.trim() : '';
        await post(command, log);
      } else if (m.type === 'open') {
        await openDefinition(m.file, m.line);
      }
    },
    undefined,
    context.subscriptions,
  );
}
