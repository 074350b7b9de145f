// Commands run from a tree item (the element), from the palette (no argument: they
// prompt) or from tests and other extensions (a plain object: no prompts).
import { CopyElement, LockElement } from '../views/locksTree';
import { NodeElement } from '../views/nodesTree';

export interface KeyArgs {
  key?: string;
  /** Skip the confirmation dialog (true) or refuse it (false). */
  confirm?: boolean;
}

export function keyOf(arg: unknown): string | undefined {
  if (arg instanceof LockElement || arg instanceof CopyElement) return arg.key;
  if (typeof arg === 'string') return arg;
  if (arg && typeof arg === 'object' && typeof (arg as KeyArgs).key === 'string') return (arg as KeyArgs).key;
  return undefined;
}

export function nodeIdOf(arg: unknown): string | undefined {
  if (arg instanceof NodeElement) return arg.id;
  if (arg instanceof CopyElement) return arg.node;
  if (typeof arg === 'string') return arg;
  if (arg && typeof arg === 'object') {
    const o = arg as { id?: unknown; node?: unknown };
    if (typeof o.id === 'string') return o.id;
    if (typeof o.node === 'string') return o.node;
  }
  return undefined;
}

export function field<T>(arg: unknown, name: string, check: (v: unknown) => v is T): T | undefined {
  if (!arg || typeof arg !== 'object' || arg instanceof LockElement || arg instanceof CopyElement || arg instanceof NodeElement) return undefined;
  const v = (arg as Record<string, unknown>)[name];
  return check(v) ? v : undefined;
}

export const isString = (v: unknown): v is string => typeof v === 'string';
export const isNumber = (v: unknown): v is number => typeof v === 'number';
export const isBoolean = (v: unknown): v is boolean => typeof v === 'boolean';
