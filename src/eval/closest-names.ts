/**
 * "Did you mean": the known names closest to one that matched nothing, by edit distance
 * (a name that contains the asked-for text, or is contained in it, counts as close).
 */

/** Levenshtein distance: the fewest single-character insertions, deletions and substitutions. */
export function editDistance(a: string, b: string): number {
  let previous = Array.from({ length: b.length + 1 }, (_, index) => index);
  for (let i = 1; i <= a.length; i += 1) {
    const current = [i];
    for (let j = 1; j <= b.length; j += 1) {
      current[j] = Math.min(
        (previous[j] ?? 0) + 1,
        (current[j - 1] ?? 0) + 1,
        (previous[j - 1] ?? 0) + (a[i - 1] === b[j - 1] ? 0 : 1),
      );
    }
    previous = current;
  }
  return previous[b.length] ?? 0;
}

/**
 * Up to `count` of `candidates`, closest to `asked` first (ties keep the candidates' order):
 * the closest one always, the others only while they are near (within 40% of the length).
 */
export function closestNames(asked: string, candidates: readonly string[], count = 3): string[] {
  const wanted = asked.toLowerCase();
  const scored = [...new Set(candidates)].map((name, index) => {
    const lower = name.toLowerCase();
    const contains = wanted.length > 0 && (lower.includes(wanted) || wanted.includes(lower));
    return {
      name,
      index,
      score: contains ? Math.abs(lower.length - wanted.length) / 100 : editDistance(wanted, lower),
    };
  });
  const near = Math.max(2, Math.ceil(0.4 * wanted.length));
  return scored
    .sort((a, b) => a.score - b.score || a.index - b.index)
    .filter((entry, rank) => rank === 0 || entry.score <= near)
    .slice(0, count)
    .map((entry) => entry.name);
}
