// JSON typed on a command line may hold integers past 2^53 (ids from another system), which
// JSON.parse rounds without a word: 9007199254740993 becomes 9007199254740992. The CLI refuses
// them instead, naming where and how to pass them (as a string).

/** The number literals of a JSON text, in the order they appear (strings skipped). */
function numberLiterals(text: string): string[] {
  const literals: string[] = [];
  for (let i = 0; i < text.length; i++) {
    const c = text[i];
    if (c === '"') {
      for (i++; i < text.length && text[i] !== '"'; i++) if (text[i] === '\\') i++;
    } else if (c === '-' || (c >= '0' && c <= '9')) {
      const match = /^-?\d+(?:\.\d+)?(?:[eE][+-]?\d+)?/.exec(text.slice(i));
      if (match) {
        literals.push(match[0]);
        i += match[0].length - 1;
      }
    }
  }
  return literals;
}

/** Where a value parsed from JSON holds a whole number JSON could not keep exactly: its path. */
function unsafePath(value: unknown, path: string): string | undefined {
  if (typeof value === 'number') return Number.isInteger(value) && !Number.isSafeInteger(value) ? path : undefined;
  if (Array.isArray(value)) {
    for (const [i, item] of value.entries()) {
      const found = unsafePath(item, `${path}[${i}]`);
      if (found) return found;
    }
  } else if (typeof value === 'object' && value !== null) {
    for (const [key, item] of Object.entries(value)) {
      const found = unsafePath(
        item,
        /^[A-Za-z_$][\w$]*$/.test(key) ? `${path}.${key}` : `${path}[${JSON.stringify(key)}]`,
      );
      if (found) return found;
    }
  }
  return undefined;
}

/**
 * Why `value` (parsed from `text`) cannot be taken as it is: a whole number beyond what a JSON number
 * keeps exactly (±2^53), with its path and its literal; undefined when there is none.
 */
export function unsafeIntegerIn(text: string, value: unknown, root: string): string | undefined {
  const path = unsafePath(value, root);
  if (path === undefined) return undefined;
  const literal = numberLiterals(text).find((n) => {
    const parsed = Number(n);
    return Number.isInteger(parsed) && !Number.isSafeInteger(parsed);
  });
  const shown = literal ?? String(unsafePath(value, root));
  return (
    `${path} is ${shown}, a whole number past 2^53 (${Number.MAX_SAFE_INTEGER}) that JSON numbers do not ` +
    `keep exactly (it would become ${String(Number(shown))}): pass it as a string, "${shown}"`
  );
}
