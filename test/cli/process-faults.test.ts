// What `nexq start`, which owns its process, does with an error nothing handled: a promise
// rejected with no handler is logged with its stack and the node goes on; an uncaught exception is
// logged, the node stops gracefully (its running job finishes, its process entry goes) and the
// process exits 1. Each fault is made from outside nexq's code, in a real `nexq start` process.
import { expect } from 'chai';
import { CLI } from '../support/cli';
import { startFaultProcess, startSlowJob } from '../support/fault-process';
import { useNodes } from '../support/node';
import { fixturesJobs } from '../support/paths';

describe('nexq start: errors nothing in the process handled', function () {
  this.timeout(40_000);
  const t = useNodes();

  function start(fault: 'rejection' | 'exception') {
    const args = ['start', '--redis', t.url, '--namespace', t.ns, '--jobs', fixturesJobs, '--node-id', 'fault-node'];
    return startFaultProcess(CLI, args, fault, { NEXQ_LOG_LEVEL: 'info', NEXQ_POLL_TIMEOUT: '20' });
  }

  it('logs a promise rejected with no handler, with its stack, and goes on running jobs', async () => {
    const node = start('rejection');
    try {
      await node.waitForLog('node fault-node started');
      node.fault();
      await node.waitForLog('a promise was rejected with no handler (nexq start goes on): injected rejection');
      expect(node.output()).to.match(/injected rejection[^\n]*\n\s+at .*inject\.js/);
      const producer = await t.start({ mode: 'enqueuer' });
      await producer.enqueue('default', 'Record', [t.url, t.out('after'), 'after the fault']);
      await t.waitForRecords(t.out('after'), 1, 15_000);
      expect(node.child.exitCode, 'still running').to.equal(null);
      node.child.kill('SIGTERM');
      expect(await node.exited).to.equal(0);
    } finally {
      node.child.kill('SIGKILL');
    }
  });

  it('on an uncaught exception, logs it, stops gracefully (the running job finishes) and exits 1', async () => {
    const node = start('exception');
    try {
      await node.waitForLog('node fault-node started');
      await startSlowJob(t, 'fault-node', t.out('running'), 'slow', 1500);
      node.fault();
      expect(await node.exited, node.output()).to.equal(1);
      expect(node.output()).to.include('process fault, an uncaught exception: injected exception');
      expect(node.output()).to.match(/injected exception[^\n]*\n\s+at .*inject\.js/);
      expect(node.output()).to.include('stopping after an uncaught exception (injected exception); exit code 1');
      expect(node.output()).to.include('node stopped');
      expect(
        (await t.records(t.out('running'))).map((r) => r.value),
        'the running job finished',
      ).to.deep.equal(['slow']);
      expect(await t.redis.llen(t.keys.backup('fault-node', 'default'))).to.equal(0);
      expect(await t.redis.smembers(t.keys.processes)).to.deep.equal([]);
    } finally {
      node.child.kill('SIGKILL');
    }
  });
});
