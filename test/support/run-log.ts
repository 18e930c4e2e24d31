// Reading the log the stress handler (test/fixtures/stress-jobs/StressRun.js) writes: each run's
// start, its liveness ticks and its end, in the order Redis executed them, and what follows from
// that order alone (no clock): how many runs were alive at once, which ran on after a node had
// stopped, and which jobs ran again after a run that had finished.

export interface Run {
  id: number;
  jid: string;
  /** `pid/threadId` of the worker thread it ran on. */
  thread: string;
  /** Position of its start in the log. */
  start: number;
  /**
   * Position of its last entry: its end, or for a run cut off (its thread died) its last tick,
   * the latest point it is known to have been alive: it may have lived a little longer, never less.
   */
  last: number;
  /** Its handler returned (`E`). */
  completed: boolean;
  /** Its end's place among its thread's ends (0: the first), when it completed. */
  endSeq?: number;
}

/** One line a handler wrote: `S` start, `T` tick, `E` end, `X` about to end its thread. */
export interface RunEntry {
  at: number;
  kind: string;
  run: Run;
  /** On a line other than an end: how many ends' replies its thread had read when it sent it. */
  replied?: number;
}

export interface RunLog {
  runs: Run[];
  /** Every handler's line, in the log's order. */
  entries: RunEntry[];
  /** Positions of the test's own markers (`M|name`), by name. */
  markers: Map<string, number>;
}

export function parseRunLog(entries: string[]): RunLog {
  const byId = new Map<number, Run>();
  const markers = new Map<string, number>();
  const lines: RunEntry[] = [];
  entries.forEach((entry, at) => {
    const fields = entry.split('|');
    const [kind, id, jid, thread] = fields;
    if (kind === 'M') {
      markers.set(id, at);
      return;
    }
    if (kind === 'S') {
      const started: Run = { id: Number(id), jid, thread, start: at, last: at, completed: false };
      byId.set(started.id, started);
      lines.push({ at, kind, run: started, replied: Number(fields[4]) });
      return;
    }
    const run = byId.get(Number(id));
    if (!run) throw new Error(`log entry ${at} (${entry}) names a run that never started`);
    if (run.completed) throw new Error(`log entry ${at} (${entry}) comes after its run ended`);
    run.last = at;
    if (kind === 'E') {
      run.completed = true;
      run.endSeq = Number(fields[2]);
      lines.push({ at, kind, run });
    } else lines.push({ at, kind, run, replied: Number(fields[2]) });
  });
  return { runs: [...byId.values()], entries: lines, markers };
}

/**
 * The most runs alive at once, and which: counted at each start, a run being alive from its start
 * to its last entry. A run cut off counts only up to its last tick, so the count never exceeds what
 * really ran; a count above a limit is a real breach, not an artefact of killed runs.
 */
export function peakOverlap(runs: Run[]): { peak: number; alive: Run[] } {
  const starting = new Map<number, Run>();
  const ending = new Map<number, Run>();
  for (const run of runs) {
    starting.set(run.start, run);
    ending.set(run.last, run);
  }
  const positions = [...new Set([...starting.keys(), ...ending.keys()])].sort((a, b) => a - b);
  const alive = new Set<Run>();
  let peak = 0;
  let atPeak: Run[] = [];
  for (const at of positions) {
    const started = starting.get(at);
    if (started) {
      alive.add(started);
      if (alive.size > peak) {
        peak = alive.size;
        atPeak = [...alive];
      }
    }
    const ended = ending.get(at);
    if (ended) alive.delete(ended);
  }
  return { peak, alive: atPeak };
}

/** Runs that started before the marker at `marker` and wrote to the log after it. */
export function runsAcross(runs: Run[], marker: number): Run[] {
  return runs.filter((run) => run.start < marker && run.last > marker);
}

/** Threads that died under a run: some run on them was cut off. */
export function deadThreads(runs: Run[]): Set<string> {
  return new Set(runs.filter((run) => !run.completed).map((run) => run.thread));
}

/** Runs by jid, oldest first. */
export function runsByJid(runs: Run[]): Map<string, Run[]> {
  const byJid = new Map<string, Run[]>();
  for (const run of [...runs].sort((a, b) => a.start - b.start)) {
    const list = byJid.get(run.jid) ?? [];
    list.push(run);
    byJid.set(run.jid, list);
  }
  return byJid;
}

/**
 * Jobs that ran again after a run of theirs had finished, unless that run's outcome may have been
 * lost with its thread. A thread posts a finished run's outcome in the turn of its event loop that
 * read the reply to the run's end (at the next tick), so the outcome can be lost only if the thread
 * died before a later turn. A line the thread sent after it had read that reply (its `replied`
 * count passed the end's place) comes from a later turn: the outcome was posted by then, and the
 * node had to settle the run. Lines sent while the end's reply was on its way prove nothing.
 */
export function rerunsAfterFinishing(log: RunLog): Array<{ jid: string; runs: Run[] }> {
  const died = deadThreads(log.runs);
  const mayHaveLostOutcome = (run: Run) =>
    died.has(run.thread) &&
    !log.entries.some(
      (entry) =>
        entry.at > run.last &&
        entry.run.thread === run.thread &&
        entry.replied !== undefined &&
        entry.replied > (run.endSeq ?? Infinity),
    );
  const twice: Array<{ jid: string; runs: Run[] }> = [];
  for (const [jid, list] of runsByJid(log.runs)) {
    const earlier = list.slice(0, -1);
    if (earlier.some((run) => run.completed && !mayHaveLostOutcome(run))) twice.push({ jid, runs: list });
  }
  return twice;
}
