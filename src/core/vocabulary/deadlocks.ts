// Wait-for cycles between processes (docs/holders.md, "Deadlocks"). A waiter of lock L
// waits for L's holder; a cycle of such edges through two or more processes is a
// deadlock, and every lock on it is flagged. Identity is the random per-process id in
// tokens and waiter entries, so pid 1 in two containers is two processes.

/** One lock as the detector sees it. */
export interface WaitNode {
  key: string;
  /** Process id of the quorum token's holder, or null. */
  holder: string | null;
  /** Process ids of its waiters. */
  waiters: ReadonlyArray<string | null>;
}

/**
 * Returns key -> the sorted keys of its cycle, for every lock whose holder and a waiter
 * lie on one wait-for cycle. A process waiting for a lock it holds itself is not a cycle
 * (its own tasks contend; one will finish).
 */
export function findCycles(locks: readonly WaitNode[]): Map<string, string[]> {
  // Edges waiter -> holder, each labelled with the lock that makes it.
  const edges = new Map<string, Array<{ to: string; key: string }>>();
  for (const l of locks) {
    if (l.holder === null) continue;
    for (const w of l.waiters) {
      if (w === null || w === l.holder) continue;
      let list = edges.get(w);
      if (!list) edges.set(w, (list = []));
      list.push({ to: l.holder, key: l.key });
    }
  }
  const component = stronglyConnected(edges);
  const keysOf = new Map<number, Set<string>>();
  for (const [from, list] of edges) {
    for (const e of list) {
      const c = component.get(from);
      if (c === undefined || c !== component.get(e.to)) continue;
      let set = keysOf.get(c);
      if (!set) keysOf.set(c, (set = new Set()));
      set.add(e.key);
    }
  }
  const out = new Map<string, string[]>();
  for (const set of keysOf.values()) {
    const cycle = [...set].sort();
    for (const k of cycle) out.set(k, cycle);
  }
  return out;
}

/** Tarjan's algorithm, iterative (wait graphs are small, but untrusted input is not). */
function stronglyConnected(edges: Map<string, Array<{ to: string }>>): Map<string, number> {
  const index = new Map<string, number>();
  const low = new Map<string, number>();
  const onStack = new Set<string>();
  const stack: string[] = [];
  const component = new Map<string, number>();
  let next = 0;
  let components = 0;
  const nodes = new Set<string>(edges.keys());
  for (const list of edges.values()) for (const e of list) nodes.add(e.to);
  for (const root of nodes) {
    if (index.has(root)) continue;
    const work: Array<{ v: string; i: number }> = [{ v: root, i: 0 }];
    index.set(root, next);
    low.set(root, next++);
    stack.push(root);
    onStack.add(root);
    while (work.length) {
      const frame = work[work.length - 1];
      const out = edges.get(frame.v) ?? [];
      if (frame.i < out.length) {
        const w = out[frame.i++].to;
        if (!index.has(w)) {
          index.set(w, next);
          low.set(w, next++);
          stack.push(w);
          onStack.add(w);
          work.push({ v: w, i: 0 });
        } else if (onStack.has(w)) low.set(frame.v, Math.min(low.get(frame.v)!, index.get(w)!));
        continue;
      }
      work.pop();
      if (work.length) {
        const parent = work[work.length - 1].v;
        low.set(parent, Math.min(low.get(parent)!, low.get(frame.v)!));
      }
      if (low.get(frame.v) === index.get(frame.v)) {
        const members: string[] = [];
        for (;;) {
          const w = stack.pop()!;
          onStack.delete(w);
          members.push(w);
          if (w === frame.v) break;
        }
        // A single process is never a cycle here: self-waits were dropped above.
        if (members.length > 1) {
          for (const m of members) component.set(m, components);
          components++;
        }
      }
    }
  }
  return component;
}
