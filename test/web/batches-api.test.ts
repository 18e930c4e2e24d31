// GET /api/batches and /api/batches/<bid>: the newest batches with their counts, and one batch
// with the jids of its failed members. In both key layouts (NEXQ_TEST_KEY_LAYOUT=per-queue).
import { expect } from 'chai';
import { useNodes, waitFor } from '../support/node';
import { call, startWebNode } from './support';

describe('dashboard API: batches', () => {
  const t = useNodes();

  it('lists the newest batches with their counts, and shows one batch with its failures', async () => {
    const { nexq, url } = await startWebNode(t);
    expect((await call(url, '/api/batches')).body).to.deep.equal([]);
    const older = nexq.batch({ description: 'older' });
    await older.enqueue('default', 'Record', [t.url, t.out('jobs'), 1]);
    const batch = nexq.batch({ description: 'one dies' });
    const [ok, dies] = await batch.enqueueAll([
      { queue: 'default', class: 'Record', args: [t.url, t.out('jobs'), 2] },
      { queue: 'default', class: 'Fail', args: [], options: { retry: false } },
    ]);
    await waitFor(async () => (await batch.status())?.dead === 1, 15_000, 'the failing job to die');
    await waitFor(async () => (await batch.status())?.pending === 1, 15_000, 'the other job to succeed');

    const list = (await call(url, '/api/batches')).body;
    expect(list.map((b: { bid: string }) => b.bid)).to.deep.equal([batch.bid, older.bid]);
    expect(list[0]).to.include({ description: 'one dies', total: 2, pending: 1, failed: 1, dead: 1, parent: null });
    expect(list[0]).to.not.have.property('failures');
    expect(new Date(list[0].createdAt).getTime()).to.be.closeTo(Date.now(), 60_000);
    expect(list[0].deathAt).to.be.a('string');
    expect((await call(url, '/api/batches?limit=1')).body).to.have.length(1);

    const one = (await call(url, `/api/batches/${batch.bid}`)).body;
    expect(one).to.include({ bid: batch.bid, total: 2, failed: 1, dead: 1, successAt: null });
    expect(one.failures).to.deep.equal([dies]);
    expect(one.failures).to.not.include(ok);
  });

  it('answers 404 for a batch that does not exist and 400 for a bad limit', async () => {
    const { url } = await startWebNode(t);
    const missing = await call(url, '/api/batches/no-such-bid');
    expect(missing.status).to.equal(404);
    expect(missing.body.error).to.include('no batch no-such-bid');
    expect((await call(url, '/api/batches?limit=lots')).status).to.equal(400);
  });
});
