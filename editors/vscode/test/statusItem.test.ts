// The status item's text in each state of the client and server.
import { test } from 'node:test';
import * as assert from 'node:assert/strict';

import { itemView, MENU } from '../src/statusItem';

const running = { kind: 'running' as const, command: '/x/policylens', source: 'bundled' };

test('starting, indexing with counts, ready with the findings counted', () => {
  assert.deepEqual(itemView({ kind: 'starting', command: '/x/policylens', source: 'bundled' }), {
    text: '$(sync~spin) policylens',
    tooltip: 'Starting /x/policylens (bundled)',
    warning: false,
  });
  assert.equal(itemView(running).text, '$(sync~spin) policylens: indexing');
  assert.equal(
    itemView({ ...running, report: { state: 'indexing', progress: { done: 64, total: 360 } } }).text,
    '$(sync~spin) policylens: indexing 64/360',
  );
  const ready = itemView({
    ...running,
    report: { state: 'ready', roots: ['/w'], config: null, diagnostics: { error: 1, warning: 0 } },
  });
  assert.deepEqual(ready, {
    text: '$(check) policylens · 1 error, 0 warnings',
    tooltip: 'Running /x/policylens (bundled)\nRoot: /w\nConfig: none',
    warning: false,
  });
  assert.equal(itemView({ ...running, report: { state: 'ready', diagnostics: { error: 0, warning: 0 } } }).text, '$(check) policylens');
  // The files are read; their first analysis runs (seconds at 100k objects).
  assert.equal(itemView({ ...running, report: { state: 'analysing' } }).text, '$(sync~spin) policylens: analysing');
});

test('each root is said with why it was chosen', () => {
  const v = itemView({
    ...running,
    report: {
      state: 'ready',
      roots: ['/w'],
      rootReasons: ['its .policylens.yaml is the nearest above the workspace folder /w/shop'],
      folders: ['/w/shop'],
      config: '/w/.policylens.yaml',
    },
  });
  assert.equal(
    v.tooltip,
    'Running /x/policylens (bundled)\nRoot: /w — its .policylens.yaml is the nearest above the workspace folder /w/shop\nConfig: /w/.policylens.yaml',
  );
});

test('a fallback root is marked and said', () => {
  const v = itemView({ ...running, report: { state: 'ready', roots: ['/w'], rootNote: 'no .git above', config: '/w/.policylens.yaml' } });
  assert.equal(v.text, '$(check) policylens $(info)');
  assert.equal(v.tooltip, 'Running /x/policylens (bundled)\nRoot: /w\nRoot chosen as a fallback: no .git above\nConfig: /w/.policylens.yaml');
});

test('stopped or missing: a warning', () => {
  assert.deepEqual(itemView({ kind: 'stopped', why: 'The server crashed 5 times in 3 minutes.' }), {
    text: '$(warning) policylens: stopped',
    tooltip: 'The server crashed 5 times in 3 minutes. Click for Restart.',
    warning: true,
  });
  assert.equal(itemView({ kind: 'missing', message: 'm' }).warning, true);
});

test('the menu offers restart, output, status and settings', () => {
  assert.deepEqual(MENU.map((m) => m.command), [
    'policylens.restartServer',
    'policylens.showOutput',
    'policylens.showStatus',
    'policylens.openSettings',
  ]);
});
