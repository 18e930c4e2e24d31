// The process entry's `info.fair`: the limits per group of the fair queues a node serves now, for
// the processes that have no config to know them (`nexq groups`).
import { expect } from 'chai';
import type { Heartbeat } from '../../src/actors/heartbeat';
import { ActorNames } from '../../src/run/node-context';
import { useNodes } from '../support/node';

describe("the heartbeat's process entry", () => {
  const t = useNodes();

  it('carries the limits per group of the fair queues the node serves, as subscribed now', async () => {
    const groupRateLimit = { limit: 5, per: 60 };
    const node = await t.start({
      queues: [
        { name: 'default', concurrency: 2, fair: true, groupConcurrency: 1, groupRateLimit },
        { name: 'open', concurrency: 1, fair: true },
        'plain',
      ],
    });
    const heartbeat = node.node.ctx.registry.whereis<Heartbeat>(ActorNames.heartbeat)!;
    const written = async () => {
      await heartbeat.beat();
      return JSON.parse((await t.redis.hget(t.keys.process(node.node.ctx.identity), 'info'))!);
    };
    const both = { default: { groupConcurrency: 1, groupRateLimit }, open: {} };
    expect((await written()).fair).to.deep.equal(both);
    // Left at run time: no longer said; subscribed again: its configured options again.
    await node.unsubscribe('default');
    expect((await written()).fair).to.deep.equal({ open: {} });
    await node.unsubscribe('open');
    expect(await written()).not.to.have.property('fair');
    await node.subscribe('default');
    await node.subscribe('open', 3);
    await node.subscribe('extra');
    const info = await written();
    expect(info.fair).to.deep.equal(both);
    expect(info.queues).to.have.members(['plain', 'default', 'open', 'extra']);
  });
});
