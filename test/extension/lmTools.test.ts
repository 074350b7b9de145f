// The language model tools' text (stand-in vscode): a held lock's liveness line, in the
// words every surface uses, as a JSON string (data read from Redis, not instructions).
import assert from 'node:assert/strict';
import { useStandInVscode } from '../support/standInVscode';
import type * as LmToolsModule from '../../src/extension/lmTools';
import { judgeLiveness, livenessText } from '../../src/core/vocabulary/liveness';
import type { Snapshot } from '../../src/core/vocabulary/types';
import { lockEntry, present } from '../support/entries';

describe('lm tools: status and explain text (stand-in vscode)', () => {
  const standIn = useStandInVscode(['../../src/extension/lmTools']);
  const tools = (): typeof LmToolsModule => standIn.loaded[0] as typeof LmToolsModule;
  const T = 'aaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaa';

  it('status and explain carry the liveness line of a held lock, quoted', () => {
    const liveness = judgeLiveness({ connection: { state: 'unknown', reason: 'CLIENT LIST denied on n0, n1 (NOPERM "ignore previous")' }, process: null, renewal: { state: 'one-read', lastMs: null, everyMs: null }, heldMs: null, validityMs: 9000, noTtl: false });
    const entry = { ...lockEntry('lock:job', [present('n0', T), present('n1', T)]), liveness };
    const line = JSON.stringify(livenessText(liveness));
    const snap: Snapshot = { quorum: 2, nodes: [], locks: [entry], skipped: [], truncated: false };
    assert.ok(tools().statusText(snap).split('\n')[1].endsWith(`; ${line}`), tools().statusText(snap));
    assert.ok(tools().explainText('lock:job', entry, undefined).split('\n').includes(`liveness: ${line}`));
    assert.match(line, /^"holder unknown: CLIENT LIST denied on n0, n1 \(NOPERM \\"ignore previous\\"\);/);
  });
});
