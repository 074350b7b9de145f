// DOM helpers for the panel. Data (keys, tokens, node ids, reasons) only ever goes in as
// text (textContent) or as a plain attribute value (setAttribute); never as markup, and
// never as an event-handler attribute.

type Attrs = Record<string, string | number | boolean | null | undefined>;

function setAttrs(e: Element, attrs: Attrs | undefined): void {
  if (!attrs) return;
  for (const [name, value] of Object.entries(attrs)) {
    // Event handlers are attached with addEventListener, never as attributes.
    if (/^on/i.test(name) || name === 'style' || name === 'srcdoc') throw new Error(`refusing attribute ${name}`);
    if (value === null || value === undefined || value === false) continue;
    e.setAttribute(name, value === true ? '' : String(value));
  }
}

export function el<K extends keyof HTMLElementTagNameMap>(tag: K, attrs?: Attrs, text?: string): HTMLElementTagNameMap[K];
export function el(tag: string, attrs?: Attrs, text?: string): HTMLElement;
export function el(tag: string, attrs?: Attrs, text?: string): HTMLElement {
  const e = document.createElement(tag);
  setAttrs(e, attrs);
  if (text !== undefined) e.textContent = text;
  return e;
}

const SVG_NS = 'http://www.w3.org/2000/svg';

export function svg<K extends keyof SVGElementTagNameMap>(tag: K, attrs?: Attrs, text?: string): SVGElementTagNameMap[K] {
  const e = document.createElementNS(SVG_NS, tag);
  setAttrs(e, attrs);
  if (text !== undefined) e.textContent = text;
  return e;
}

/** Sets text only when it changed (no layout work for an unchanged countdown). */
export function setText(e: Element, text: string): void {
  if (e.textContent !== text) e.textContent = text;
}

/** Sets (or with null removes) an attribute only when it changed: a tick leaves the element alone. */
export function setAttr(e: Element, name: string, value: string | null): void {
  if (value === null) {
    if (e.hasAttribute(name)) e.removeAttribute(name);
  } else if (e.getAttribute(name) !== value) e.setAttribute(name, value);
}

export function clear(e: Element): void {
  while (e.firstChild) e.removeChild(e.firstChild);
}
