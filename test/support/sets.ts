// Reading the sorted sets a failed job lands in (retry, dead), for tests of the settle path.
import { expect } from 'chai';
import { NodeTest, waitFor } from './node';

/** Waits for the only entry of a sorted set; returns its text, decoded form and score. */
export async function onlyEntry(t: NodeTest, key: string): Promise<{ raw: string; job: any; score: number }> {
  const [raw, score] = await waitFor(
    async () => {
      const found = await t.redis.zrange(key, 0, -1, 'WITHSCORES');
      return found.length ? found : undefined;
    },
    5000,
    `an entry in ${key}`,
  );
  expect(await t.redis.zcard(key)).to.equal(1);
  return { raw, job: JSON.parse(raw), score: Number(score) };
}
