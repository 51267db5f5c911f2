// policylens for VS Code: starts `policylens serve` over stdio for YAML files and adds the
// commands the server's features need on the client side.

import * as path from 'node:path';
import * as vscode from 'vscode';
import {
  CloseAction,
  CloseHandlerResult,
  ErrorHandler,
  Executable,
  LanguageClient,
  LanguageClientOptions,
  Location as LspLocation,
  Position as LspPosition,
  State,
  TransportKind,
} from 'vscode-languageclient/node';

import { explainText, findServer, isExecutableFile, notFoundMessage } from './serverPath';
import { ItemState, itemView, MENU, ServerReport } from './statusItem';
import { StatusView } from './statusView';
import { showTopology } from './topologyPanel';

let client: LanguageClient | undefined;
let lastTarget = '';
let extensionPath = '';
let serverCommand: string | undefined;
let output: vscode.LogOutputChannel | undefined;
let statusItem: vscode.StatusBarItem | undefined;
// Read-only virtual documents of `Show Effective Policy`, by URI.
const views = new Map<string, string>();
const VIEW_SCHEME = 'policylens-view';
// Registered by the language client from the server's `executeCommandProvider`, not by us.
const SHOW_REFERENCES = 'policylens.showReferences';
// What a hover's links run (the server writes them only for a client that asked).
const EXPLAIN = 'policylens.explain';
const SHOW_TOPOLOGY = 'policylens.showTopology';
const FIND_REFERENCES = 'policylens.findReferences';
const statusView = new StatusView();
let statusTree: vscode.TreeView<unknown> | undefined;
// The notice that the server crashed and was not restarted: a progress notification, which
// (unlike an error message) the extension can close once the server runs again.
let crashNotice: (() => void) | undefined;

function configuredServer(): string {
  return vscode.workspace.getConfiguration('policylens').get<string>('server.path', '');
}

// Where the client and server stand, as the status item shows it.
let itemState: ItemState | undefined;
// Set while the extension itself stops the client (restart, deactivate): not a crash.
let stopping = false;

function setStatus(state: ItemState): void {
  itemState = state;
  if (statusItem !== undefined) {
    const v = itemView(state);
    statusItem.text = v.text;
    statusItem.tooltip = v.tooltip;
    statusItem.backgroundColor = v.warning ? new vscode.ThemeColor('statusBarItem.warningBackground') : undefined;
    statusItem.show();
  }
}

/** A click on the status item: what can be done about the server. */
async function statusMenu(): Promise<void> {
  const pick = await vscode.window.showQuickPick(MENU.map((m) => ({ label: m.label, command: m.command })), {
    title: 'policylens',
  });
  if (pick !== undefined) {
    await vscode.commands.executeCommand(pick.command);
  }
}

function openSettings(): Thenable<unknown> {
  return vscode.commands.executeCommand('workbench.action.openSettings', 'policylens');
}

function clearCrashNotice(): void {
  crashNotice?.();
  crashNotice = undefined;
}

function showCrashNotice(message: string): void {
  clearCrashNotice();
  void vscode.window.withProgress(
    { location: vscode.ProgressLocation.Notification, title: `policylens: ${message} Restart Server (status bar item) runs it again.` },
    () => new Promise<void>((resolve) => (crashNotice = resolve)),
  );
}

/**
 * The client's own restart policy (5 crashes in 3 minutes stop it), with its "will not be
 * restarted" message shown as a notice that is closed when the server runs again, instead of an
 * error message that stays after a successful restart.
 */
function errorHandler(defaults: () => ErrorHandler): ErrorHandler {
  return {
    error: (error, message, count) => defaults().error(error, message, count),
    closed: async (): Promise<CloseHandlerResult> => {
      const result = await defaults().closed();
      if (result.action === CloseAction.DoNotRestart) {
        showCrashNotice(result.message ?? 'the language server stopped.');
        return { ...result, handled: true };
      }
      return result;
    },
  };
}

/** Fills the Policy Status view from `policylens/status` while it is visible. */
async function refreshStatusView(): Promise<void> {
  const c = client;
  if (c === undefined || !c.isRunning() || statusTree?.visible !== true) {
    return;
  }
  try {
    statusView.setAnswer(await c.sendRequest<unknown>('policylens/status', {}));
  } catch {
    // The next report of a finished analysis asks again.
  }
}

function createClient(command: string): LanguageClient {
  const run: Executable = { command, args: ['serve'], transport: TransportKind.stdio };
  let defaults: ErrorHandler | undefined;
  const clientOptions: LanguageClientOptions = {
    documentSelector: [{ scheme: 'file', language: 'yaml' }],
    // The server reads section `policylens` through workspace/configuration and asks to be told
    // when it changes; this names the section for those notifications.
    synchronize: { configurationSection: 'policylens' },
    outputChannel: output,
    // Hovers end in links to these commands; the status item follows the server's reports.
    initializationOptions: { hoverActions: true, statusNotifications: true },
    markdown: { isTrusted: { enabledCommands: [EXPLAIN, SHOW_TOPOLOGY, FIND_REFERENCES] } },
    // The server lists its code lenses' command in `executeCommandProvider`, so the client
    // registers that command itself (to forward it to the server). The extension must not
    // register it too, or the client fails to start ("command ... already exists"); it runs
    // here instead, as VS Code's references peek.
    middleware: {
      executeCommand: (command, args, next) =>
        command === SHOW_REFERENCES ? showReferences(args[0], args[1], args[2]) : next(command, args),
    },
    errorHandler: errorHandler(() => {
      defaults ??= c.createDefaultErrorHandler();
      return defaults;
    }),
  };
  // The id `policylens` makes the client honour the `policylens.trace.server` setting.
  const c = new LanguageClient('policylens', 'policylens', { run, debug: run }, clientOptions);
  return c;
}

function lookup() {
  return findServer({
    extensionPath,
    configured: configuredServer(),
    pathVar: process.env.PATH ?? '',
    platform: process.platform,
    arch: process.arch,
    isExecutable: isExecutableFile,
  });
}

/** The server binary when the language server is not running (the topology view only runs the CLI). */
function foundServer(): string | undefined {
  return lookup()?.command;
}

async function start(): Promise<void> {
  const found = lookup();
  if (found === undefined) {
    const message = notFoundMessage(configuredServer());
    setStatus({ kind: 'missing', message });
    output?.info(message);
    void vscode.window.showErrorMessage(message, 'Open Settings').then((choice) => {
      if (choice === 'Open Settings') {
        void vscode.commands.executeCommand('workbench.action.openSettings', 'policylens.server.path');
      }
    });
    return;
  }
  output?.info(`policylens: starting ${found.command} serve (${found.source})`);
  const { command, source } = found;
  setStatus({ kind: 'starting', command, source });
  serverCommand = command;
  const c = createClient(command);
  client = c;
  c.onNotification('policylens/serverStatus', (report: ServerReport) => {
    if (client === c) {
      setStatus({ kind: 'running', command, source, report });
      // After every analysis: the Policy Status view follows the files, without a refresh.
      if (report.state === 'ready') {
        void refreshStatusView();
      }
    }
  });
  // The client gives up on a server that keeps crashing: the item says so, in the warning
  // colour, instead of still saying it runs.
  c.onDidChangeState((e) => {
    if (client !== c || stopping) {
      return;
    }
    if (e.newState === State.Stopped) {
      setStatus({ kind: 'stopped', why: 'The language server stopped (see Output).' });
    } else if (e.newState === State.Starting) {
      setStatus({ kind: 'starting', command, source });
    } else if (e.newState === State.Running) {
      clearCrashNotice();
      if (itemState?.kind !== 'running') {
        setStatus({ kind: 'running', command, source });
      }
    }
  });
  try {
    await c.start();
    clearCrashNotice();
    if (itemState?.kind === 'starting') {
      setStatus({ kind: 'running', command, source });
    }
  } catch (e) {
    const message = e instanceof Error ? e.message : String(e);
    setStatus({ kind: 'stopped', why: `Cannot start \`${command} serve\`: ${message}.` });
    void vscode.window.showErrorMessage(`policylens: cannot start \`${command} serve\` (${message}).`);
  }
}

async function stop(): Promise<void> {
  const c = client;
  client = undefined;
  if (c !== undefined && c.isRunning()) {
    stopping = true;
    try {
      await c.stop();
    } finally {
      stopping = false;
    }
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
    // The readable text `policylens explain` prints, from the server (unsaved edits included).
    const result = await c.sendRequest<unknown>('policylens/explain', { target: lastTarget, format: 'text' });
    await showView(`effective policy ${lastTarget.replace(/\//g, ' ')}`, explainText(result));
  } catch (e) {
    const message = e instanceof Error ? e.message : String(e);
    void vscode.window.showErrorMessage(`policylens explain ${lastTarget}: ${message}`);
  }
}

/// `policylens.showEffectivePolicy`: the explanation of the object under the cursor, in a
/// read-only document.
async function showEffectivePolicy(): Promise<void> {
  const c = runningClient();
  const editor = vscode.window.activeTextEditor;
  if (c === undefined || editor === undefined) {
    return;
  }
  try {
    const result = await c.sendRequest<unknown>('policylens/explain', {
      textDocument: c.code2ProtocolConverter.asTextDocumentIdentifier(editor.document),
      position: c.code2ProtocolConverter.asPosition(editor.selection.active),
      format: 'text',
    });
    const name = path.basename(editor.document.uri.fsPath);
    const line = editor.selection.active.line + 1;
    await showView(`effective policy ${name}:${line}`, explainText(result));
  } catch (e) {
    const message = e instanceof Error ? e.message : String(e);
    void vscode.window.showErrorMessage(`policylens: ${message}`);
  }
}

/// `policylens.previewWithout`: what deleting a policy would do (`policylens diff --without`),
/// in a read-only preview. The "Preview removing this policy" code action runs it with the
/// policy's document and position; from the palette it takes the policy under the cursor.
async function previewWithout(arg?: { textDocument?: unknown; position?: unknown; policy?: string }): Promise<void> {
  const c = runningClient();
  if (c === undefined) {
    return;
  }
  let params: Record<string, unknown>;
  if (arg?.textDocument !== undefined && arg.position !== undefined) {
    params = { textDocument: arg.textDocument, position: arg.position };
  } else {
    const editor = vscode.window.activeTextEditor;
    if (editor === undefined) {
      return;
    }
    params = {
      textDocument: c.code2ProtocolConverter.asTextDocumentIdentifier(editor.document),
      position: c.code2ProtocolConverter.asPosition(editor.selection.active),
    };
  }
  try {
    const result = await c.sendRequest<{ title: string; text: string }>('policylens/without', { ...params, format: 'human' });
    await showView(result.title.replace(/\//g, ' '), result.text);
  } catch (e) {
    const message = e instanceof Error ? e.message : String(e);
    void vscode.window.showErrorMessage(`policylens: ${message}`);
  }
}

/// A read-only text document beside the editor.
async function showView(title: string, text: string): Promise<void> {
  const uri = vscode.Uri.from({ scheme: VIEW_SCHEME, path: `/${title}.txt` });
  views.set(uri.toString(), text);
  const doc = await vscode.workspace.openTextDocument(uri);
  await vscode.window.showTextDocument(doc, { preview: true, viewColumn: vscode.ViewColumn.Beside });
}

/// A hover's References link: `[uri, position]` in LSP form, VS Code's references peek.
async function findReferences(uri: string, position: LspPosition): Promise<void> {
  const c = runningClient();
  if (c === undefined) {
    return;
  }
  const p2c = c.protocol2CodeConverter;
  await vscode.commands.executeCommand('editor.action.findReferences', p2c.asUri(uri), p2c.asPosition(position));
}

/// `policylens.showStatus`: refreshes the Policy Status view from `policylens/status` and shows it.
async function showStatus(): Promise<void> {
  const c = runningClient();
  if (c === undefined) {
    return;
  }
  try {
    statusView.setAnswer(await c.sendRequest<unknown>('policylens/status', {}));
    await vscode.commands.executeCommand('policylens.status.focus');
  } catch (e) {
    const message = e instanceof Error ? e.message : String(e);
    void vscode.window.showErrorMessage(`policylens status: ${message}`);
  }
}

async function restartServer(): Promise<void> {
  await stop();
  await start();
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
  extensionPath = context.extensionPath;
  output = vscode.window.createOutputChannel('policylens', { log: true });
  statusItem = vscode.window.createStatusBarItem(vscode.StatusBarAlignment.Right, 10);
  statusItem.command = 'policylens.statusMenu';
  context.subscriptions.push(
    output,
    statusItem,
    vscode.workspace.registerTextDocumentContentProvider(VIEW_SCHEME, {
      provideTextDocumentContent: (uri) => views.get(uri.toString()) ?? '',
    }),
    vscode.commands.registerCommand('policylens.explain', explain),
    vscode.commands.registerCommand('policylens.showEffectivePolicy', showEffectivePolicy),
    vscode.commands.registerCommand('policylens.previewWithout', previewWithout),
    (statusTree = vscode.window.createTreeView('policylens.status', { treeDataProvider: statusView })),
    // Filled when it comes into view (and after every analysis while it is in view).
    statusTree.onDidChangeVisibility((e) => (e.visible ? refreshStatusView() : undefined)),
    vscode.commands.registerCommand('policylens.showStatus', showStatus),
    vscode.commands.registerCommand('policylens.showTopology', (focus?: unknown) =>
      showTopology(context, serverCommand ?? foundServer(), output, typeof focus === 'string' ? focus : undefined),
    ),
    vscode.commands.registerCommand('policylens.findReferences', findReferences),
    vscode.commands.registerCommand('policylens.statusMenu', statusMenu),
    vscode.commands.registerCommand('policylens.openSettings', openSettings),
    vscode.commands.registerCommand('policylens.restartServer', restartServer),
    vscode.commands.registerCommand('policylens.showOutput', () => output?.show(true)),
    vscode.workspace.onDidChangeConfiguration(async (event) => {
      if (event.affectsConfiguration('policylens.server.path')) {
        await restartServer();
      }
    }),
  );
  await start();
}

export async function deactivate(): Promise<void> {
  await stop();
}
