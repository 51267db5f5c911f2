// policylens for VS Code: starts `policylens serve` over stdio for YAML files and adds the
// commands the server's features need on the client side.

import * as vscode from 'vscode';
import {
  Executable,
  LanguageClient,
  LanguageClientOptions,
  Location as LspLocation,
  Position as LspPosition,
  TransportKind,
} from 'vscode-languageclient/node';

let client: LanguageClient | undefined;
let lastTarget = '';

function serverCommand(): string {
  const configured = vscode.workspace.getConfiguration('policylens').get<string>('path', 'policylens').trim();
  return configured === '' ? 'policylens' : configured;
}

function createClient(): LanguageClient {
  const run: Executable = { command: serverCommand(), args: ['serve'], transport: TransportKind.stdio };
  const clientOptions: LanguageClientOptions = {
    documentSelector: [{ scheme: 'file', language: 'yaml' }],
    // The server reads section `policylens` through workspace/configuration and asks to be told
    // when it changes; this names the section for those notifications.
    synchronize: { configurationSection: 'policylens' },
  };
  // The id `policylens` makes the client honour the `policylens.trace.server` setting.
  return new LanguageClient('policylens', 'policylens', { run, debug: run }, clientOptions);
}

async function start(): Promise<void> {
  client = createClient();
  try {
    await client.start();
  } catch (e) {
    const message = e instanceof Error ? e.message : String(e);
    void vscode.window.showErrorMessage(
      `policylens: cannot start \`${serverCommand()} serve\` (${message}). ` +
        'Install policylens or set `policylens.path`.',
    );
  }
}

async function stop(): Promise<void> {
  const c = client;
  client = undefined;
  if (c !== undefined && c.isRunning()) {
    await c.stop();
  }
}

function runningClient(): LanguageClient | undefined {
  if (client === undefined || !client.isRunning()) {
    void vscode.window.showErrorMessage('policylens: the language server is not running.');
    return undefined;
  }
  return client;
}

/// `policylens.explain [target]`: the `policylens/explain` request's JSON in a new editor.
async function explain(target?: string): Promise<void> {
  const c = runningClient();
  if (c === undefined) {
    return;
  }
  if (typeof target !== 'string' || target.trim() === '') {
    target = await vscode.window.showInputBox({
      title: 'policylens: explain',
      prompt: 'Target: Kind[.group]/[namespace/]name[#section]',
      placeHolder: 'HTTPRoute/shop/checkout#pay',
      value: lastTarget,
      ignoreFocusOut: true,
    });
    if (target === undefined || target.trim() === '') {
      return;
    }
  }
  lastTarget = target.trim();
  try {
    const result = await c.sendRequest<unknown>('policylens/explain', { target: lastTarget });
    const doc = await vscode.workspace.openTextDocument({
      language: 'json',
      content: JSON.stringify(result, null, 2) + '\n',
    });
    await vscode.window.showTextDocument(doc, { preview: false });
  } catch (e) {
    const message = e instanceof Error ? e.message : String(e);
    void vscode.window.showErrorMessage(`policylens explain ${lastTarget}: ${message}`);
  }
}

/// The command of the server's code lenses ("N policies affect this"): arguments are
/// `[uri, position, locations]` in LSP form; VS Code's references peek shows them.
async function showReferences(uri: string, position: LspPosition, locations: LspLocation[]): Promise<void> {
  const c = runningClient();
  if (c === undefined) {
    return;
  }
  const p2c = c.protocol2CodeConverter;
  await vscode.commands.executeCommand(
    'editor.action.showReferences',
    p2c.asUri(uri),
    p2c.asPosition(position),
    locations.map((l) => p2c.asLocation(l)),
  );
}

export async function activate(context: vscode.ExtensionContext): Promise<void> {
  context.subscriptions.push(
    vscode.commands.registerCommand('policylens.explain', explain),
    vscode.commands.registerCommand('policylens.showReferences', showReferences),
    vscode.workspace.onDidChangeConfiguration(async (event) => {
      if (event.affectsConfiguration('policylens.path')) {
        await stop();
        await start();
      }
    }),
  );
  await start();
}

export async function deactivate(): Promise<void> {
  await stop();
}
