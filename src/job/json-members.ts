// Rewrites top-level fields of a JSON object while every other field keeps its exact bytes.
// JSON.parse + JSON.stringify would turn `1700000000.0` into `1700000000` and round big integers,
// and another runtime reading that field afterwards could misread it; this never touches them.

/** The raw text of each top-level member of a JSON object: [raw key, decoded key, raw value]. */
type Member = [rawKey: string, key: string, rawValue: string];

function skipSpace(text: string, i: number): number {
  while (i < text.length && (text[i] === ' ' || text[i] === '\n' || text[i] === '\r' || text[i] === '\t')) i++;
  return i;
}

function endOfString(text: string, i: number): number {
  // text[i] is the opening quote; returns the index just past the closing quote.
  for (i++; i < text.length; i++) {
    if (text[i] === '\\') i++;
    else if (text[i] === '"') return i + 1;
  }
  throw new SyntaxError('unterminated string');
}

function endOfValue(text: string, i: number): number {
  let depth = 0;
  for (; i < text.length; i++) {
    const c = text[i];
    if (c === '"') {
      i = endOfString(text, i) - 1;
    } else if (c === '{' || c === '[') {
      depth++;
    } else if (c === '}' || c === ']') {
      if (depth === 0) return i;
      depth--;
    } else if (c === ',' && depth === 0) {
      return i;
    }
  }
  throw new SyntaxError('unterminated value');
}

/** Splits a JSON object's text (already known to be valid JSON) into its top-level members. */
export function members(text: string): Member[] {
  const result: Member[] = [];
  let i = skipSpace(text, 0);
  if (text[i] !== '{') throw new SyntaxError('not a JSON object');
  i = skipSpace(text, i + 1);
  if (text[i] === '}') return result;
  for (;;) {
    const keyEnd = endOfString(text, i);
    const rawKey = text.slice(i, keyEnd);
    i = skipSpace(text, keyEnd);
    if (text[i] !== ':') throw new SyntaxError('expected :');
    const valueStart = skipSpace(text, i + 1);
    const valueEnd = endOfValue(text, valueStart);
    result.push([rawKey, JSON.parse(rawKey) as string, text.slice(valueStart, valueEnd).trimEnd()]);
    i = skipSpace(text, valueEnd);
    if (text[i] === '}') return result;
    if (text[i] !== ',') throw new SyntaxError('expected , or }');
    i = skipSpace(text, i + 1);
  }
}

/**
 * `text` with the given top-level fields set to the given raw JSON values (`undefined` removes
 * the field). Fields not named keep their bytes and order; new fields are appended.
 */
export function rewriteMembers(text: string, updates: Record<string, string | undefined>): string {
  const pending = new Map(Object.entries(updates));
  const done = new Set<string>();
  const out: string[] = [];
  for (const [rawKey, key, rawValue] of members(text)) {
    if (done.has(key)) continue; // a repeated key: JSON readers take the last, so only the new value may stay
    if (!pending.has(key)) {
      out.push(`${rawKey}:${rawValue}`);
      continue;
    }
    const value = pending.get(key);
    pending.delete(key);
    done.add(key);
    if (value !== undefined) out.push(`${rawKey}:${value}`);
  }
  for (const [key, value] of pending) {
    if (value !== undefined) out.push(`${JSON.stringify(key)}:${value}`);
  }
  return `{${out.join(',')}}`;
}
