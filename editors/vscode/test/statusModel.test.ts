import { test } from 'node:test';
import * as assert from 'node:assert/strict';
import { execFileSync } from 'node:child_process';
import * as fs from 'node:fs';
import * as path from 'node:path';

import { statusRows } from '../src/statusModel';

test('rows carry reason, enforcement, supersession, place and affected targets', () => {
  const rows = statusRows({
    policies: [
      {
        policy: 'BackendTrafficPolicy.gateway.envoyproxy.io/infra/edge',
        file: 'policies/edge.yaml',
        range: { start: { line: 33, character: 8 }, end: { line: 33, character: 12 } },
        accepted: { status: true, reason: 'Accepted' },
        enforcement: 'PartiallyEnforced',
        supersededBy: ['BackendTrafficPolicy.gateway.envoyproxy.io/shop/pay'],
        affects: ['HTTPRoute/shop/checkout#cart'],
      },
      { policy: 'AuthPolicy.kuadrant.io/shop/a', accepted: { status: false, reason: 'TargetNotFound' }, affects: [] },
      { policy: 'BackendTLSPolicy/p/t', accepted: { status: true, reason: 'Accepted' }, enforcement: 'Enforced' },
    ],
  });
  assert.deepEqual(rows, [
    {
      label: 'BackendTrafficPolicy.gateway.envoyproxy.io/infra/edge',
      description: 'Accepted · PartiallyEnforced · superseded by BackendTrafficPolicy.gateway.envoyproxy.io/shop/pay',
      health: 'partial',
      file: 'policies/edge.yaml',
      line: 33,
      character: 8,
      children: ['HTTPRoute/shop/checkout#cart'],
    },
    {
      label: 'AuthPolicy.kuadrant.io/shop/a',
      description: 'TargetNotFound',
      health: 'problem',
      file: undefined,
      line: undefined,
      character: undefined,
      children: [],
    },
    {
      label: 'BackendTLSPolicy/p/t',
      description: 'Accepted · Enforced',
      health: 'ok',
      file: undefined,
      line: undefined,
      character: undefined,
      children: [],
    },
  ]);
});

test('a policy only the live cluster holds says so, and what its controller reports', () => {
  const rows = statusRows({
    policies: [
      {
        policy: 'BackendTrafficPolicy.gateway.envoyproxy.io/infra/edge-timeouts',
        file: null,
        cluster: { resourceVersion: '4001', generation: 1 },
        accepted: { status: false, reason: 'Conflicted' },
        supersededBy: [],
        affects: [],
        agrees: false,
      },
      {
        policy: 'SecurityPolicy.gateway.envoyproxy.io/shop/checkout-cors',
        file: null,
        cluster: { resourceVersion: '4000', generation: 3 },
        accepted: { status: true, reason: 'Accepted' },
        enforcement: 'Enforced',
        affects: ['HTTPRoute/shop/checkout#pay'],
        reported: [{ ancestor: 'Gateway/infra/edge', stale: true }],
      },
    ],
  });
  assert.deepEqual(
    rows.map((r) => [r.description, r.health, r.file]),
    [
      ['Conflicted · live cluster · the controller reports otherwise', 'problem', undefined],
      ['Accepted · Enforced · live cluster · reported status is stale', 'ok', undefined],
    ],
  );
});

test('a malformed answer gives no rows instead of throwing', () => {
  assert.deepEqual(statusRows(null), []);
  assert.deepEqual(statusRows({ policies: 'x' }), []);
  assert.deepEqual(statusRows({ policies: [null, 3, { policy: 7 }] }), []);
});

// The real CLI's answer on the demo, when a built binary is there (CI builds the release one).
const repo = path.resolve(__dirname, '..', '..', '..', '..');
const bin = process.env.POLICYLENS_BIN ?? path.join(repo, 'target', 'release', 'policylens');
test('the demo status gives one row per policy, its problems marked', { skip: !fs.existsSync(bin) && `no ${bin}` }, () => {
  let out = '';
  try {
    out = execFileSync(bin, ['status', '--format', 'json', 'fixtures/demo'], { cwd: repo, encoding: 'utf8' });
  } catch (e) {
    // status exits 1 when some policy is not enforced; its stdout is still the report.
    out = (e as { stdout: string }).stdout;
  }
  const answer = JSON.parse(out);
  const rows = statusRows(answer);
  assert.equal(rows.length, answer.policies.length);
  const notFound = rows.find((r) => r.label === 'AuthPolicy.kuadrant.io/shop/checkout-auth');
  assert.equal(notFound?.health, 'problem');
  assert.equal(notFound?.description, 'TargetNotFound');
  assert.equal(rows.find((r) => r.label === 'AuthPolicy.kuadrant.io/infra/edge-auth')?.children.length, 4);
});
