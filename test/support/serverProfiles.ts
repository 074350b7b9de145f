// Servers as our users run them, imitated on Debian's redis-server 7.0 by a redis.conf the
// harness writes: managed services rename commands away (`rename-command X ""` removes it
// for every client, scripts included), security teams hand out least-privilege ACL users,
// and the "legacy" profile takes away what Redis 6.2 lacks. README "Supported servers".
import { RedisServer, startNodes } from '../../src/dev/redisServer';

export interface ServerProfile {
  name: string;
  /** Commands renamed away, as the service does it. */
  renamed: string[];
  /**
   * Capabilities the core is told are missing (REDLOCK_INSPECTOR_TEST_CAPABILITIES_OFF,
   * test-only): what a config file cannot take away from 7.0, i.e. shebang flags.
   */
  forcedOff?: string[];
  /** Connect as this ACL user (its password is the name reversed), else as default. */
  user?: { name: string; rules: string };
}

/** Commands a no-script service (sharded OCI Cache) refuses. */
const SCRIPTING = ['EVAL', 'EVALSHA', 'EVAL_RO', 'EVALSHA_RO', 'SCRIPT', 'FUNCTION', 'FCALL', 'FCALL_RO'];

/**
 * The least-privilege read role security teams hand out, plus what the read path truly
 * needs beyond it: nothing. TIME is not granted (the core reads with the client clock),
 * DBSIZE (+@read) paces the internal-key walk, PING the health probe when TIME is refused.
 */
export const READ_ROLE = '+@read +info +ping +scan +eval_ro +evalsha_ro +script|load -@write';

/** A read-only role without scripting (EVAL and EVAL_RO denied), as security teams grant it. */
export const SCRIPTLESS_ROLE = '+@read +scan +ping +info +time -@write';

export const PROFILES: Record<string, ServerProfile> = {
  elasticache: { name: 'elasticache', renamed: ['CONFIG', 'DEBUG', 'SAVE', 'REPLICAOF'] },
  memorystore: { name: 'memorystore', renamed: ['CONFIG', 'DEBUG', 'MONITOR', 'OBJECT', 'COMMAND', 'ACL', 'MEMORY'] },
  cloud: { name: 'cloud', renamed: ['ROLE', 'LATENCY', 'COMMAND', 'CONFIG'] },
  noscript: { name: 'noscript', renamed: SCRIPTING },
  // Redis 6.2 on a 7.0 server: no EVAL_RO, no PEXPIRETIME, no MEMORY (renamed away), and
  // no shebang flags (forced off: 7.0 cannot be configured to reject them).
  legacy: { name: 'legacy', renamed: ['EVAL_RO', 'EVALSHA_RO', 'PEXPIRETIME', 'MEMORY'], forcedOff: ['scriptFlags'] },
  readRole: { name: 'readRole', renamed: [], user: { name: 'reader', rules: READ_ROLE } },
  // The role handed out most often to a tool that only looks: no scripting at all.
  scriptlessRole: { name: 'scriptlessRole', renamed: [], user: { name: 'looker', rules: SCRIPTLESS_ROLE } },
};

export function profileConfig(p: ServerProfile): string[] {
  const lines = p.renamed.map((c) => `rename-command ${c} ""`);
  if (p.user) lines.push(`user ${p.user.name} on >${passwordOf(p.user.name)} ~* &* ${p.user.rules}`);
  return lines;
}

function passwordOf(user: string): string {
  return `${[...user].reverse().join('')}-pw`;
}

/** The URL the code under test uses for `s` under profile `p` (setup clients use s.client()). */
export function profileUrl(s: RedisServer, p: ServerProfile): string {
  return p.user ? `redis://${p.user.name}:${passwordOf(p.user.name)}@127.0.0.1:${s.port}` : s.url;
}

/** The environment the code under test runs with under `p` (the test-only override). */
export function profileEnv(p: ServerProfile): Record<string, string> {
  return p.forcedOff ? { REDLOCK_INSPECTOR_TEST_CAPABILITIES_OFF: p.forcedOff.join(',') } : {};
}

export function startProfile(p: ServerProfile, count: number): Promise<RedisServer[]> {
  return startNodes(count, { config: profileConfig(p) });
}
