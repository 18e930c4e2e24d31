// "Did you mean ...?": the known name closest to a misspelt one, by edit distance.

/** The candidate closest to `word` (ignoring case, `_` and `-`), when it is close enough to be a typo. */
export function closestName(word: string, candidates: readonly string[]): string | undefined {
  const plain = (name: string) => name.toLowerCase().replace(/[_-]/g, '');
  const target = plain(word);
  let best: string | undefined;
  let bestDistance = Infinity;
  for (const candidate of candidates) {
    const distance = editDistance(target, plain(candidate));
    if (distance < bestDistance) [best, bestDistance] = [candidate, distance];
  }
  return bestDistance <= Math.max(1, Math.floor(target.length / 3)) ? best : undefined;
}

/** Levenshtein distance: the fewest insertions, deletions and substitutions from `a` to `b`. */
function editDistance(a: string, b: string): number {
  let previous = Array.from({ length: b.length + 1 }, (_, j) => j);
  for (let i = 1; i <= a.length; i++) {
    const row = [i];
    for (let j = 1; j <= b.length; j++) {
      row[j] = Math.min(previous[j] + 1, row[j - 1] + 1, previous[j - 1] + (a[i - 1] === b[j - 1] ? 0 : 1));
    }
    previous = row;
  }
  return previous[b.length];
}
