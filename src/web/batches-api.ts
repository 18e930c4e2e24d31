// The dashboard API's batches (src/admin/batch-status.ts): GET /api/batches lists the newest first
// with their counts, GET /api/batches/<bid> is one batch with the jids of its failed members.
import { batchStatus, BatchStatus, listBatches } from '../admin/batch-status';
import { isoOf } from '../admin/job-view';
import { ApiError, count, Route } from './api-params';

/** A batch as JSON: its times as ISO strings, null until they happen. */
function batchView({ failures, ...status }: BatchStatus, withFailures: boolean) {
  return {
    ...status,
    parent: status.parent ?? null,
    createdAt: isoOf(status.createdAt),
    completeAt: isoOf(status.completeAt),
    successAt: isoOf(status.successAt),
    deathAt: isoOf(status.deathAt),
    // A list leaves the jids out: a big batch may have thousands.
    ...(withFailures ? { failures } : {}),
  };
}

export const BATCH_ROUTES: Route[] = [
  {
    method: 'GET',
    path: /^\/batches$/,
    handler: async (ctx, _, query) =>
      (await listBatches(ctx, count(query, 'limit', 50, 1000))).map((s) => batchView(s, false)),
  },
  {
    method: 'GET',
    path: /^\/batches\/([^/]+)$/,
    handler: async (ctx, [bid]) => {
      const status = await batchStatus(ctx, bid);
      if (!status) throw new ApiError(404, `no batch ${bid} (it expired, or was never created)`);
      return batchView(status, true);
    },
  },
];
