// The stand-in `vscode` (src/dev/fakeVscode.ts) for one describe block: installed before
// it, with the given modules loaded through it, and gone after it, with every module loaded meanwhile.
// Module paths are relative to test/support (`../../src/...`), wherever the test sits.
import { createFakeVscode, installFakeVscode, type FakeVscode } from '../../src/dev/fakeVscode';

export interface StandIn {
  fake: FakeVscode;
  /** The modules, in the order given, loaded with the stand-in installed. */
  loaded: unknown[];
}

export function useStandInVscode(modules: readonly string[]): StandIn {
  const s = { loaded: [] } as unknown as StandIn;
  let uninstall: () => void;
  let before_: Set<string>;
  before(() => {
    before_ = new Set(Object.keys(require.cache));
    s.fake = createFakeVscode();
    uninstall = installFakeVscode(s.fake);
    s.loaded = modules.map((m) => require(m) as unknown);
  });
  after(() => {
    uninstall();
    // Every module loaded with the stand-in, not only those named: one bound to this
    // stand-in (the settings reader) must not serve the next block's.
    for (const k of Object.keys(require.cache)) if (!before_.has(k)) delete require.cache[k];
  });
  return s;
}
