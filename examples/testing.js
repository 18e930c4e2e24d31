// testing.js — nexq/testing: the jobs of ./jobs enqueued and run in this process, without Redis
const path = require('node:path');
const { createTestNexq } = require('nexq/testing');

async function main() {
  const nexq = createTestNexq({ mode: 'fake', jobsDir: path.join(__dirname, 'jobs') });   // or mode: 'inline'
  await nexq.enqueue('mail', 'WelcomeEmail', ['ann@example.com']);    // same signature as Nexq
  nexq.assertEnqueued({ queue: 'mail', class: 'WelcomeEmail', args: ['ann@example.com'] });
  await nexq.drain();                                                 // runs it, in this process

  await nexq.enqueue('default', 'SignUp', [7, 'bo@example.com']);
  console.log(`ran ${await nexq.drain()} jobs`);                      // SignUp, then the WelcomeEmail it enqueued
}

main().catch((err) => { console.error(err); process.exitCode = 1; });
