// `this.batch` in a handler whose job belongs to a batch: adds jobs to that batch. A thread never
// touches Redis, so each call posts its jobs to the main thread (ENQUEUE, with a port of its own
// for the answer) and the node enqueues them there. Await it before `perform` returns: the job,
// pending in its batch until it settles, is what keeps the batch from completing meanwhile.
import { MessageChannel, type Transferable } from 'node:worker_threads';
import { ENQUEUE, EnqueueReply } from './protocol';

/** A job for `this.batch.enqueueAll`: as for `nexq.enqueueAll`. */
export interface BatchJobRequest {
  queue: string;
  class: string;
  args: unknown[];
  at?: Date;
  in?: number;
  options?: Record<string, unknown>;
}

export interface JobBatch {
  /** The batch's id (the job's `bid`). */
  bid: string;
  enqueue(queue: string, className: string, args?: unknown[], options?: Record<string, unknown>): Promise<string>;
  enqueueAll(jobs: BatchJobRequest[]): Promise<string[]>;
}

/** Posts a message to the main thread; absent where handlers run in-process (nexq/testing). */
export type PostToMain = (message: unknown, transfer: Transferable[]) => void;

export function jobBatch(bid: string, post: PostToMain | undefined): JobBatch {
  const enqueueAll = (jobs: BatchJobRequest[]): Promise<string[]> => {
    if (!post) return Promise.reject(new Error('this.batch can add jobs only on a node (not in nexq/testing)'));
    const { port1, port2 } = new MessageChannel();
    return new Promise<string[]>((resolve, reject) => {
      port1.once('message', (reply: EnqueueReply) => {
        port1.close();
        if (reply.ok) resolve(reply.jids);
        else reject(Object.assign(new Error(reply.error.message), { name: reply.error.class }));
      });
      post({ type: ENQUEUE, bid, jobs, port: port2 }, [port2]);
    });
  };
  return {
    bid,
    enqueueAll,
    async enqueue(queue, className, args = [], options) {
      const [jid] = await enqueueAll([{ queue, class: className, args, options }]);
      return jid;
    },
  };
}
