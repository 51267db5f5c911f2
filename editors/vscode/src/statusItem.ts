// The status-bar item's text, tooltip and colour for each state of the language client and
// server. No `vscode` import: unit-tested under node.

/** The `policylens/serverStatus` notification's fields the item shows. */
export interface ServerReport {
  state?: string;
  progress?: { done?: number; total?: number } | null;
  roots?: string[];
  /** Why each root was chosen, in the order of `roots`. */
  rootReasons?: string[];
  /** The workspace folders, whose files' findings are shown (besides the open files). */
  folders?: string[];
  rootNote?: string | null;
  config?: string | null;
  files?: number;
  diagnostics?: { error?: number; warning?: number };
  cluster?: { enabled?: boolean; connected?: boolean | null; message?: string | null };
}

export type ItemState =
  | { kind: 'starting'; command: string; source: string }
  | { kind: 'running'; command: string; source: string; report?: ServerReport }
  | { kind: 'stopped'; why: string }
  | { kind: 'missing'; message: string };

export interface ItemView {
  text: string;
  tooltip: string;
  /** Drawn in the theme's warning colour. */
  warning: boolean;
}

function count(n: number, one: string): string {
  return `${n} ${one}${n === 1 ? '' : 's'}`;
}

function details(command: string, source: string, r: ServerReport | undefined): string {
  const lines = [`Running ${command} (${source})`];
  if (r === undefined) {
    return lines[0];
  }
  (r.roots ?? []).forEach((root, i) => {
    const why = r.rootReasons?.[i];
    lines.push(why === undefined ? `Root: ${root}` : `Root: ${root} — ${why}`);
  });
  if (typeof r.rootNote === 'string') {
    lines.push(`Root chosen as a fallback: ${r.rootNote}`);
  }
  lines.push(`Config: ${typeof r.config === 'string' ? r.config : 'none'}`);
  if (r.cluster?.enabled) {
    lines.push(`Cluster: ${r.cluster.message ?? 'not read yet'}`);
  }
  return lines.join('\n');
}

export function itemView(s: ItemState): ItemView {
  switch (s.kind) {
    case 'starting':
      return { text: '$(sync~spin) policylens', tooltip: `Starting ${s.command} (${s.source})`, warning: false };
    case 'running': {
      const r = s.report;
      const tip = details(s.command, s.source, r);
      if (r?.state === 'analysing') {
        return { text: '$(sync~spin) policylens: analysing', tooltip: tip, warning: false };
      }
      if (r === undefined || r.state !== 'ready') {
        const p = r?.progress;
        const counts = p?.total !== undefined ? ` ${p.done ?? 0}/${p.total}` : '';
        return { text: `$(sync~spin) policylens: indexing${counts}`, tooltip: tip, warning: false };
      }
      const errors = r.diagnostics?.error ?? 0;
      const warnings = r.diagnostics?.warning ?? 0;
      const found = errors + warnings === 0 ? '' : ` · ${count(errors, 'error')}, ${count(warnings, 'warning')}`;
      const fallback = typeof r.rootNote === 'string' ? ' $(info)' : '';
      return { text: `$(check) policylens${found}${fallback}`, tooltip: tip, warning: false };
    }
    case 'stopped':
      return { text: '$(warning) policylens: stopped', tooltip: `${s.why} Click for Restart.`, warning: true };
    case 'missing':
      return { text: '$(warning) policylens: no server', tooltip: s.message, warning: true };
  }
}

/** The entries of the menu a click on the item opens, with the command each runs. */
export const MENU: ReadonlyArray<{ label: string; command: string }> = [
  { label: '$(debug-restart) Restart Server', command: 'policylens.restartServer' },
  { label: '$(output) Show Output', command: 'policylens.showOutput' },
  { label: '$(checklist) Show Policy Status', command: 'policylens.showStatus' },
  { label: '$(gear) Open Settings', command: 'policylens.openSettings' },
];
