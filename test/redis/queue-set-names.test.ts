// In the per-queue key layout a queue's keys carry its name as their hash tag, so a braced name
// cannot have keys. Such a name is refused before it joins the queue set (the dashboard answers
// 400), and one already there (written before nexq refused them) is skipped by every reader: it
// once stopped every node's scheduler, for every queue, and failed the dashboard's job lookups.
import { expect } from 'chai';
import { pauseQueue } from '../../src/admin/pause';
import { KeyLayoutError, Keys } from '../../src/redis/keys';
import { useNodes, waitFor } from '../support/node';
import { call } from '../web/support';

describe('queue names the per-queue key layout cannot hold', () => {
  const t = useNodes();
  const perQueue = () => new Keys(t.ns, 'per-queue');

  it('never join the queue set: the dashboard answers 400, pauseQueue refuses', async () => {
    const nexq = await t.start({ keyLayout: 'per-queue', web: { port: 0 } });
    for (const action of ['pause', 'resume', 'clear']) {
      const answer = await call(nexq.node.web!.url, `/api/queues/%7Bx%7D/${action}`, { method: 'POST', action: true });
      expect(answer.status, action).to.equal(400);
      expect(answer.body.error).to.include('per-queue key layout');
    }
    expect((await call(nexq.node.web!.url, '/api/queues/%7Bx%7D')).status).to.equal(400);
    let refused: unknown;
    await pauseQueue(nexq.node.ctx, 'a}b').catch((err: unknown) => (refused = err));
    expect(refused).to.be.instanceOf(KeyLayoutError);
    const braced = (await t.redis.smembers(perQueue().queues)).filter((q) => /[{}]/.test(q));
    expect(braced).to.deep.equal([]);
  });

  it('already in the set, stop neither the scheduler nor a job lookup', async () => {
    await t.redis.sadd(perQueue().queues, '{x}');
    const nexq = await t.start({ keyLayout: 'per-queue', web: { port: 0 } });
    const out = t.out('due');
    const jid = await nexq.enqueueIn('default', 1, 'Record', [t.url, out, 'due']);
    await t.waitForRecords(out, 1, 10_000);
    const lookup = await waitFor(async () => {
      const answer = await call(nexq.node.web!.url, `/api/jobs/${jid}`);
      return answer.status !== 200 && answer;
    });
    expect(lookup.status, 'the job ran: not found, not a server error').to.equal(404);
  });
});
