// Gathers the jobs of `performMany` handlers into chunks on the main thread, before they go to a
// thread (src/pool/thread-channels.ts): one chunk per handler module, work-table row (queue),
// ActiveJob wrapping and claim generation, closed when it holds `size` jobs, or the queue's
// concurrency when that is lower (each job of a chunk holds one of the queue's running slots, so a
// chunk above it could never start), or `waitMs` after its first job came, whichever is first.
// The jobs wait here in the node's backup list, as any job taken; a withdraw or cancel takes them
// out before the chunk closes.
import type { JobTask } from '../../workers/protocol';
import type { ChunkSettings } from '../../workers/chunk-settings';

export type ChunkTask = JobTask & { id: number };

interface Forming {
  tasks: ChunkTask[];
  timer: NodeJS.Timeout;
}

export class ChunkFormer {
  private readonly forming = new Map<string, Forming>();

  /** `concurrencyOf`: a work-table row's concurrency now; `formed`: a closed chunk, to hand to a thread. */
  constructor(
    private readonly concurrencyOf: (row: number | undefined) => number,
    private readonly formed: (tasks: ChunkTask[]) => void,
  ) {}

  /** Adds a job to the chunk forming for its handler and queue; closes that chunk when it is full. */
  add(task: ChunkTask, settings: ChunkSettings): void {
    const key = `${task.file}\0${task.slotsRow ?? ''}\0${task.activeJob ? 1 : 0}\0${task.generation ?? ''}`;
    let forming = this.forming.get(key);
    if (!forming) {
      forming = { tasks: [], timer: setTimeout(() => this.close(key), settings.waitMs) };
      this.forming.set(key, forming);
    }
    forming.tasks.push(task);
    const cap = task.slotsRow === undefined ? settings.size : this.concurrencyOf(task.slotsRow);
    if (forming.tasks.length >= Math.min(settings.size, Math.max(1, cap))) this.close(key);
  }

  /** Takes job `id` out of the chunk it waits in; false when no forming chunk holds it. */
  remove(id: number): boolean {
    for (const [key, forming] of this.forming) {
      const at = forming.tasks.findIndex((task) => task.id === id);
      if (at < 0) continue;
      forming.tasks.splice(at, 1);
      if (forming.tasks.length === 0) this.drop(key);
      return true;
    }
    return false;
  }

  /** Takes out every forming chunk's jobs of work-table `rows` (all when absent); returns their ids. */
  take(rows?: number[]): number[] {
    const ids: number[] = [];
    for (const [key, forming] of [...this.forming]) {
      const row = forming.tasks[0].slotsRow;
      if (rows && (row === undefined || !rows.includes(row))) continue;
      ids.push(...forming.tasks.map((task) => task.id));
      this.drop(key);
    }
    return ids;
  }

  private close(key: string): void {
    const forming = this.forming.get(key);
    if (!forming) return;
    this.drop(key);
    this.formed(forming.tasks);
  }

  private drop(key: string): void {
    const forming = this.forming.get(key);
    if (forming) clearTimeout(forming.timer);
    this.forming.delete(key);
  }
}
