// The names a per-job options object may hold. A misspelt option (`retries: 3`) would otherwise be
// dropped without a word and the job would run with the default; it is refused, naming the option
// and, when one is close, the option meant.

/** Every per-job option (JobOptions); `backtrace` is Sidekiq's, kept in the failure. */
export const JOB_OPTION_NAMES: readonly string[] = ['retry', 'jid', 'delay', 'ttl', 'maxlen', 'atMostOnce', 'unique', 'backtrace'];
export const UNIQUE_OPTION_NAMES: readonly string[] = ['for', 'until', 'key'];

/** Edits (insert, delete, replace, swap two neighbours) turning `a` into `b`, case ignored. */
function editDistance(a: string, b: string): number {
  a = a.toLowerCase();
  b = b.toLowerCase();
  const d: number[][] = Array.from({ length: a.length + 1 }, (_, i) => [i, ...Array<number>(b.length).fill(0)]);
  for (let j = 1; j <= b.length; j++) d[0][j] = j;
  for (let i = 1; i <= a.length; i++) {
    for (let j = 1; j <= b.length; j++) {
      d[i][j] = Math.min(d[i - 1][j] + 1, d[i][j - 1] + 1, d[i - 1][j - 1] + (a[i - 1] === b[j - 1] ? 0 : 1));
      if (i > 1 && j > 1 && a[i - 1] === b[j - 2] && a[i - 2] === b[j - 1]) d[i][j] = Math.min(d[i][j], d[i - 2][j - 2] + 1);
    }
  }
  return d[a.length][b.length];
}

/** The known name closest to `name`, when it is close enough to be a slip (half its letters at most). */
export function closestName(name: string, known: readonly string[]): string | undefined {
  let best: string | undefined;
  let bestDistance = Infinity;
  for (const candidate of known) {
    const distance = editDistance(name, candidate);
    if (distance < bestDistance) [best, bestDistance] = [candidate, distance];
  }
  return bestDistance <= Math.max(1, Math.floor(Math.max(name.length, best?.length ?? 0) / 2)) ? best : undefined;
}

/**
 * The first key of `options` not in `known`, as a one-line reason; undefined when all are known.
 * A key set to `undefined` is let through, as the known options are (`{ ...defaults, ttl: undefined }`).
 */
export function unknownOption(options: object, known: readonly string[], prefix = ''): string | undefined {
  for (const key in options) {
    if (!Object.prototype.hasOwnProperty.call(options, key) || known.includes(key)) continue;
    if ((options as Record<string, unknown>)[key] === undefined) continue;
    const close = closestName(key, known);
    return `unknown job option \`${prefix}${key}\`${close ? ` (did you mean \`${prefix}${close}\`?)` : ''}; the options are ${known.join(', ')}`;
  }
  return undefined;
}
