// Durations as people type them on a command line or in a setting: a bare integer is
// milliseconds, or an integer with a unit (`1500ms`, `10s`, `2m`, `1h`). A fraction is
// accepted only with a unit and only when it lands on a whole millisecond (`1.5s`), so
// every accepted text names exactly one integer of milliseconds. Pure, no dependency:
// the CLI, the extension and the webview can share it.

const UNIT_MS: Readonly<Record<string, number>> = { ms: 1, s: 1000, m: 60_000, h: 3_600_000 };

const DURATION = /^([0-9]+)(?:\.([0-9]+))?(ms|s|m|h)?$/;

/** Milliseconds for `text`, or undefined when it is not a duration (no sign, blank or exponent). */
export function parseDurationMs(text: string): number | undefined {
  const m = DURATION.exec(text);
  if (!m) return undefined;
  const [, whole, fraction, unit] = m;
  if (fraction !== undefined && unit === undefined) return undefined;
  const scale = UNIT_MS[unit ?? 'ms'];
  // Digit strings past 15 are beyond any TTL and would lose precision as numbers.
  if (whole.length > 15 || (fraction?.length ?? 0) > 6) return undefined;
  let ms = Number(whole) * scale;
  if (fraction !== undefined) {
    const part = (Number(fraction) * scale) / 10 ** fraction.length;
    if (!Number.isInteger(part)) return undefined;
    ms += part;
  }
  return Number.isSafeInteger(ms) ? ms : undefined;
}

/** The forms parseDurationMs accepts, for messages and help. */
export const DURATION_FORMS = '1500, 1500ms, 10s, 2m';
