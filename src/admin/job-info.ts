// Everything about one job wherever it is, in one shape for `Nexq#show`, `nexq show --json` and the
// dashboard: where it is (state, queue, node, score) with its counters and its decoded payload.
import { readBacktrace } from '../job/failure';
import { jsonObject } from '../job/json-object';
import type { JobLocation } from '../redis/job-index';
import type { Found } from './find';
import { envelopeOf, KeyRing, readableArgs } from '../job/encryption';

export interface JobInfo extends JobLocation {
  jid: string;
  /** The queue whose index (and, per-queue key layout, whose sets) holds it; '' in the shared layout. */
  home: string;
  /**
   * The job's fields as stored (undefined when it is not valid JSON); encrypted args opened when
   * the key is at hand, the string "encrypted" otherwise (`raw` keeps the envelope).
   */
  job?: Record<string, unknown>;
  /** The job exactly as stored. */
  raw: string;
  /** Times it was handed to a handler, re-runs after a crash included (0 when it is not indexed). */
  deliveries: number;
  /** Times its handler asked for it to be requeued. */
  nacks: number;
  /** Sidekiq's retry_count: failures so far (absent before the first). */
  retryCount?: number;
  /** The stack of its last failure, as kept in `error_backtrace` (see the `backtrace` options). */
  errorBacktrace?: string[];
  /** A running job's latest `this.progress(value)` (this node's now; another node's as of its last beat). */
  progress?: unknown;
}

type Located = JobLocation & { jid: string; home: string; raw: string; deliveries: number };

/** The JobInfo of a job where it was located; `ring` opens encrypted args. */
export function jobInfo(at: Located, ring?: KeyRing): JobInfo {
  const job = openedFields(jsonObject(at.raw), ring);
  const nacks = job?.nacks;
  const retryCount = job?.retry_count;
  const { jid, home, raw, deliveries, state, queue, node, score } = at;
  return {
    jid,
    state,
    ...(queue !== undefined ? { queue } : {}),
    ...(node !== undefined ? { node } : {}),
    ...(score !== undefined ? { score } : {}),
    home,
    job,
    raw,
    deliveries,
    nacks: Number.isInteger(nacks) ? (nacks as number) : 0,
    retryCount: Number.isInteger(retryCount) ? (retryCount as number) : undefined,
    errorBacktrace: readBacktrace(job?.error_backtrace),
  };
}

/** The job's fields with its encrypted args as a reader sees them (src/job/encryption.ts's readableArgs). */
export function openedFields(
  job: Record<string, unknown> | undefined,
  ring?: KeyRing,
): Record<string, unknown> | undefined {
  if (!job || !envelopeOf(job.args)) return job;
  const named = (v: unknown) => (typeof v === 'string' ? v : '');
  return { ...job, args: readableArgs({ args: job.args, class: named(job.class), jid: named(job.jid) }, ring) };
}

/**
 * The JobInfo of a job `findJob` found (through the index, or by scanning); `perQueue` says whether
 * each queue has its own index (the per-queue key layout).
 */
export function foundJobInfo(jid: string, f: Found, perQueue: boolean, ring?: KeyRing): JobInfo {
  const inQueue = f.where === 'queue' || f.where === 'running';
  return jobInfo(
    {
      jid,
      state: f.where === 'queue' ? 'queued' : f.where,
      queue: inQueue ? f.queue : undefined,
      node: f.node,
      score: f.score,
      home: perQueue ? (f.queue ?? '') : '',
      raw: f.raw,
      deliveries: f.deliveries ?? 0,
    },
    ring,
  );
}
