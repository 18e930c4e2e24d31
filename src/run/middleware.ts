// The pipeline around each job: `before` hooks in order, then the handler, then `afterSuccess` or
// `afterFailure` hooks in reverse order (the outermost middleware sees the job first and last).
// Stats and logging are built-in middleware; users add their own through the `middleware` option.
import type { JobPayload } from '../job/job';
import type { JobError } from '../job/failure';

export interface JobEvent {
  jid: string;
  queue: string;
  className: string;
  job: JobPayload;
  raw: string;
  /** Epoch ms when the handler was started. */
  startedAt: number;
}

export interface Middleware {
  name: string;
  before?(event: JobEvent): void | Promise<void>;
  afterSuccess?(event: JobEvent): void | Promise<void>;
  afterFailure?(event: JobEvent, error: JobError): void | Promise<void>;
}

export class MiddlewarePipeline {
  private readonly reversed: Middleware[];

  constructor(private readonly chain: Middleware[]) {
    this.reversed = [...chain].reverse();
  }

  // A hook that returns nothing (the built-in ones) is not awaited: each await is a turn of the
  // microtask queue per job.
  async before(event: JobEvent): Promise<void> {
    for (const m of this.chain) {
      const pending = m.before?.(event);
      if (pending) await pending;
    }
  }

  async afterSuccess(event: JobEvent): Promise<void> {
    for (const m of this.reversed) {
      const pending = m.afterSuccess?.(event);
      if (pending) await pending;
    }
  }

  async afterFailure(event: JobEvent, error: JobError): Promise<void> {
    for (const m of this.reversed) if (m.afterFailure) await m.afterFailure(event, error);
  }
}
