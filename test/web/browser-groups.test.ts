// A fair queue's groups page in a real headless Chromium against a running node: reached from the
// queue's page, its groups most waiting first with the limit holding one back and its recent
// starts, a page at a time, and Pause and Resume of one group through the API's CSRF header.
import { expect } from 'chai';
import { useBrowser } from '../support/browser';
import { useNodes, waitFor } from '../support/node';
import { startWebNode } from './support';

describe("web dashboard: a fair queue's groups page in Chromium", function () {
  this.timeout(30_000);
  const t = useNodes();
  const b = useBrowser();

  it('lists the groups from the queue page, pages through them, and pauses and resumes one', async () => {
    const enqueuer = await t.start({ mode: 'enqueuer' });
    const sleep = (group: string) => ({ queue: 'fair', class: 'Sleep', args: [10_000], options: { group } });
    // acme first (it starts, one slot), then 60 groups of one job: more than one page of 50.
    const others = Array.from({ length: 60 }, (_, i) => `g-${String(i).padStart(2, '0')}`);
    await enqueuer.enqueueAll([sleep('acme'), sleep('acme'), sleep('acme'), sleep('ü/..'), sleep('ü/..')]);
    await enqueuer.enqueueAll(others.map(sleep));
    const { nexq, url } = await startWebNode(t, {
      queues: [{ name: 'fair', concurrency: 1, fair: true, groupConcurrency: 1 }],
      shutdownTimeout: 50,
    });
    await waitFor(async () => (await nexq.groups('fair')).some((g) => g.running === 1), 5000, 'acme running');

    await b.page.goto(`${url}#/queues/fair`);
    await b.page.locator('a.groups-link').click();
    const acme = b.page.locator('tr[data-group="acme"]');
    await acme.waitFor();
    expect(await acme.locator('.waiting').textContent()).to.equal('2');
    expect(await acme.locator('.running').textContent()).to.equal('1');
    expect(await acme.locator('.started').textContent()).to.equal('1');
    expect(await acme.locator('.badge.limited').textContent()).to.equal('at groupConcurrency');
    const rows = b.page.locator('tbody tr');
    expect(await rows.count()).to.equal(50);
    expect(await rows.nth(1).getAttribute('data-group')).to.equal('ü/..');
    expect(await b.page.locator('.pager .range').textContent()).to.equal('1–50 of 62');
    await b.page.locator('.pager a.next').click();
    await b.page.locator('.pager .range', { hasText: '51–62 of 62' }).waitFor();
    expect(await rows.count()).to.equal(12);
    await b.page.locator('.pager a.previous').click();

    const odd = b.page.locator('tr[data-group="ü/.."]');
    await odd.locator('button.pause').click();
    await b.page.locator('#message', { hasText: 'group ü/.. of fair paused' }).waitFor();
    await odd.locator('.badge.paused').waitFor();
    expect(await t.redis.smembers(t.keys.fair('fair').paused)).to.deep.equal(['ü/..']);
    await odd.locator('button.resume').click();
    await b.page.locator('#message', { hasText: 'group ü/.. of fair resumed' }).waitFor();
    await odd.locator('.badge.active').waitFor();
    expect(await t.redis.smembers(t.keys.fair('fair').paused)).to.deep.equal([]);
  });
});
