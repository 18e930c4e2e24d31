// A job a foreign producer (Sidekiq's client, Exq, redis-cli) LPUSHes into an idle queue starts
// without a poll: the idle check armed the queue's key with Redis' key tracking
// (src/fetch/push-tracking.ts), and the write's invalidation reaches the wake subscriber. The
// polls are an hour apart in these tests, so only the invalidation can start a job.
import { expect } from 'chai';
import { sleep, useNodes, waitFor } from '../support/node';

const NO_POLLS = { pollTimeout: 3_600_000, idlePollInterval: 3_600_000 };
/** Two queues: a node of one waits for it with its fetch sent ahead instead (test/fetch/waiting-fetch.test.ts). */
const A_AND_SPARE = ['a', 'spare'];

describe('a foreign push into an idle queue', () => {
  const t = useNodes();

  /** A job as Sidekiq's client writes it: no wake signal, straight into the list. */
  async function foreignPush(queue: string, value: unknown, jid: string): Promise<void> {
    const job = { class: 'Record', args: [t.url, t.out('foreign'), value], jid, queue, retry: true };
    await t.redis.lpush(t.keys.queue(queue), JSON.stringify({ ...job, enqueued_at: Date.now() / 1000 }));
  }

  /** Until the node tracks `count` keys for the idle queues (CLIENT TRACKINGINFO is per connection). */
  async function armed(): Promise<void> {
    await waitFor(
      async () => {
        const clients = (await t.redis.client('LIST')) as string;
        return clients.split('\n').some((line) => /flags=\S*t/.test(line));
      },
      5000,
      'a tracking connection',
    );
    await sleep(300); // the first fetches found the queues empty and the checks armed them
  }

  /** The node's connection ids, by what they last ran. */
  async function connection(cmd: RegExp): Promise<string> {
    const clients = (await t.redis.client('LIST')) as string;
    const line = clients.split('\n').find((l) => cmd.test(l));
    expect(line, `a connection whose last command matches ${cmd}`).to.be.a('string');
    return line!.match(/^id=(\d+)/)![1];
  }

  it('starts each of several jobs pushed one after another, and into another queue: each wake re-arms the queue', async () => {
    await t.start({ ...NO_POLLS, queues: ['a', 'b'] });
    await armed();
    for (let n = 1; n <= 3; n++) {
      await foreignPush('b', n, `b${n}`);
      await t.waitForRecords(t.out('foreign'), n);
      await sleep(200); // idle again, and armed again
    }
    await foreignPush('a', 4, 'a4');
    const records = await t.waitForRecords(t.out('foreign'), 4);
    expect(records.map((r) => r.jid)).to.deep.equal(['b1', 'b2', 'b3', 'a4']);
  });

  it('still hears foreign pushes after its wake subscriber connection is killed (tracking goes to the new one)', async () => {
    await t.start({ ...NO_POLLS, queues: A_AND_SPARE });
    await armed();
    await t.redis.client('KILL', 'ID', await connection(/ cmd=subscribe( |$)/));
    await sleep(1000); // reconnected, subscribed, tracking redirected, the queue armed again
    await foreignPush('a', 1, 'after-sub-kill');
    const [ran] = await t.waitForRecords(t.out('foreign'), 1);
    expect(ran).to.include({ jid: 'after-sub-kill' });
  });

  it('still hears foreign pushes after its main connection is killed (Redis forgot its tracking)', async () => {
    await t.start({ ...NO_POLLS, queues: A_AND_SPARE });
    await armed();
    const clients = (await t.redis.client('LIST')) as string;
    const tracking = clients.split('\n').find((line) => /flags=\S*t/.test(line));
    await t.redis.client('KILL', 'ID', tracking!.match(/^id=(\d+)/)![1]);
    await sleep(1000);
    await foreignPush('a', 1, 'after-main-kill');
    const [ran] = await t.waitForRecords(t.out('foreign'), 1);
    expect(ran).to.include({ jid: 'after-main-kill' });
  });

  it('starts what was pushed while the queue was being armed, and a FLUSHALL leaves it listening', async () => {
    await t.start({ ...NO_POLLS, queues: A_AND_SPARE });
    await armed();
    await t.redis.flushall();
    await sleep(300);
    await foreignPush('a', 1, 'after-flush');
    const [ran] = await t.waitForRecords(t.out('foreign'), 1);
    expect(ran).to.include({ jid: 'after-flush' });
  });
});
