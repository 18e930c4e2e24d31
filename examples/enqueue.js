// enqueue.js — a producer only (mode: 'enqueuer'): it writes jobs for the nodes and runs none
const { Nexq } = require('nexq');

async function main() {
  const nexq = await Nexq.start({ mode: 'enqueuer' }); // Redis at $REDIS_URL, or 127.0.0.1:6379
  const jid = await nexq.enqueue('default', 'HardWorker', ['bob', 5]);
  await nexq.enqueueIn('default', 60, 'HardWorker', ['later', 1]);
  console.log(`enqueued ${jid}`);
  await nexq.stop();
}

main().catch((err) => { console.error(err); process.exitCode = 1; });
