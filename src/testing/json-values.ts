// JSON helpers of the assertions and messages. Whether a value is JSON-safe is src/job/json-safety.ts,
// the enqueuer's own checker.

/** Deep equality of two JSON values (object key order does not matter). */
export function jsonEqual(a: unknown, b: unknown): boolean {
  if (a === b) return true;
  if (typeof a !== 'object' || typeof b !== 'object' || a === null || b === null) return false;
  if (Array.isArray(a) !== Array.isArray(b)) return false;
  if (Array.isArray(a)) {
    const other = b as unknown[];
    return a.length === other.length && a.every((item, i) => jsonEqual(item, other[i]));
  }
  const aKeys = Object.keys(a);
  const bRecord = b as Record<string, unknown>;
  if (aKeys.length !== Object.keys(bRecord).length) return false;
  return aKeys.every(
    (key) =>
      Object.prototype.hasOwnProperty.call(bRecord, key) &&
      jsonEqual((a as Record<string, unknown>)[key], bRecord[key]),
  );
}

/** JSON text for a message, cut short; never throws. */
export function preview(value: unknown, max = 120): string {
  let text: string;
  try {
    // undefined for undefined, a function or a symbol (lib.d.ts says string).
    const json = JSON.stringify(value) as string | undefined;
    text = json ?? String(value);
  } catch {
    text = String(value);
  }
  return text.length > max ? `${text.slice(0, max)}…` : text;
}
