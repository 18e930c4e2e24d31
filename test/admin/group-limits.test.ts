// The limits per group a process that does not serve a fair queue judges `limited` by: those the
// live nodes serving it fair carry in their process entries (src/admin/group-limits.ts), as
// `nexq groups` and a producer's groupsOf see them.
import { expect } from 'chai';
import { groupLimitsOf } from '../../config/group-limits';
import { groupsOf } from '../../src/admin/groups';
import { liveGroupLimits, strictest } from '../../src/admin/group-limits';
import { cliAgainst } from '../support/cli';
import { useNodes, waitFor } from '../support/node';

describe('the limits per group of a fair queue, from the live nodes serving it', () => {
  const t = useNodes();
  const { json, ok } = cliAgainst(() => t);

  it('shows a group running at groupConcurrency on a node as limited, in groupsOf and nexq groups', async () => {
    const node = await t.start({
      queues: [{ name: 'default', concurrency: 1, fair: true, groupConcurrency: 1 }],
      shutdownTimeout: 50,
    });
    // A producer's context, as the CLI's: it does not serve the queue fair, so knows no limits of its own.
    const { ctx } = (await t.start({ mode: 'enqueuer' })).node;
    expect(groupLimitsOf(ctx.config, 'default')).to.equal(undefined);
    const job = (group: string) => ({ queue: 'default', class: 'Sleep', args: [10_000], options: { group } });
    // One slot: the first fetch moves both into the groups and starts a's; b's waits for the slot,
    // not for its group's limit.
    await node.enqueueAll([job('a'), job('b')]);
    await waitFor(async () => (await groupsOf(ctx, 'default')).some((g) => g.running === 1), 5000, 'a running');
    const identity = node.node.ctx.identity;
    await waitFor(async () => (await t.redis.hget(t.keys.process(identity), 'busy')) === '1', 5000, 'busy written');
    const expected = [
      { group: 'b', waiting: 1, running: 0, paused: false, started15m: 0, limited: null },
      { group: 'a', waiting: 0, running: 1, paused: false, started15m: 1, limited: 'concurrency' },
    ];
    expect(await groupsOf(ctx, 'default')).to.deep.equal(expected);
    expect(await json(['groups', 'default'])).to.deep.equal(expected);
    expect(await ok(['groups', 'default'])).to.match(
      /^GROUP\s+WAITING\s+RUNNING\s+PAUSED\s+STARTED-15M\s+LIMITED\nb\s+1\s+0\s+-\s+0\s+-\na\s+0\s+1\s+-\s+1\s+concurrency\n$/,
    );
  });

  it('reads the fair queues of the live nexq entries, the strictest of each limit where they differ', async () => {
    const entry = async (identity: string, info: unknown) => {
      await t.redis.sadd(t.keys.processes, identity);
      await t.redis.hset(t.keys.process(identity), 'info', JSON.stringify(info), 'busy', '0');
    };
    const rate = (limit: number, per: number, burst?: number) => ({ limit, per, ...(burst ? { burst } : {}) });
    expect(await liveGroupLimits(t, 'default')).to.equal(undefined);
    // A Sidekiq process, and a nexq node serving the queue but not fair: nothing known.
    await entry('sidekiq:1', { queues: ['default'] });
    await entry('plain:1', { queues: ['default'], labels: ['nexq'] });
    expect(await liveGroupLimits(t, 'default')).to.equal(undefined);
    await entry('fair:1', { queues: ['default'], fair: { default: {} } });
    expect(await liveGroupLimits(t, 'default')).to.deep.equal({});
    await entry('fair:2', { fair: { default: { groupConcurrency: 3, groupRateLimit: rate(10, 60) } } });
    await entry('fair:3', { fair: { default: { groupConcurrency: 2, groupRateLimit: rate(5, 60) }, other: {} } });
    // Written wrong (another version, a hand): left out.
    await entry('odd:1', { fair: { default: { groupConcurrency: 0, groupRateLimit: { limit: 'x' } } } });
    expect(await liveGroupLimits(t, 'default')).to.deep.equal({ groupConcurrency: 2, groupRateLimit: rate(5, 60) });
    // An expired entry (its hash gone, its member left) is not live.
    await t.redis.del(t.keys.process('fair:3'));
    expect(await liveGroupLimits(t, 'default')).to.deep.equal({ groupConcurrency: 3, groupRateLimit: rate(10, 60) });
    expect(await liveGroupLimits(t, 'elsewhere')).to.equal(undefined);
  });

  it('takes the lowest groupConcurrency and the slowest groupRateLimit, the smaller burst of two alike', () => {
    expect(strictest([])).to.deep.equal({});
    expect(
      strictest([
        { groupConcurrency: 4 },
        { groupRateLimit: { limit: 2, per: 1 } },
        { groupConcurrency: 2, groupRateLimit: { limit: 60, per: 60, burst: 5 } },
        { groupRateLimit: { limit: 60, per: 60, burst: 3 } },
      ]),
    ).to.deep.equal({ groupConcurrency: 2, groupRateLimit: { limit: 60, per: 60, burst: 3 } });
    expect(
      strictest([{ groupRateLimit: { limit: 1, per: 1, burst: 1 } }, { groupRateLimit: { limit: 1, per: 1 } }]),
    ).to.deep.equal({ groupRateLimit: { limit: 1, per: 1 } });
  });
});
