// The stored form of the per-class metrics: run-time buckets, percentiles estimated from them, and
// a write read back over several minutes (in the key layout under test).
import { expect } from 'chai';
import {
  addClassMetrics,
  BUCKETS_MS,
  bucketOf,
  ClassSample,
  emptySample,
  minuteOf,
  percentileMs,
  readClassMetrics,
} from '../../src/redis/class-metrics';
import { useNodes } from '../support/node';

function sampleOf(runsMs: number[], failed = 0): ClassSample {
  const s = emptySample();
  for (const ms of runsMs) {
    s.processed++;
    s.ms += ms;
    s.buckets[bucketOf(ms)]++;
  }
  s.failed = failed;
  return s;
}

describe('per-class metrics in Redis', () => {
  const t = useNodes();

  it('puts a run in the first bucket whose bound holds it, the longest past the last bound', () => {
    expect(bucketOf(0)).to.equal(0);
    expect(bucketOf(5)).to.equal(0);
    expect(bucketOf(6)).to.equal(1);
    expect(bucketOf(1000)).to.equal(BUCKETS_MS.indexOf(1000));
    expect(bucketOf(10 * 60_000)).to.equal(BUCKETS_MS.length);
  });

  it('estimates p50 and p95 inside the bucket that holds them', () => {
    // 90 runs of ~20 ms (bucket 10-25), 10 of ~2 s (bucket 1000-2500).
    const s = sampleOf([...new Array<number>(90).fill(20), ...new Array<number>(10).fill(2000)]);
    const p50 = percentileMs(s.buckets, 0.5)!;
    const p95 = percentileMs(s.buckets, 0.95)!;
    expect(p50).to.be.within(10, 25);
    expect(p95).to.be.within(1000, 2500);
    expect(percentileMs(emptySample().buckets, 0.5)).to.equal(undefined);
    expect(percentileMs(sampleOf([20 * 60_000]).buckets, 0.5)).to.equal(BUCKETS_MS[BUCKETS_MS.length - 1]);
  });

  it('reads back what flushes wrote, per class and minute, oldest minute first', async () => {
    const now = Math.floor(Date.now() / 1000);
    const write = async (at: number, samples: Map<string, ClassSample>) => {
      const tx = t.redis.multi();
      addClassMetrics(tx, t.keys, minuteOf(at), samples);
      await tx.exec();
    };
    await write(now - 120, new Map([['Mail::Send', sampleOf([30, 40], 1)]]));
    await write(now, new Map([['Mail::Send', sampleOf([300])]]));
    await write(
      now,
      new Map([
        ['Mail::Send', sampleOf([300])],
        ['a|b', sampleOf([1])],
      ]),
    );
    const read = await readClassMetrics(t.redis, t.keys, 3, now);
    expect(read.minutes).to.deep.equal([minuteOf(now - 120), minuteOf(now - 60), minuteOf(now)]);
    const mail = read.classes.get('Mail::Send')!;
    expect(mail.map((s) => s.processed)).to.deep.equal([2, 0, 2]);
    expect(mail.map((s) => s.failed)).to.deep.equal([1, 0, 0]);
    expect(mail[0].ms).to.equal(70);
    expect(mail[2].buckets[bucketOf(300)]).to.equal(2);
    // A class name holding the separator reads back whole.
    expect(read.classes.get('a|b')![2].processed).to.equal(1);
    expect(await t.redis.ttl(t.keys.classMetrics(minuteOf(now)))).to.be.greaterThan(0);
  });
});
