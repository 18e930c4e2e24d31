// Finds every value that a JSON round trip would change or refuse: a job's args travel as JSON, so
// a handler would see something other than what the caller passed. The enqueuer refuses such args
// and nexq/testing reports them, with this one checker, so tests and production agree.
// `isJsonSafe` is the fast path, run on every enqueue: it allocates nothing; only when it says no
// does `jsonProblems` walk again to name each problem. Symbol-keyed properties are not looked for
// (JSON drops them): finding them allocates per object and would cost more than the rest of the check.
const IDENTIFIER = /^[A-Za-z_$][\w$]*$/;
const MAX_PROBLEMS = 20;
/** Deeper than this the fast path stops and `jsonProblems` decides (it also finds cycles). */
const FAST_DEPTH = 64;

function child(path: string, key: string | number): string {
  if (typeof key === 'number') return `${path}[${key}]`;
  return IDENTIFIER.test(key) ? `${path}.${key}` : `${path}[${JSON.stringify(key)}]`;
}

/** What JSON writes for a value that has no JSON form of its own (a Date, a Map, toJSON...). */
function written(value: object): string {
  try {
    // undefined when a toJSON returns nothing (lib.d.ts says string).
    const json = JSON.stringify(value) as string | undefined;
    return json === undefined ? 'nothing' : json.length > 60 ? `${json.slice(0, 60)}…` : json;
  } catch (err) {
    return `nothing: it throws (${(err as Error).message})`;
  }
}

/** True when JSON.parse(JSON.stringify(value)) gives back an equal value; false when unsure. */
export function isJsonSafe(value: unknown, depth = 0): boolean {
  switch (typeof value) {
    case 'string':
    case 'boolean':
      return true;
    case 'number':
      return Number.isFinite(value);
    case 'object':
      break;
    default:
      return false;
  }
  if (value === null) return true;
  if (depth >= FAST_DEPTH) return false;
  if (Array.isArray(value)) {
    if (Object.getPrototypeOf(value) !== Array.prototype) return false;
    for (let i = 0; i < value.length; i++) {
      const item: unknown = value[i];
      if ((item === undefined && !(i in value)) || !isJsonSafe(item, depth + 1)) return false;
    }
    return true;
  }
  const proto: unknown = Object.getPrototypeOf(value);
  if (proto !== Object.prototype && proto !== null) return false;
  const record = value as Record<string, unknown>;
  if (typeof record.toJSON === 'function') return false;
  // for...in also visits enumerable keys inherited from a polluted Object.prototype: when one of
  // those is unsafe, the slow walk (own keys only, as JSON) has the last word.
  for (const key in record) {
    if (!isJsonSafe(record[key], depth + 1)) return false;
  }
  return true;
}

/**
 * The ways `value` is not JSON-safe, as readable lines ("args[1].when is a Date (JSON writes
 * "2024-…")"); empty when JSON.parse(JSON.stringify(value)) would give back an equal value.
 * -0 passes: JSON writes 0, which equals it.
 */
export function jsonProblems(value: unknown, root: string): string[] {
  if (isJsonSafe(value)) return [];
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
    const proto = Object.getPrototypeOf(object) as { constructor?: { name?: string } } | null;
    if (Array.isArray(object)) {
      if (proto !== Array.prototype)
        problems.push(`${path} is a ${proto?.constructor?.name ?? 'subclass of Array'} (JSON writes a plain array)`);
    } else if (proto !== Object.prototype && proto !== null) {
      problems.push(`${path} is a ${proto.constructor?.name || 'class instance'} (JSON writes ${written(object)})`);
      return;
    } else if (typeof (object as { toJSON?: unknown }).toJSON === 'function') {
      problems.push(`${path} has a toJSON method (JSON writes ${written(object)})`);
      return;
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
