// The shipped Grafana dashboard: typed against Grafana's own dashboard schema (the
// @grafana/schema types, literal unions widened because JSON imports lose them), laid out
// on the 24-column grid, and querying only metrics the exporter serves.
import assert from 'node:assert/strict';
import type { Dashboard } from '@grafana/schema';
import dashboard from '../../grafana/redlock-inspector.json';
import type { Redlock } from '../../src/core';
import { Exporter } from '../../src/cli/exporterMetrics';

type Widen<T> = T extends string ? string : T extends number ? number : T extends boolean ? boolean : T extends Array<infer U> ? Array<Widen<U>> : T extends object ? { [K in keyof T]: Widen<T[K]> } : T;
// Compile-time: the JSON has the shape of a Grafana dashboard (required fields, types).
const typed: Widen<Dashboard> = dashboard;

function servedMetrics(): string[] {
  // The registry is built in the constructor, which only takes the reader's event feed:
  // nothing reads through the Redlock until start().
  const idle = { reader: { eventFeed: () => ({}) } };
  const exporter = new Exporter(idle as unknown as Redlock, { patterns: ['*lock*'], intervalMs: 1000 });
  return exporter.registry.getMetricsAsArray().map((m) => m.name);
}

describe('grafana dashboard', () => {
  const panels = dashboard.panels;

  it('has a stable uid, a title and a schema version', () => {
    assert.equal(typed.uid, 'redlock-inspector');
    assert.equal(typed.title, 'Redlock Inspector');
    assert.ok((typed.schemaVersion ?? 0) >= 36);
  });

  it('queries only metrics the exporter serves, and shows every contract metric', () => {
    const served = servedMetrics();
    const used = new Set<string>();
    for (const p of panels) {
      assert.ok(p.targets.length > 0, p.title);
      for (const t of p.targets) {
        assert.ok(t.refId && t.expr, p.title);
        // A histogram is served under its own name and queried as _bucket, _sum or _count.
        for (const m of t.expr.matchAll(/\b[a-z_:][a-z0-9_:]*(?=\s*[{(\s)]|$)/g)) if (m[0].startsWith('redlock_')) used.add(m[0].replace(/_(bucket|sum|count)$/, ''));
        // Every query goes through the dashboard's data source variable.
        assert.equal(t.datasource.uid, '${datasource}');
      }
    }
    for (const name of used) assert.ok(served.includes(name), `${name} is not served by the exporter`);
    for (const name of ['redlock_locks', 'redlock_lock_flags', 'redlock_node_up', 'redlock_node_latency_seconds', 'redlock_node_clock_offset_seconds', 'redlock_hold_seconds', 'redlock_wait_seconds', 'redlock_safety_violations_total']) {
      assert.ok(used.has(name), `${name} has no panel`);
    }
  });

  it('panels have unique ids and fit the 24-column grid without overlapping', () => {
    assert.equal(new Set(panels.map((p) => p.id)).size, panels.length);
    const cells = new Set<string>();
    for (const p of panels) {
      const g = p.gridPos;
      assert.ok(g.x >= 0 && g.w > 0 && g.x + g.w <= 24 && g.h > 0, p.title);
      for (let x = g.x; x < g.x + g.w; x++) {
        for (let y = g.y; y < g.y + g.h; y++) {
          assert.ok(!cells.has(`${x},${y}`), `${p.title} overlaps at ${x},${y}`);
          cells.add(`${x},${y}`);
        }
      }
    }
  });
});
