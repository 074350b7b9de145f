// Redis' glob dialect (SCAN MATCH, `keyPatterns`, the CLI's --pattern), so a pattern
// behaves the same in the tree filter, the settings and the CLI's hints.

/** `*`, `?`, `[abc]`, `[^a]`, `[a-z]`, `\x` as in Redis' stringmatchlen. */
export function globToRegExp(glob: string): RegExp {
  let out = '';
  for (let i = 0; i < glob.length; i++) {
    const c = glob[i];
    if (c === '*') out += '[\\s\\S]*';
    else if (c === '?') out += '[\\s\\S]';
    else if (c === '\\' && i + 1 < glob.length) out += escapeRe(glob[++i]);
    else if (c === '[') {
      const end = glob.indexOf(']', i + 2);
      if (end < 0) {
        out += '\\[';
        continue;
      }
      let body = glob.slice(i + 1, end);
      const negate = body.startsWith('^');
      if (negate) body = body.slice(1);
      out += `[${negate ? '^' : ''}${body.replace(/[\\\]]/g, '\\$&')}]`;
      i = end;
    } else out += escapeRe(c);
  }
  return new RegExp(`^${out}$`, 'u');
}

function escapeRe(c: string): string {
  return c.replace(/[.*+?^${}()|[\]\\/-]/g, '\\$&');
}

/** An empty filter matches everything; a filter without wildcards matches as a substring. */
export function keyMatcher(filter: string): (key: string) => boolean {
  const f = filter.trim();
  if (f === '') return () => true;
  if (!/[*?[]/.test(f)) return (key) => key.includes(f);
  let re: RegExp;
  try {
    re = globToRegExp(f);
  } catch {
    return (key) => key.includes(f);
  }
  return (key) => re.test(key);
}
