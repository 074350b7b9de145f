// Small helpers shared by the benches: latency samples, percentiles, table text.

/** Latencies in ms; a growable Float64Array so 100k samples cost no per-sample objects. */
export class Samples {
  private data = new Float64Array(1 << 14);
  length = 0;

  push(ms: number): void {
    if (this.length === this.data.length) {
      const next = new Float64Array(this.data.length * 2);
      next.set(this.data);
      this.data = next;
    }
    this.data[this.length++] = ms;
  }

  /** Nearest-rank percentile (p in 0..100); NaN when empty. */
  percentile(p: number): number {
    if (this.length === 0) return NaN;
    const sorted = this.data.slice(0, this.length).sort();
    const rank = Math.min(this.length - 1, Math.max(0, Math.ceil((p / 100) * this.length) - 1));
    return sorted[rank];
  }
}

export function round2(x: number): number {
  return Math.round(x * 100) / 100;
}

export function fmtInt(x: number): string {
  return Number.isFinite(x) ? Math.round(x).toLocaleString('en-US') : '-';
}

export function fmtMs(x: number): string {
  return Number.isFinite(x) ? x.toFixed(3) : '-';
}

export function fmtRatio(x: number): string {
  return Number.isFinite(x) ? `${x.toFixed(2)}x` : '-';
}

/** A plain-text table: first column left-aligned, the others right-aligned. */
export function table(header: string[], rows: string[][]): string {
  const widths = header.map((h, i) => Math.max(h.length, ...rows.map((r) => r[i].length)));
  const line = (cells: string[]): string =>
    cells.map((c, i) => (i === 0 ? c.padEnd(widths[i]) : c.padStart(widths[i]))).join('  ');
  return [line(header), widths.map((w) => '-'.repeat(w)).join('  '), ...rows.map(line)].join('\n');
}
