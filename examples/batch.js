// batch.js — three welcome mails as one batch, and a job that runs once all three have (worker.js runs them)
const { Nexq } = require('nexq');

async function main() {
  const nexq = await Nexq.start({ mode: 'enqueuer' }); // Redis at $REDIS_URL, or 127.0.0.1:6379
  const batch = nexq.batch({
    description: 'welcome mails',
    // Runs once every job of the batch has run, with { bid, event } appended to its args.
    onComplete: { queue: 'default', class: 'HardWorker', args: ['the welcome batch', 1] },
  });
  await batch.enqueueAll(
    ['ann@example.com', 'bob@example.com', 'cy@example.com'].map((email, i) => ({
      queue: 'default',
      class: 'WelcomeEmail',
      args: [email, i + 1],
    })),
  );
  const { total, pending } = await batch.status();
  console.log(`batch ${batch.bid}: ${total} jobs, ${pending} pending`);
  await nexq.stop();
}

main().catch((err) => { console.error(err); process.exitCode = 1; });
