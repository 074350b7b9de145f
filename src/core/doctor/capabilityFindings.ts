// The doctor's findings about what a server can do (docs/architecture.md "Their servers"):
// each says what the inspector does without the capability, never a fallback it lacks.
import { serverLabel } from '../connection/capabilities';
import type { DeploymentFacts } from './deploymentFacts';

type AddCapability = (severity: 'error' | 'warning' | 'info', code: 'capability', node: string | null, message: string, fix: string) => void;

export function capabilityFindings(f: DeploymentFacts, add: AddCapability): void {
  const c = f.capabilities;
  if (!c) return;
  const who = `${f.node} (${serverLabel({ server: f.server ?? null, version: f.version })})`;
  if (c.scripts === false && c.readOnlyScripts !== true) {
    // Reads still work (DESIGN "Reading without scripts"); what they cannot know is said.
    add('warning', 'capability', f.node, `${who} runs no scripts (EVAL and EVAL_RO are refused or renamed away): status, watch and history read its locks with plain commands (each key over several commands, a copy changed in between read again), watch lists every page with its TTLs on each tick${c.time === false ? ', and with TIME refused too its clock is unknown' : ''}; acquire, extend, release and force-release refuse before writing`, 'allow EVAL and EVALSHA (or at least EVAL_RO and EVALSHA_RO for one-call reads) to this user and service');
  } else if (c.scripts === false) {
    add('warning', 'capability', f.node, `${who} runs only read-only scripts (EVAL_RO): locks can be inspected, but acquire, extend, release and force-release refuse before writing`, 'grant EVAL and EVALSHA to the user that takes locks');
  }
  // Where no script runs none is sent: its flags do not matter.
  if (c.scriptFlags === false && (c.scripts !== false || c.readOnlyScripts === true)) {
    add('info', 'capability', f.node, `${who} rejects script shebang flags: read scripts are sent without them${c.readOnlyScripts ? ' as EVAL_RO' : ', as plain EVALSHA, so nothing but their text keeps them read-only'}`, 'nothing to do (Redis 7.0 or later understands the flags)');
  }
  if (c.pexpiretime === false) {
    add('info', 'capability', f.node, `${who} has no PEXPIRETIME: watch lists every SCAN page with its TTLs on each tick instead of comparing an expiry digest (more work per tick on large keyspaces)`, 'nothing to do, or allow PEXPIRETIME (Redis 7.0+) for cheaper quiet ticks');
  }
  if (c.memoryUsage === false) {
    add('info', 'capability', f.node, `${who} has no MEMORY USAGE: small hashes and sorted sets are read when their encoding is compact (members bounded by the server), a small hashtable holds a fat member and is shown size-unknown; where OBJECT is refused too that guard is lost`, 'allow MEMORY USAGE to keep every read bounded by bytes');
  }
  if (c.time === false) {
    add('warning', 'capability', f.node, `${who} refuses TIME: its clock offset and TTL skew are unknown, and reads use this machine's clock`, 'grant +time to the inspecting user');
  }
}
