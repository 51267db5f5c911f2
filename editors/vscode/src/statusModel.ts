// The Policy Status view's rows, from the `policylens/status` answer (the JSON of
// `policylens status --format json`). No `vscode` import: unit-tested under node.

export interface StatusRow {
  label: string;
  /** Accepted reason and enforcement, as a table's columns would show them. */
  description: string;
  /** `ok`, `partial` or `problem`: the view's icon colour. */
  health: 'ok' | 'partial' | 'problem';
  file?: string;
  /** 0-based, as LSP positions are. */
  line?: number;
  character?: number;
  children: string[];
}

interface StatusPolicy {
  policy?: unknown;
  file?: unknown;
  range?: { start?: { line?: unknown; character?: unknown } };
  accepted?: { status?: unknown; reason?: unknown };
  enforcement?: unknown;
  supersededBy?: unknown;
  affects?: unknown;
  /** Present for a policy only the live cluster holds (`file` is then null). */
  cluster?: unknown;
  /** Whether the controller's reported Accepted agrees with the computed one. */
  agrees?: unknown;
  reported?: { stale?: unknown }[];
}

function strings(v: unknown): string[] {
  return Array.isArray(v) ? v.filter((x): x is string => typeof x === 'string') : [];
}

/** Rows in the server's order; anything malformed in the answer is skipped, not thrown on. */
export function statusRows(answer: unknown): StatusRow[] {
  const policies = (answer as { policies?: unknown } | null)?.policies;
  if (!Array.isArray(policies)) {
    return [];
  }
  const rows: StatusRow[] = [];
  for (const p of policies as StatusPolicy[]) {
    if (typeof p?.policy !== 'string') {
      continue;
    }
    const accepted = p.accepted?.status === true;
    const reason = typeof p.accepted?.reason === 'string' ? p.accepted.reason : accepted ? 'Accepted' : 'NotAccepted';
    const enforcement = typeof p.enforcement === 'string' ? p.enforcement : undefined;
    const superseded = strings(p.supersededBy);
    const parts = [reason];
    if (enforcement !== undefined) {
      parts.push(enforcement);
    }
    if (superseded.length > 0) {
      parts.push(`superseded by ${superseded.join(', ')}`);
    }
    // What the live cluster adds: where the policy is, and what its controller says of it.
    if (typeof p.cluster === 'object' && p.cluster !== null) {
      parts.push('live cluster');
    }
    if (p.agrees === false) {
      parts.push('the controller reports otherwise');
    }
    if (Array.isArray(p.reported) && p.reported.some((r) => r?.stale === true)) {
      parts.push('reported status is stale');
    }
    const health =
      !accepted || p.agrees === false ? 'problem' : enforcement === 'Enforced' ? 'ok' : enforcement === undefined ? 'ok' : 'partial';
    const start = p.range?.start;
    rows.push({
      label: p.policy,
      description: parts.join(' · '),
      health,
      file: typeof p.file === 'string' ? p.file : undefined,
      line: typeof start?.line === 'number' ? start.line : undefined,
      character: typeof start?.character === 'number' ? start.character : undefined,
      children: strings(p.affects),
    });
  }
  return rows;
}
