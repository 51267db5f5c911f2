// The Policy Status tree view: one row per policy (icon coloured by health, reason and
// enforcement beside), its affected targets under it; a click opens the policy's definition.

import * as path from 'node:path';
import * as vscode from 'vscode';

import { StatusRow, statusRows } from './statusModel';

type Item = { row: StatusRow } | { target: string };

const ICONS: Record<StatusRow['health'], [string, string]> = {
  ok: ['pass', 'testing.iconPassed'],
  partial: ['warning', 'list.warningForeground'],
  problem: ['error', 'list.errorForeground'],
};

export class StatusView implements vscode.TreeDataProvider<Item> {
  private rows: StatusRow[] = [];
  private readonly changed = new vscode.EventEmitter<Item | undefined>();
  readonly onDidChangeTreeData = this.changed.event;

  setAnswer(answer: unknown): void {
    this.rows = statusRows(answer);
    this.changed.fire(undefined);
  }

  getChildren(item?: Item): Item[] {
    if (item === undefined) {
      return this.rows.map((row) => ({ row }));
    }
    return 'row' in item ? item.row.children.map((target) => ({ target })) : [];
  }

  getTreeItem(item: Item): vscode.TreeItem {
    if ('target' in item) {
      const t = new vscode.TreeItem(item.target, vscode.TreeItemCollapsibleState.None);
      t.iconPath = new vscode.ThemeIcon('arrow-small-right');
      return t;
    }
    const { row } = item;
    const t = new vscode.TreeItem(
      row.label,
      row.children.length > 0 ? vscode.TreeItemCollapsibleState.Collapsed : vscode.TreeItemCollapsibleState.None,
    );
    t.description = row.description;
    t.tooltip = `${row.label}\n${row.description}`;
    const [icon, colour] = ICONS[row.health];
    t.iconPath = new vscode.ThemeIcon(icon, new vscode.ThemeColor(colour));
    const uri = fileUri(row.file);
    if (uri !== undefined) {
      const pos = new vscode.Position(row.line ?? 0, row.character ?? 0);
      t.command = {
        command: 'vscode.open',
        title: 'Open the policy',
        arguments: [uri, { selection: new vscode.Range(pos, pos) }],
      };
    }
    return t;
  }
}

// The server reports paths as the CLI does: absolute, or relative to the first folder.
function fileUri(file: string | undefined): vscode.Uri | undefined {
  if (file === undefined) {
    return undefined;
  }
  if (path.isAbsolute(file)) {
    return vscode.Uri.file(file);
  }
  const root = vscode.workspace.workspaceFolders?.[0]?.uri;
  return root === undefined ? undefined : vscode.Uri.joinPath(root, file);
}
