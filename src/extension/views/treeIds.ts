// TreeItem ids must be unique and stable across refreshes, and keys are arbitrary
// strings (`:` `/` and `,` included): a JSON array is injective where joining is not.
export type ElementKind = 'lock' | 'copy' | 'more' | 'node' | 'deployment' | 'finding' | 'heldGroup' | 'held' | 'folder' | 'attentionGroup' | 'attention' | 'lastSeen';

export function elementId(kind: ElementKind, ...parts: string[]): string {
  return JSON.stringify([kind, ...parts]);
}
