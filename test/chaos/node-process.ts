// A nexq node as its own OS process, so a chaos test can kill -9 it. Options come as JSON in
// NEXQ_CHAOS_OPTIONS; it prints "ready <nodeId>" once started and stops on SIGTERM. Each line on
// its stdin is a job to enqueue through this node, JSON `{ queue, class, args, in?, options? }`
// (`in`: enqueueIn seconds), answered with "enqueued <jid>" (the clock-skew test enqueues with the
// node's own clock this way).
import { createInterface } from 'node:readline';
import { Nexq } from '../../src/nexq';

async function main(): Promise<void> {
  const options = JSON.parse(process.env.NEXQ_CHAOS_OPTIONS ?? '{}');
  const nexq = await Nexq.start(options);
  process.stdout.write(`ready ${nexq.node.ctx.config.nodeId}\n`);
  process.once('SIGTERM', () => {
    nexq.stop().then(
      () => process.exit(0),
      (err: unknown) => {
        process.stderr.write(`node-process: stop failed: ${(err as Error).message}\n`);
        process.exit(1);
      },
    );
  });
  createInterface({ input: process.stdin }).on('line', (line) => {
    const job = JSON.parse(line) as { queue: string; class: string; args: unknown[]; in?: number; options?: object };
    const enqueued =
      job.in === undefined
        ? nexq.enqueue(job.queue, job.class, job.args, job.options)
        : nexq.enqueueIn(job.queue, job.in, job.class, job.args, job.options);
    enqueued.then(
      (jid) => process.stdout.write(`enqueued ${jid}\n`),
      (err: unknown) => process.stdout.write(`enqueue failed ${(err as Error).message}\n`),
    );
  });
}

main().catch((err: unknown) => {
  process.stderr.write(`node-process failed: ${(err as Error).stack ?? String(err)}\n`);
  process.exit(1);
});
