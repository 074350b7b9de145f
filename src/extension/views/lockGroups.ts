// How the Locks view groups many keys: folders on `:` as Redis for VS Code and Redis
// Insight show keys, each folder with its count and its worst verdict. Pure (no `vscode`):
// the tree renders it, the unit tests check it. Rebuilt whole when a key comes, goes or
// changes severity (O(keys), milliseconds at 10,000), never for a renewal.
import { anomalyRank, needsAttention } from '../../shared/lockOrder';
import type { LockEntry } from '../../core';

/** A list this short is shown flat: folders would only add clicks. */
export const FLAT_MAX = 20;

export interface FolderSummary {
  /** The whole prefix, ending with `:`; the folder's id. */
  readonly prefix: string;
  /** The prefix of the folder it sits in ('' at the root). */
  readonly parent: string;
  /** Locks anywhere below. */
  readonly count: number;
  /** anomalyRank of its worst lock (src/shared/lockOrder.ts). */
  readonly worstRank: number;
  /** The key of that lock: the folder's icon and wording follow it. */
  readonly worstKey: string;
  /** How many of its locks the "Needs attention" group lists. */
  readonly attention: number;
  /** What it lists when opened, in a stable order: folders by prefix, then keys. */
  readonly children: readonly GroupChild[];
}

export type GroupChild = { readonly kind: 'folder'; readonly prefix: string } | { readonly kind: 'lock'; readonly key: string };

type Ranked = Pick<LockEntry, 'key' | 'verdict' | 'flags'>;

export class LockGroups {
  private folders = new Map<string, FolderSummary>();
  /** Per key, the prefix of the folder that lists it ('' at the root). */
  private placeOf = new Map<string, string>();
  private rootChildren: GroupChild[] = [];

  constructor(private readonly flatMax = FLAT_MAX) {}

  /** `entries` sorted by key (the model's snapshot order). */
  rebuild(entries: readonly Ranked[]): void {
    this.folders = new Map();
    this.placeOf = new Map();
    this.rootChildren = this.level('', entries, true);
  }

  get root(): readonly GroupChild[] {
    return this.rootChildren;
  }

  folder(prefix: string): FolderSummary | undefined {
    return this.folders.get(prefix);
  }

  /** The prefix of the folder listing `key`, '' at the root, undefined when not listed. */
  parentOf(key: string): string | undefined {
    return this.placeOf.get(key);
  }

  /** Every folder on the way from the root to `key`, outermost first. */
  foldersAbove(key: string): FolderSummary[] {
    const chain: FolderSummary[] = [];
    for (let p = this.placeOf.get(key); p; p = this.folders.get(p)?.parent) {
      const f = this.folders.get(p);
      if (!f) break;
      chain.unshift(f);
    }
    return chain;
  }

  allFolders(): IterableIterator<FolderSummary> {
    return this.folders.values();
  }

  /** The children of one level: keys without a further `:` and lone keys as rows, shared segments as folders. */
  private level(prefix: string, entries: readonly Ranked[], root: boolean): GroupChild[] {
    if (!root && entries.length <= this.flatMax) {
      for (const e of entries) this.placeOf.set(e.key, prefix);
      return entries.map((e) => ({ kind: 'lock', key: e.key }));
    }
    const groups = new Map<string, Ranked[]>();
    const rows: GroupChild[] = [];
    for (const e of entries) {
      const cut = e.key.indexOf(':', prefix.length);
      if (cut < 0) {
        rows.push({ kind: 'lock', key: e.key });
        this.placeOf.set(e.key, prefix);
        continue;
      }
      const seg = e.key.slice(0, cut + 1);
      let g = groups.get(seg);
      if (!g) groups.set(seg, (g = []));
      g.push(e);
    }
    const folders: GroupChild[] = [];
    for (const [seg, members] of groups) {
      if (members.length === 1) {
        rows.push({ kind: 'lock', key: members[0].key });
        this.placeOf.set(members[0].key, prefix);
        continue;
      }
      const child = commonPrefix(seg, members);
      this.addFolder(child, prefix, members);
      folders.push({ kind: 'folder', prefix: child });
    }
    folders.sort((a, b) => compareText(childName(a), childName(b)));
    rows.sort((a, b) => compareText(childName(a), childName(b)));
    return [...folders, ...rows];
  }

  private addFolder(prefix: string, parent: string, members: readonly Ranked[]): void {
    let worstRank = Number.POSITIVE_INFINITY;
    let worstKey = members[0].key;
    let attention = 0;
    for (const e of members) {
      const r = anomalyRank(e);
      if (r < worstRank) {
        worstRank = r;
        worstKey = e.key;
      }
      if (needsAttention(e)) attention++;
    }
    const children = this.level(prefix, members, false);
    this.folders.set(prefix, { prefix, parent, count: members.length, worstRank, worstKey, attention, children });
  }
}

/** A folder whose keys all go on through the same next segment is that segment's folder (one click, not two). */
function commonPrefix(seg: string, members: readonly Ranked[]): string {
  let prefix = seg;
  for (;;) {
    const first = members[0].key;
    const cut = first.indexOf(':', prefix.length);
    if (cut < 0) return prefix;
    const next = first.slice(0, cut + 1);
    if (!members.every((e) => e.key.startsWith(next) && e.key.length > next.length)) return prefix;
    prefix = next;
  }
}

function childName(c: GroupChild): string {
  return c.kind === 'folder' ? c.prefix : c.key;
}

/** Code-unit order: total and the same on every machine (as src/shared/lockOrder.ts). */
function compareText(a: string, b: string): number {
  return a < b ? -1 : a > b ? 1 : 0;
}
