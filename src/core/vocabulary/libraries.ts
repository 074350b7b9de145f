// Which lock libraries talk to a node, from SCRIPT EXISTS on the SHA1s of the Lua they
// send (EVALSHA names a script by the SHA1 of its exact text). A cached script is a
// node-level hint about who uses the node, never proof of who wrote a given key, and
// SCRIPT FLUSH or a restart forgets it.

export interface KnownScript {
  library: string;
  sha1: string;
  purpose: string;
}

// Each SHA1 is of the script text the library sends, computed from the source named on
// the group; test/core/vocabulary/libraries.test.ts recomputes the installed npm packages' ones.
export const KNOWN_SCRIPTS: readonly KnownScript[] = [
  // npm redlock 4.2.0 (redlock.js: lockScript, unlockScript, extendScript).
  { library: 'node-redlock v4', sha1: 'e5a322e2634ef59a516e8ea150cb085afafee684', purpose: 'acquire' },
  { library: 'node-redlock v4', sha1: '0f0f23b9048b36752b5be114f357ba083449f908', purpose: 'release' },
  { library: 'node-redlock v4', sha1: 'ce46f80993d5dac20dd066eb301a4e37994bdbed', purpose: 'extend' },
  // npm redlock 5.0.0-beta.2 (dist/cjs/index.js: ACQUIRE_SCRIPT, EXTEND_SCRIPT, RELEASE_SCRIPT).
  { library: 'node-redlock v5', sha1: '96da70f7716f27d278a5218544df37fd8b0a5e4c', purpose: 'acquire' },
  { library: 'node-redlock v5', sha1: 'aed6f382e410db8ba7926d4e5e9aab410bf2a78a', purpose: 'extend' },
  { library: 'node-redlock v5', sha1: 'e4612211c9f8f51c257e26e056b0a654b3187242', purpose: 'release' },
  // npm @sesamecare-oss/redlock 1.4.0 (build/scripts.js, sent through ioredis defineCommand).
  { library: '@sesamecare-oss/redlock', sha1: '1b77b94aa78451d55dfa97e18819bfbfc596cb5b', purpose: 'acquire' },
  { library: '@sesamecare-oss/redlock', sha1: '820e9778d2b6733e9ed771e4be90ae73a95a6f3b', purpose: 'extend' },
  { library: '@sesamecare-oss/redlock', sha1: 'df51f6837dcfe303d334e6abea9aeae192bab216', purpose: 'release' },
  // npm redlock-universal 0.8.5 (dist/index.cjs *_SCRIPT constants, loaded with SCRIPT LOAD).
  { library: 'redlock-universal', sha1: '514d8d1b08387624661da2a9098d3949b633eb3a', purpose: 'acquire (batch)' },
  { library: 'redlock-universal', sha1: 'fd83166fb3d7235e3ace652b700c9e217c1adc1f', purpose: 'release' },
  { library: 'redlock-universal', sha1: 'e218d686a8f90368e5cd45074f06ce766cad9987', purpose: 'extend' },
  { library: 'redlock-universal', sha1: 'c000e088bd4aca36ab429d3b7a16fc736f4cb6f1', purpose: 'extend (atomic)' },
  { library: 'redlock-universal', sha1: '994908155dadb1bed08a5af6dee7fedf956c4826', purpose: 'inspect' },
  // npm redis-semaphore 5.8.0 (lib/**: createEval scripts; mutexes acquire with SET NX PX).
  { library: 'redis-semaphore', sha1: '7157921a7cc7cfba979acf6d63f073151df17d12', purpose: 'mutex release' },
  { library: 'redis-semaphore', sha1: '594683e49a64ebaf975caf5f8079a1d097c438f1', purpose: 'mutex refresh' },
  { library: 'redis-semaphore', sha1: '43ebdb49120d170e08af560cb4e46e36f8585936', purpose: 'semaphore acquire' },
  { library: 'redis-semaphore', sha1: '999a49a1d07671a8027165641001f5bad44608b3', purpose: 'semaphore refresh' },
  { library: 'redis-semaphore', sha1: '10c1c2e05e7c48aa5824d227b8c51abcde87b18e', purpose: 'multi-semaphore acquire' },
  { library: 'redis-semaphore', sha1: '2327bcdc5edb5b8687f6d19b5e1f42b815ebddab', purpose: 'multi-semaphore refresh' },
  { library: 'redis-semaphore', sha1: '0bd1010c98f1ddd70a6024fd374489a8ea3d2c12', purpose: 'multi-semaphore release' },
  // Go github.com/go-redsync/redsync/v4: computed from mutex.go / scripts.go at the tags
  // named, and equal to the SHA1s that scripts.go itself declares since v4.15.
  { library: 'redsync', sha1: 'e950836ed1e694540c503ef9972b8de518044d3b', purpose: 'release (v4.12+)' },
  { library: 'redsync', sha1: '00583931c4e4d483f6233879c133c71ed5393f9d', purpose: 'release (v4.0-v4.11)' },
  { library: 'redsync', sha1: 'd75bb8b5bd13532ddedd17762e772346e39b321e', purpose: 'extend' },
  { library: 'redsync', sha1: 'b6b55c439e02c6f52ffb8be7ec8c0d0ac816ea79', purpose: 'extend (SetNXOnExtend, v4.12+)' },
];

/** Given SCRIPT EXISTS answers in KNOWN_SCRIPTS order, the distinct libraries, in that order. */
export function librariesFromExists(flags: readonly (0 | 1 | number)[]): string[] {
  const found: string[] = [];
  KNOWN_SCRIPTS.forEach((s, i) => {
    if (flags[i] === 1 && !found.includes(s.library)) found.push(s.library);
  });
  return found;
}
