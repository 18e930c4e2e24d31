// "Did you mean ...?": the known name closest to a misspelt one, for config options, NEXQ_
// variables and per-job options alike.

/**
 * The candidate closest to `word` (ignoring case, `_` and `-`), when it is close enough to be a
 * slip: at most half the letters of the longer of the two changed.
 */
export function closestName(word: string, candidates: readonly string[]): string | undefined {
  const plain = (name: string) => name.toLowerCase().replace(/[_-]/g, '');
  const target = plain(word);
  let best: string | undefined;
  let bestDistance = Infinity;
  for (const candidate of candidates) {
    const distance = editDistance(target, plain(candidate));
    if (distance < bestDistance) [best, bestDistance] = [candidate, distance];
  }
  if (best === undefined) return undefined;
  return bestDistance <= Math.max(1, Math.floor(Math.max(target.length, plain(best).length) / 2)) ? best : undefined;
}

/** The fewest insertions, deletions, substitutions and swaps of two neighbours from `a` to `b`. */
function editDistance(a: string, b: string): number {
  const d: number[][] = Array.from({ length: a.length + 1 }, (_, i) => [i, ...Array<number>(b.length).fill(0)]);
  for (let j = 1; j <= b.length; j++) d[0][j] = j;
  for (let i = 1; i <= a.length; i++) {
    for (let j = 1; j <= b.length; j++) {
      d[i][j] = Math.min(d[i - 1][j] + 1, d[i][j - 1] + 1, d[i - 1][j - 1] + (a[i - 1] === b[j - 1] ? 0 : 1));
      if (i > 1 && j > 1 && a[i - 1] === b[j - 2] && a[i - 2] === b[j - 1])
        d[i][j] = Math.min(d[i][j], d[i - 2][j - 2] + 1);
    }
  }
  return d[a.length][b.length];
}
