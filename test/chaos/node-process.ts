// A nexq node as its own OS process, so a chaos test can kill -9 it. Options come as JSON in
// NEXQ_CHAOS_OPTIONS; it prints "ready <nodeId>" once started and stops on SIGTERM.
import { Nexq } from '../../src/nexq';

async function main(): Promise<void> {
  const options = JSON.parse(process.env.NEXQ_CHAOS_OPTIONS ?? '{}');
  const nexq = await Nexq.start(options);
  process.stdout.write(`ready ${nexq.node.ctx.config.nodeId}\n`);
  process.once('SIGTERM', () => void nexq.stop().then(() => process.exit(0)));
}

main().catch((err: unknown) => {
  process.stderr.write(`node-process failed: ${(err as Error).stack ?? String(err)}\n`);
  process.exit(1);
});
