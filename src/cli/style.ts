// ANSI colours by hand: only on a terminal, and never when NO_COLOR is set (no-color.org)
// or TERM is dumb. Colour wraps text that was already escaped, never raw key bytes.
/** The environment variables a command reads. */
export interface Env {
  [name: string]: string | undefined;
}

export interface Style {
  red(s: string): string;
  green(s: string): string;
  yellow(s: string): string;
  magenta(s: string): string;
  cyan(s: string): string;
  dim(s: string): string;
  bold(s: string): string;
}

const wrap = (open: number, close: number) => (s: string): string => `\x1b[${open}m${s}\x1b[${close}m`;

const COLOUR: Style = {
  red: wrap(31, 39),
  green: wrap(32, 39),
  yellow: wrap(33, 39),
  magenta: wrap(35, 39),
  cyan: wrap(36, 39),
  dim: wrap(2, 22),
  bold: wrap(1, 22),
};

const id = (s: string): string => s;
export const PLAIN: Style = { red: id, green: id, yellow: id, magenta: id, cyan: id, dim: id, bold: id };

export function colourWanted(stream: { isTTY?: boolean }, env: Env): boolean {
  return stream.isTTY === true && env.NO_COLOR === undefined && env.TERM !== 'dumb';
}

export function styleFor(enabled: boolean): Style {
  return enabled ? COLOUR : PLAIN;
}
