// enqueueAll of a long list: written 5,000 jobs per script call, in order. 100,000 jobs in one call
// overflowed the stack of the call that sends its arguments (RangeError) and would have held Redis
// for half a second.
import { expect } from 'chai';
import type { Nexq } from '../../src/nexq';
import { PartialEnqueueError, QueueFullError } from '../../src/redis/enqueue-scripts';
import { useNodes } from '../support/node';

describe('enqueueAll of many jobs', () => {
  const t = useNodes();
  let producer: Nexq;

  beforeEach(async () => {
    producer = await t.start({ mode: 'enqueuer' });
  });

  it('writes 30,000 jobs in order, each indexed', async () => {
    const jobs = Array.from({ length: 30_000 }, (_, i) => ({ queue: 'bulk', class: 'Noop', args: [i] }));
    const jids = await producer.enqueueAll(jobs);
    expect(new Set(jids).size).to.equal(30_000);
    // Pushed on the left: the first job is the next to run, at the right end.
    const list = await t.redis.lrange(t.keys.queue('bulk'), 0, -1);
    expect(list.map((raw) => JSON.parse(raw).args[0])).to.deep.equal(jobs.map((_, i) => 29_999 - i));
    expect(await t.redis.hlen(t.keys.jobIndex('bulk'))).to.equal(30_000);
  });

  it('says which jobs were written when a later call is refused', async () => {
    const jobs = Array.from({ length: 12_000 }, (_, i) => ({
      queue: 'capped',
      class: 'Noop',
      args: [i],
      options: { maxlen: 7_000 },
    }));
    const refused = await producer.enqueueAll(jobs).then(
      () => null,
      (err: unknown) => err,
    );
    expect(refused).to.be.instanceOf(PartialEnqueueError);
    const { written, cause } = refused as PartialEnqueueError;
    expect(cause).to.be.instanceOf(QueueFullError);
    expect(written).to.have.length(12_000);
    expect(written.filter(Boolean)).to.have.length(5_000);
    expect(written.slice(0, 5_000).every(Boolean)).to.equal(true);
    expect(await t.redis.llen(t.keys.queue('capped'))).to.equal(5_000);
  });

  it('writes nothing when the first call is refused', async () => {
    const jobs = Array.from({ length: 6_000 }, (_, i) => ({
      queue: 'tiny',
      class: 'Noop',
      args: [i],
      options: { maxlen: 10 },
    }));
    const refused = await producer.enqueueAll(jobs).then(
      () => null,
      (err: unknown) => err,
    );
    expect(refused).to.be.instanceOf(QueueFullError);
    expect(await t.redis.llen(t.keys.queue('tiny'))).to.equal(0);
  });
});
