// Finds every value that a JSON round trip would change or refuse: a job's args travel as JSON, so
// a handler would see something other than what the test passed. Each problem names its path.
const IDENTIFIER = /^[A-Za-z_$][\w$]*$/;
const MAX_PROBLEMS = 20;

function child(path: string, key: string | number): string {
  if (typeof key === 'number') return `${path}[${key}]`;
  return IDENTIFIER.test(key) ? `${path}.${key}` : `${path}[${JSON.stringify(key)}]`;
}

/** What JSON writes for a value that has no JSON form of its own (a Date, a Map, toJSON...). */
function written(value: object): string {
  try {
    const json = JSON.stringify(value);
    return json === undefined ? 'nothing' : json.length > 60 ? `${json.slice(0, 60)}…` : json;
  } catch (err) {
    return `nothing: it throws (${(err as Error).message})`;
  }
}

/**
 * The ways `value` is not JSON-safe, as readable lines ("args[1].when is a Date (JSON writes
 * "2024-…")"); empty when JSON.parse(JSON.stringify(value)) would give back an equal value.
 */
export function jsonProblems(value: unknown, root: string): string[] {
  const problems: string[] = [];
  const ancestors = new Set<object>();

  const walk = (v: unknown, path: string, inArray: boolean): void => {
    if (problems.length >= MAX_PROBLEMS) return;
    const dropped = inArray ? 'JSON writes null' : 'JSON drops it';
    switch (typeof v) {
      case 'string':
      case 'boolean':
        return;
      case 'number':
        if (!Number.isFinite(v)) problems.push(`${path} is ${v} (JSON writes null)`);
        else if (Object.is(v, -0)) problems.push(`${path} is -0 (JSON writes 0)`);
        return;
      case 'undefined':
        problems.push(`${path} is undefined (${dropped})`);
        return;
      case 'function':
        problems.push(`${path} is a function (${dropped})`);
        return;
      case 'symbol':
        problems.push(`${path} is a symbol (${dropped})`);
        return;
      case 'bigint':
        problems.push(`${path} is a BigInt (JSON cannot write it)`);
        return;
    }
    if (v === null) return;
    const object = v as object;
    if (ancestors.has(object)) {
      problems.push(`${path} refers back to a value that contains it (a cycle: JSON cannot write it)`);
      return;
    }
    const proto = Object.getPrototypeOf(object);
    if (Array.isArray(object)) {
      if (proto !== Array.prototype) problems.push(`${path} is a ${proto?.constructor?.name ?? 'subclass of Array'} (JSON writes a plain array)`);
    } else if (proto !== Object.prototype && proto !== null) {
      problems.push(`${path} is a ${proto?.constructor?.name || 'class instance'} (JSON writes ${written(object)})`);
      return;
    } else if (typeof (object as { toJSON?: unknown }).toJSON === 'function') {
      problems.push(`${path} has a toJSON method (JSON writes ${written(object)})`);
      return;
    }
    if (Object.getOwnPropertySymbols(object).some((s) => Object.prototype.propertyIsEnumerable.call(object, s))) {
      problems.push(`${path} has symbol keys (JSON drops them)`);
    }
    ancestors.add(object);
    if (Array.isArray(object)) {
      for (let i = 0; i < object.length; i++) {
        if (!(i in object)) problems.push(`${child(path, i)} is an empty slot (JSON writes null)`);
        else walk(object[i], child(path, i), true);
      }
    } else {
      for (const [key, item] of Object.entries(object)) walk(item, child(path, key), false);
    }
    ancestors.delete(object);
  };

  walk(value, root, false);
  return problems;
}

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
  return aKeys.every((key) => Object.prototype.hasOwnProperty.call(bRecord, key) && jsonEqual((a as Record<string, unknown>)[key], bRecord[key]));
}

/** JSON text for a message, cut short; never throws. */
export function preview(value: unknown, max = 120): string {
  let text: string;
  try {
    text = JSON.stringify(value) ?? String(value);
  } catch {
    text = String(value);
  }
  return text.length > max ? `${text.slice(0, max)}…` : text;
}
