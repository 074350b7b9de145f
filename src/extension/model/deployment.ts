// The deployment doctor for the Nodes view and the status bar: runs the core's doctor
// when the configured nodes change, on demand, and again when a finding's time runs out
// (a restarted node's risk ends by itself), and keeps its latest findings.
import * as vscode from 'vscode';
import type { DoctorReport, Finding } from '../../core';
import type { LockModel } from './lockModel';
import type { Log } from '../log';

export class DeploymentDoctor implements vscode.Disposable {
  private report: DoctorReport | undefined;
  private failure: string | undefined;
  private ranFor = '';
  private running: Promise<DoctorReport | undefined> | undefined;
  private disposed = false;
  /** The next run a finding's end asked for (`untilMs`). */
  private expiry: ReturnType<typeof setTimeout> | undefined;
  private readonly emitter = new vscode.EventEmitter<void>();
  readonly onDidChange = this.emitter.event;
  private readonly subscription: vscode.Disposable;

  constructor(private readonly model: LockModel, private readonly log: Log) {
    // Findings are about the deployment, not about each refresh: run again only when the
    // node list changes or a node comes back or drops out (a password set, a node restarted).
    this.subscription = model.onDidChangeNodes(() => {
      // Wait for the first read: it says which nodes answer (facts follow it).
      if (!this.model.hasSnapshot) return;
      const seen = this.signature();
      if (seen !== this.ranFor && this.nodeIds() !== '') void this.run();
    });
  }

  private nodeIds(): string {
    return this.model.configuredNodes.map((n) => n.id).join('\n');
  }

  private signature(): string {
    const up = new Map(this.model.nodeStates.map((n) => [n.node, n.reachable]));
    return this.model.configuredNodes.map((n) => `${n.id} ${up.get(n.id) ?? '?'}`).join('\n');
  }

  get findings(): Finding[] | undefined {
    return this.nodeIds() === '' ? undefined : this.report?.findings;
  }

  get errorCount(): number {
    return this.findings?.filter((f) => f.severity === 'error').length ?? 0;
  }

  /** Why the last run failed (a config error, no node); undefined when it ran. */
  get error(): string | undefined {
    return this.failure;
  }

  get isRunning(): boolean {
    return this.running !== undefined;
  }

  /** Single-flight per node list: a call while a run for the same nodes is under way gets that run. */
  run(): Promise<DoctorReport | undefined> {
    if (this.running && this.ranFor === this.signature()) return this.running;
    const next: Promise<DoctorReport | undefined> = (this.running ?? Promise.resolve(undefined))
      .then(() => this.runOnce())
      .finally(() => {
        if (this.running === next) this.running = undefined;
        if (!this.disposed) this.emitter.fire();
      });
    this.running = next;
    if (!this.disposed) this.emitter.fire();
    return next;
  }

  private async runOnce(): Promise<DoctorReport | undefined> {
    const redlock = await this.model.redlock();
    this.ranFor = this.signature();
    if (!redlock) {
      this.report = undefined;
      this.failure = this.model.configError ?? 'no Redis node configured';
      return undefined;
    }
    const done = redlock.doctor({ patterns: this.model.settings.keyPatterns });
    this.model.hold(redlock, done);
    try {
      this.report = await done;
      this.failure = undefined;
      this.rerunWhenOver(this.report.findings);
      const errors = this.report.findings.filter((f) => f.severity === 'error');
      for (const f of errors) this.log.warn(`deployment: ${f.code}${f.node ? ` (${f.node})` : ''}: ${f.message}`);
      return this.report;
    } catch (e) {
      this.failure = e instanceof Error ? e.message : String(e);
      this.log.warn(`deployment doctor failed: ${this.failure}`);
      return undefined;
    }
  }

  /** A second after the first finding that time alone ends has ended, the doctor looks again. */
  private rerunWhenOver(findings: readonly Finding[]): void {
    clearTimeout(this.expiry);
    this.expiry = undefined;
    const until = Math.min(...findings.flatMap((f) => (f.untilMs !== undefined ? [f.untilMs] : [])));
    if (!Number.isFinite(until) || this.disposed) return;
    this.expiry = setTimeout(() => {
      this.expiry = undefined;
      if (!this.disposed) void this.run();
    }, Math.min(2 ** 31 - 1, Math.max(0, until) + 1000));
  }

  dispose(): void {
    this.disposed = true;
    clearTimeout(this.expiry);
    this.subscription.dispose();
    this.emitter.dispose();
  }
}
