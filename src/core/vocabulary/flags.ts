// Every flag a lock can carry, and everything every surface says or does with one, in one
// table: the JSON order, the word, how urgent it is, whether it counts toward "needs
// attention", and the tree's icon. A surface that shows a flag reads it here; adding a
// flag is one row (docs/vocabulary.md, "Flags").

/** The order flags are listed in, everywhere (`deadlock` is added last, by holdersRead.ts). */
export const FLAG_ORDER = ['no-ttl', 'ttl-skew', 'expiring', 'degraded', 'reentrant', 'deadlock'] as const;

export type Flag = (typeof FLAG_ORDER)[number];

/** How much a flag alone says about a lock: the four levels every surface colours alike, or nothing. */
export type FlagSeverity = 'error' | 'warning' | 'caution' | 'none';

export interface FlagRow {
  /** The one word for it, in headlines, summaries and counts; '' for a flag that calls for nothing. */
  word: string;
  /** Urgency among flags, 0 first: headlines and summaries list them in this order. */
  urgency: number;
  severity: FlagSeverity;
  /**
   * Its place among the anomalies a user should look at first (src/shared/lockOrder.ts),
   * beside the verdicts: split 0, partial 1, unknown 2; null: not an anomaly.
   */
  anomalyRank: number | null;
  /** Counts toward "N need attention" and the attention group, even on a held lock. */
  attention: boolean;
  /** Called for in a row's headline: it changes what a user should do. */
  headline: boolean;
  /** The tree's codicon and theme colour when this is the worst thing about the lock. */
  icon: { id: string; color: string } | null;
}

export const FLAGS: Readonly<Record<Flag, FlagRow>> = {
  // Holders waiting for each other never get unstuck on their own: as urgent as a split.
  deadlock: { word: 'deadlock', urgency: 0, severity: 'error', anomalyRank: 0, attention: true, headline: true, icon: { id: 'sync-ignored', color: 'errorForeground' } },
  'no-ttl': { word: 'no TTL', urgency: 1, severity: 'warning', anomalyRank: 3, attention: true, headline: true, icon: { id: 'circle-slash', color: 'charts.orange' } },
  'ttl-skew': { word: 'TTL skew', urgency: 2, severity: 'caution', anomalyRank: null, attention: true, headline: true, icon: { id: 'git-compare', color: 'charts.yellow' } },
  degraded: { word: 'degraded', urgency: 3, severity: 'caution', anomalyRank: null, attention: true, headline: true, icon: { id: 'debug-disconnect', color: 'charts.yellow' } },
  // Not attention: a healthy lock renewed at the last moment would blink in and out of it.
  expiring: { word: 'expiring', urgency: 4, severity: 'caution', anomalyRank: null, attention: false, headline: true, icon: { id: 'watch', color: 'charts.yellow' } },
  reentrant: { word: '', urgency: 5, severity: 'none', anomalyRank: null, attention: false, headline: false, icon: null },
};

/** Flags by urgency, most urgent first. */
export const FLAGS_BY_URGENCY: readonly Flag[] = [...FLAG_ORDER].sort((a, b) => FLAGS[a].urgency - FLAGS[b].urgency);

/** The flags a row's headline calls for, most urgent first, with their words. */
export const HEADLINE_FLAGS: ReadonlyArray<readonly [Flag, string]> = FLAGS_BY_URGENCY.filter((f) => FLAGS[f].headline).map((f) => [f, FLAGS[f].word] as const);
