// The Nodes view: one item per configured node with health and facts from the core.
import * as vscode from 'vscode';
import type { LockModel } from './lockModel';
import { safeMarkdown } from './locksTree';
import { printable } from './markdown';
import { nodeDescription, nodeTooltipMarkdown } from './nodeText';
import { elementId } from './treeIds';

export class NodeElement {
  readonly kind = 'node';
  constructor(readonly id: string) {}
}

export class NodesTreeProvider implements vscode.TreeDataProvider<NodeElement>, vscode.Disposable {
  private readonly emitter = new vscode.EventEmitter<NodeElement | NodeElement[] | undefined>();
  readonly onDidChangeTreeData = this.emitter.event;
  private readonly elements = new Map<string, NodeElement>();
  private readonly subscription: vscode.Disposable;

  constructor(private readonly model: LockModel) {
    this.subscription = vscode.Disposable.from(
      model.onDidChangeNodes(() => this.emitter.fire(undefined)),
      model.onDidChangeState(() => this.emitter.fire(undefined)),
    );
  }

  getChildren(element?: NodeElement): NodeElement[] {
    if (element) return [];
    const ids = this.model.configuredNodes.map((n) => n.id);
    for (const id of [...this.elements.keys()]) if (!ids.includes(id)) this.elements.delete(id);
    return ids.map((id) => {
      let el = this.elements.get(id);
      if (!el) this.elements.set(id, (el = new NodeElement(id)));
      return el;
    });
  }

  getParent(): undefined {
    return undefined;
  }

  getTreeItem(element: NodeElement): vscode.TreeItem {
    const facts = this.model.nodeFacts?.find((f) => f.node === element.id);
    const status = this.model.snapshot?.nodes.find((s) => s.node === element.id);
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
