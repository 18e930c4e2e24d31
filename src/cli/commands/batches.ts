// `nexq batches [bid]`: the newest batches with their counts, or one batch with its failures.
import { batchStatus, BatchStatus, listBatches } from '../../admin/batch-status';
import { BatchNotFoundError } from '../../redis/errors';
import { isoOfSeconds } from '../../job/time';
import { clip, Command, CONNECTION_HELP, positionals, printJson, printTable, wholeNumber, withNexq } from './common';

const at = (seconds: number | undefined) => isoOfSeconds(seconds) ?? '-';

export const batchesCommand: Command = {
  summary: 'batches: total, pending, failed, dead, and when they completed',
  flags: ['limit'],
  help: `Usage: nexq batches [bid] [options]

Lists the newest batches (--limit, default 50) with their jobs: total, pending (not succeeded yet),
failed (failed and not succeeded since), dead, and when each completed and succeeded. With a bid,
that batch alone, with the jids of its failures. Batch data expires 30 days after its last step.

Options:
  --limit N                   how many batches to list (default 50)
${CONNECTION_HELP}`,
  async run(args, out) {
    const given = positionals(args, 'batches', ['bid'], 1);
    const bid = given.length > 0 ? given[0] : undefined;
    const limit = wholeNumber(args, 'limit', 50);
    const found: BatchStatus[] = await withNexq(args, async (s) => {
      if (bid === undefined) return listBatches(s, limit);
      const one = await batchStatus(s, bid);
      if (!one) throw new BatchNotFoundError(`no batch ${JSON.stringify(bid)} (it expired, or the bid is wrong)`);
      return [one];
    });
    if (out.json) printJson(out, bid === undefined ? found : found[0]);
    else {
      printTable(
        out,
        ['BID', 'DESCRIPTION', 'TOTAL', 'PENDING', 'FAILED', 'DEAD', 'COMPLETE', 'SUCCESS'],
        found.map((b) => [
          b.bid,
          clip(b.description, 30) || '-',
          b.total,
          b.pending,
          b.failed,
          b.dead,
          at(b.completeAt),
          at(b.successAt),
        ]),
      );
      if (bid !== undefined && found[0].failures.length > 0) out.write(`failures: ${found[0].failures.join(' ')}\n`);
    }
    return 0;
  },
};
