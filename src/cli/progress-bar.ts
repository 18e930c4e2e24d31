// A one-line progress bar for a terminal, redrawn in place with `\r`: how much of the initial work
// is left, the rate and the time so far. Pure text; the caller decides where and whether to draw.

const WIDTH = 30;

export interface Progress {
  /** What is left now. */
  remaining: number;
  /** What was there at the start (or the most seen since, when work was added). */
  total: number;
  /** Jobs per second so far. */
  rate: number;
  elapsedSeconds: number;
  label: string;
}

/** `label [#########.........] 12/40 left  3.5 jobs/s  8s` */
export function renderProgress({ remaining, total, rate, elapsedSeconds, label }: Progress): string {
  const done = total === 0 ? 1 : Math.min(1, Math.max(0, (total - remaining) / total));
  const filled = Math.round(done * WIDTH);
  const bar = `${'#'.repeat(filled)}${'.'.repeat(WIDTH - filled)}`;
  return `${label} [${bar}] ${remaining}/${total} left  ${rate.toFixed(1)} jobs/s  ${Math.floor(elapsedSeconds)}s`;
}

/** Writes each line over the last one (carriage return, then clear to the end of the line). */
export class LiveLine {
  private drawn = false;

  constructor(private readonly write: (text: string) => void) {}

  draw(line: string): void {
    this.write(`\r${line}\x1b[K`);
    this.drawn = true;
  }

  /** Leaves the last line standing and moves below it. */
  end(): void {
    if (this.drawn) this.write('\n');
    this.drawn = false;
  }
}
