// One soak node as its own OS process, so its RSS is its own: a plain nexq node serving the soak's
// queue, counting on its main thread (middleware) which jobs succeeded and which runs failed,
// and reporting them to the parent every PROGRESS_MS. Stops gracefully when the parent says so.
import path from 'node:path';
import { Nexq } from '../../src/nexq';
import type { Middleware } from '../../src/run/middleware';
import { SoakNodeConfig, SoakNodeMessage, SoakParentMessage } from './protocol';

const PROGRESS_MS = 250;

const config = JSON.parse(process.env.NEXQ_SOAK_NODE ?? '{}') as SoakNodeConfig;
const send = (msg: SoakNodeMessage) => process.send?.(msg);

let succeeded: number[] = [];
let failed: number[] = [];

function report(): void {
  send({ type: 'progress', succeeded, failed, memory: process.memoryUsage() });
  succeeded = [];
  failed = [];
}

const counter: Middleware = {
  name: 'soak-counter',
  afterSuccess: (event) => {
    succeeded.push(event.job.args[0] as number);
  },
  afterFailure: (event) => {
    failed.push(event.job.args[0] as number);
  },
};

async function main(): Promise<void> {
  const nexq = await Nexq.start({
    redis: config.redisUrl,
    namespace: config.namespace,
    queues: [{ name: config.queue, concurrency: config.concurrency }],
    jobsDir: path.join(__dirname, 'jobs'),
    logLevel: 'warn',
    middleware: [counter],
  });
  send({ type: 'ready', nodeId: nexq.node.ctx.config.nodeId });
  const progress = setInterval(report, PROGRESS_MS);
  process.on('message', (msg: Partial<SoakParentMessage> | undefined) => {
    if (msg?.type !== 'stop') return;
    clearInterval(progress);
    nexq.stop().then(
      () => {
        report();
        send({ type: 'stopped' });
        process.disconnect();
      },
      (err: unknown) => {
        process.stderr.write(`soak node: stop failed: ${(err as Error).message}\n`);
        process.exit(1);
      },
    );
  });
}

// The soak went away without stopping this node: do not outlive it.
process.on('disconnect', () => setTimeout(() => process.exit(0), 100).unref());

main().catch((err: unknown) => {
  send({ type: 'error', message: (err as Error).stack ?? String(err) });
  process.exit(1);
});
