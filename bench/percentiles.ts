// Nearest-rank percentiles of a sample.

export interface Distribution {
  count: number;
  p50: number;
  p90: number;
  p99: number;
  max: number;
  mean: number;
}

export function distribution(values: number[]): Distribution {
  const sorted = values.filter((v) => Number.isFinite(v)).sort((a, b) => a - b);
  const at = (p: number) =>
    sorted.length ? sorted[Math.min(sorted.length - 1, Math.ceil((p / 100) * sorted.length) - 1)] : NaN;
  const mean = sorted.reduce((s, v) => s + v, 0) / (sorted.length || NaN);
  return { count: sorted.length, p50: at(50), p90: at(90), p99: at(99), max: sorted[sorted.length - 1] ?? NaN, mean };
}

export function median(values: number[]): number {
  return distribution(values).p50;
}
