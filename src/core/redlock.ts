// The library's `Redlock` as its users call it: the lock engine (lock/redlock.ts), which
// takes, extends and releases, with a reader (doctor/lockReader.ts) over the same
// connections as `redlock.reader`. The reads were the engine's own methods until they
// moved to the reader; each stays here as a one-line forward so that existing calls such
// as `redlock.inspect()` keep working (docs/changelog.md, "The reader and the lock engine").
import { Redlock as LockEngine } from './lock/redlock';
import { LockReader } from './doctor/lockReader';

export class Redlock extends LockEngine {
  /** Every read, over this engine's connections; quit() on the engine closes them. */
  readonly reader: LockReader = new LockReader(this.nodeSet);

  inspect: LockReader['inspect'] = (options) => this.reader.inspect(options);
  inspectKey: LockReader['inspectKey'] = (resource, options) => this.reader.inspectKey(resource, options);
  inspectPage: LockReader['inspectPage'] = (options) => this.reader.inspectPage(options);
  discover: LockReader['discover'] = (options) => this.reader.discover(options);
  watch: LockReader['watch'] = (options, listener) => this.reader.watch(options, listener);
  unreadKeyspace: LockReader['unreadKeyspace'] = (nodes, patterns) => this.reader.unreadKeyspace(nodes, patterns);
  nodeFacts: LockReader['nodeFacts'] = (longestTtlMs) => this.reader.nodeFacts(longestTtlMs);
  doctor: LockReader['doctor'] = (options) => this.reader.doctor(options);
  history: LockReader['history'] = (resource) => this.reader.history(resource);
  audit: LockReader['audit'] = (query) => this.reader.audit(query);
  lockHistories: LockReader['lockHistories'] = (resources) => this.reader.lockHistories(resources);
}
