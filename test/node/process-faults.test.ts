// A node inside an application's process (Nexq.start) does not own the process: it installs no
// handler that would change what the application does with an error nothing handled (Node exits),
// but it says so in its own log, with the stack and what becomes of its running jobs, before the
// process goes. An application that handles such errors itself keeps its process, and the node
// logs the error all the same. The faults are made from outside nexq's code, in real processes.
import { expect } from 'chai';
import path from 'node:path';
import { startFaultProcess, startSlowJob } from '../support/fault-process';
import { useNodes } from '../support/node';
import { fixturesJobs, repoRoot } from '../support/paths';

/** A program that calls Nexq.start with NEXQ_CHAOS_OPTIONS and nothing else (test/chaos/node-process.ts). */
const PROGRAM = path.join(repoRoot, 'dist', 'test', 'chaos', 'node-process.js');

describe('a node in an application: errors nothing in the process handled', function () {
  this.timeout(40_000);
  const t = useNodes();

  function start(fault: 'rejection' | 'exception', env: NodeJS.ProcessEnv = {}) {
    const options = { redis: t.url, namespace: t.ns, jobsDir: fixturesJobs, nodeId: 'app-node', pollTimeout: 20 };
    return startFaultProcess(PROGRAM, [], fault, { NEXQ_CHAOS_OPTIONS: JSON.stringify(options), ...env });
  }

  it("installs no process-wide handler: the application's policy stays as it was", async () => {
    const events = ['unhandledRejection', 'uncaughtException'] as const;
    const before = events.map((e) => process.listenerCount(e));
    const node = await t.start();
    expect(events.map((e) => process.listenerCount(e))).to.deep.equal(before);
    await t.stop(node);
    expect(process.listenerCount('uncaughtExceptionMonitor'), "the node's watch ends with it").to.equal(0);
  });

  it('a rejection nothing handled ends the process as Node does; the log says why and where its jobs are', async () => {
    const node = start('rejection');
    try {
      await node.waitForLog('ready app-node');
      await startSlowJob(t, 'app-node', t.out('never'), 'cut off', 60_000);
      node.fault();
      expect(await node.exited, "Node's own default: exit 1").to.equal(1);
      expect(node.output()).to.include(
        'process fault, a promise rejected with no handler: injected rejection; the process exits now, leaving 1 ' +
          "running job of this node in its backup list: they run again on this node's next start",
      );
      expect(node.output()).to.match(/injected rejection[^\n]*\n\s+at .*inject\.js/);
      const backup = t.keys.backup('app-node', 'default');
      expect(await t.redis.llen(backup), 'the job waits in backup for a restart or the reaper').to.equal(1);
    } finally {
      node.child.kill('SIGKILL');
    }
  });

  it('with the application handling uncaught exceptions itself, the node logs the error and runs on', async () => {
    const node = start('exception', { NEXQ_TEST_APP_HANDLER: '1' });
    try {
      await node.waitForLog('ready app-node');
      node.fault();
      await node.waitForLog('app handler: injected exception');
      expect(node.output()).to.include('process fault, an uncaught exception: injected exception');
      expect(node.output()).not.to.include('the process exits now');
      const producer = await t.start({ mode: 'enqueuer' });
      await producer.enqueue('default', 'Record', [t.url, t.out('after'), 'after the fault']);
      await t.waitForRecords(t.out('after'), 1, 15_000);
      node.child.kill('SIGTERM');
      expect(await node.exited).to.equal(0);
    } finally {
      node.child.kill('SIGKILL');
    }
  });
});
