// The Nodes view: one item per configured node with health and facts from the core.
import * as vscode from 'vscode';
import type { Finding } from '../../core';
import type { DeploymentDoctor } from '../model/deployment';
import type { LockModel } from '../model/lockModel';
import { safeMarkdown } from './locksTree';
import { cell, escapeMarkdown, printable } from '../words/markdown';
import { nodeDescription, nodeTooltipMarkdown } from '../words/nodeText';
import { elementId } from './treeIds';

export class NodeElement {
  readonly kind = 'node';
  constructor(readonly id: string) {}
}

/** The "Deployment" section: the doctor's findings under the nodes. */
export class DeploymentElement {
  readonly kind = 'deployment';
}

export class FindingElement {
  readonly kind = 'finding';
  constructor(readonly finding: Finding, readonly index: number) {}
}

export type NodesTreeElement = NodeElement | DeploymentElement | FindingElement;

const SEVERITY_ICON: Record<Finding['severity'], vscode.ThemeIcon> = {
  error: new vscode.ThemeIcon('error', new vscode.ThemeColor('errorForeground')),
  warning: new vscode.ThemeIcon('warning', new vscode.ThemeColor('list.warningForeground')),
  info: new vscode.ThemeIcon('info'),
};

export class NodesTreeProvider implements vscode.TreeDataProvider<NodesTreeElement>, vscode.Disposable {
  private readonly emitter = new vscode.EventEmitter<NodesTreeElement | NodesTreeElement[] | undefined>();
  readonly onDidChangeTreeData = this.emitter.event;
  private readonly elements = new Map<string, NodeElement>();
  private readonly deployment = new DeploymentElement();
  private findingElements: FindingElement[] = [];
  private readonly subscription: vscode.Disposable;

  constructor(private readonly model: LockModel, private readonly doctor?: DeploymentDoctor) {
    this.subscription = vscode.Disposable.from(
      model.onDidChangeNodes(() => this.emitter.fire(undefined)),
      model.onDidChangeState(() => this.emitter.fire(undefined)),
      doctor?.onDidChange(() => this.emitter.fire(undefined)) ?? new vscode.Disposable(() => undefined),
    );
  }

  getChildren(element?: NodesTreeElement): NodesTreeElement[] {
    if (element instanceof DeploymentElement) {
      this.findingElements = (this.doctor?.findings ?? []).map((f, i) => new FindingElement(f, i));
      return this.findingElements;
    }
    if (element) return [];
    const ids = this.model.configuredNodes.map((n) => n.id);
    for (const id of [...this.elements.keys()]) if (!ids.includes(id)) this.elements.delete(id);
    const nodes: NodesTreeElement[] = ids.map((id) => {
      let el = this.elements.get(id);
      if (!el) this.elements.set(id, (el = new NodeElement(id)));
      return el;
    });
    return this.doctor && ids.length > 0 ? [...nodes, this.deployment] : nodes;
  }

  getParent(element: NodesTreeElement): NodesTreeElement | undefined {
    return element instanceof FindingElement ? this.deployment : undefined;
  }

  getTreeItem(element: NodesTreeElement): vscode.TreeItem {
    if (element instanceof DeploymentElement) return this.deploymentItem();
    if (element instanceof FindingElement) return findingItem(element);
    return this.nodeItem(element);
  }

  private deploymentItem(): vscode.TreeItem {
    const doctor = this.doctor!;
    const findings = doctor.findings;
    const errors = doctor.errorCount;
    const warnings = findings?.filter((f) => f.severity === 'warning').length ?? 0;
    const item = new vscode.TreeItem(vscode.l10n.t('Deployment'), findings?.length ? vscode.TreeItemCollapsibleState.Expanded : vscode.TreeItemCollapsibleState.None);
    item.id = elementId('deployment');
    item.description = doctor.isRunning
      ? vscode.l10n.t('checking…')
      : doctor.error
        ? vscode.l10n.t('not checked: {0}', printable(doctor.error))
        : findings === undefined
          ? vscode.l10n.t('not checked yet')
          : errors + warnings === 0
            ? vscode.l10n.t('no problems found')
            : [
                errors ? (errors === 1 ? vscode.l10n.t('1 error') : vscode.l10n.t('{0} errors', errors)) : '',
                warnings ? (warnings === 1 ? vscode.l10n.t('1 warning') : vscode.l10n.t('{0} warnings', warnings)) : '',
              ].filter(Boolean).join(', ');
    item.iconPath = errors ? SEVERITY_ICON.error : warnings ? SEVERITY_ICON.warning : new vscode.ThemeIcon('shield');
    item.tooltip = vscode.l10n.t('Deployment doctor: replicas, eviction policy, persistence, restart risk, clocks, latency and permissions of the configured nodes.');
    item.command = { command: 'redlock.doctor', title: vscode.l10n.t('Run Deployment Doctor') };
    item.contextValue = 'deployment';
    return item;
  }

  private nodeItem(element: NodeElement): vscode.TreeItem {
    const facts = this.model.nodeFacts?.find((f) => f.node === element.id);
    const status = this.model.nodeStates.find((s) => s.node === element.id);
    const item = new vscode.TreeItem(printable(element.id), vscode.TreeItemCollapsibleState.None);
    item.id = elementId('node', element.id);
    item.description = nodeDescription(facts, status);
    const reachable = facts?.reachable ?? status?.reachable;
    // A replica in a Redlock set loses acknowledged writes on failover; a far-off clock
    // breaks the bounded-drift assumption; a fresh node without persistence forgot its locks.
    const risky = facts?.restartRisk === true || facts?.role === 'replica' || (facts?.clockOffsetMs != null && Math.abs(facts.clockOffsetMs) > 500);
    item.iconPath =
      reachable === false
        ? new vscode.ThemeIcon('error', new vscode.ThemeColor('errorForeground'))
        : reachable === undefined
          ? new vscode.ThemeIcon('circle-outline')
          : risky
            ? new vscode.ThemeIcon('warning', new vscode.ThemeColor('list.warningForeground'))
            : new vscode.ThemeIcon('pass-filled', new vscode.ThemeColor('charts.green'));
    item.contextValue = `node;${reachable === false ? 'unreachable' : 'reachable'};${risky ? 'risk;' : ''}`;
    item.tooltip = safeMarkdown(nodeTooltipMarkdown(element.id, facts, status));
    return item;
  }

  dispose(): void {
    this.subscription.dispose();
    this.emitter.dispose();
  }
}

function findingItem(element: FindingElement): vscode.TreeItem {
  const f = element.finding;
  const item = new vscode.TreeItem(printable(f.message), vscode.TreeItemCollapsibleState.None);
  item.id = elementId('finding', String(element.index), f.code, f.node ?? '');
  item.description = f.code;
  item.iconPath = SEVERITY_ICON[f.severity];
  item.tooltip = safeMarkdown(`**${cell(f.code)}** (${f.severity})${f.node ? ` · ${cell(f.node, 120)}` : ''}\n\n${escapeMarkdown(f.message)}\n\n**Fix:** ${escapeMarkdown(f.fix)}`);
  item.contextValue = `finding;${f.severity};`;
  return item;
}
