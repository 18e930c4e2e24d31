// worker.js — a node: runs the jobs of ./jobs from the queues default and mail until Ctrl-C
const path = require('node:path');
const { Nexq } = require('nexq');

async function main() {
  const nexq = await Nexq.start({
    queues: ['default', { name: 'mail', concurrency: 5 }],
    jobsDir: path.join(__dirname, 'jobs'),
  });
  // Graceful: stop fetching, let the running jobs finish (up to shutdownTimeout), then exit.
  process.once('SIGINT', () => nexq.stop());
  process.once('SIGTERM', () => nexq.stop());
}

main().catch((err) => { console.error(err); process.exitCode = 1; });
