// `nexq groups <queue>` and Nexq#groups: a fair queue's groups, waiting and running.
import { expect } from 'chai';
import { useNodes, waitFor } from '../support/node';
import { cliAgainst } from '../support/cli';

describe("a fair queue's groups, as nexq groups shows them", () => {
  const t = useNodes();
  const { json, ok } = cliAgainst(() => t);

  it('lists each group with its jobs waiting and running on all nodes, most waiting first', async () => {
    const enqueuer = await t.start({ mode: 'enqueuer' });
    const job = (group: string | undefined) => ({
      queue: 'default',
      class: 'Sleep',
      args: [10_000],
      options: group === undefined ? {} : { group },
    });
    await enqueuer.enqueueAll([...Array.from({ length: 5 }, () => job('acme')), job('globex'), job(undefined)]);
    const node = await t.start({
      queues: [{ name: 'default', concurrency: 2, fair: true, groupConcurrency: 1 }],
      shutdownTimeout: 50,
    });
    // Two slots, one job per group at a time: acme and globex run, the default group waits behind them.
    await waitFor(
      async () => (await node.groups('default')).reduce((n, g) => n + g.running, 0) === 2,
      5000,
      'two running',
    );
    expect(await node.groups('default')).to.deep.equal([
      { group: 'acme', waiting: 4, running: 1 },
      { group: '', waiting: 1, running: 0 },
      { group: 'globex', waiting: 0, running: 1 },
    ]);
    expect(await json(['groups', 'default'])).to.deep.equal(await node.groups('default'));
    expect(await ok(['groups', 'default'])).to.match(/^GROUP\s+WAITING\s+RUNNING\nacme\s+4\s+1\n\(default\)\s+1\s+0\n/);
  });
});
