// A lock the CLI just took but `status` and `watch` will not list: their default key
// patterns do not match it. Say so, as the extension does, with the option that lists it.
import { globToRegExp } from '../shared/glob';
import { displayKey, globForKey } from '../core/vocabulary';
import { escapeText } from './escape';
import { defaultPatterns } from './options';

/** One line per resource no default pattern matches; none when every one is listed. */
export function notListedHints(resources: readonly Buffer[], patterns: readonly string[] = defaultPatterns()): string[] {
  const matchers = patterns.map((p) => globToRegExp(p));
  return resources
    .filter((r) => !matchers.some((m) => m.test(r.toString('utf8'))))
    .map((r) => `${escapeText(displayKey(r))} is not matched by the key patterns (${patterns.join(', ')}): status and watch list it with --pattern '${escapeText(globForKey(r))}'`);
}
