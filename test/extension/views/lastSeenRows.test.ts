// The folders last seen (src/extension/views/lastSeenRows.ts), on the stand-in `vscode`: the
// time they were read is worded without the locale machinery the first rows would wait for.
import assert from 'node:assert/strict';
import { useStandInVscode } from '../../support/standInVscode';
import type * as LastSeenModule from '../../../src/extension/views/lastSeenRows';

describe('Last-seen rows (stand-in vscode)', () => {
  const standIn = useStandInVscode(['../../src/extension/views/lastSeenRows']);
  let lastSeen: typeof LastSeenModule;
  before(() => {
    [lastSeen] = standIn.loaded as [typeof LastSeenModule];
  });

  it('words the read time as the 24-hour local hh:mm that toLocaleTimeString (en-GB) gives', () => {
    for (const [h, m] of [[0, 0], [9, 5], [12, 30], [23, 59]]) {
      const at = new Date(2026, 10, 27, h, m, 42).getTime();
      assert.equal(lastSeen.clockTime(at), new Date(at).toLocaleTimeString('en-GB', { hour: '2-digit', minute: '2-digit' }));
    }
    assert.equal(lastSeen.clockTime(new Date(2026, 0, 2, 7, 3).getTime()), '07:03');
  });

  it('shows that time and the count on the row, marked not live', () => {
    const at = new Date(2026, 10, 27, 14, 2).getTime();
    const item = lastSeen.lastSeenItem(new lastSeen.LastSeenElement('orders:', 12_345, at));
    assert.equal(item.description, '12,345 locks at 14:02 · not live, reading…');
  });
});
