// The dashboard's batch pages in a real headless Chromium: the list with a batch's counts, and one
// batch's page with its failed member linked to the job's page.
import { expect } from 'chai';
import { useBrowser } from '../support/browser';
import { useNodes, waitFor } from '../support/node';
import { startWebNode } from './support';

describe('web dashboard in Chromium: batches', function () {
  this.timeout(30_000);
  const t = useNodes();
  const b = useBrowser();

  it('lists a batch with its counts and shows its failed job, linked to the job', async () => {
    const { nexq, url } = await startWebNode(t);
    const batch = nexq.batch({ description: 'nightly' });
    const [, dies] = await batch.enqueueAll([
      { queue: 'default', class: 'Record', args: [t.url, t.out('jobs'), 1] },
      { queue: 'default', class: 'Fail', args: [], options: { retry: false } },
    ]);
    await waitFor(async () => (await batch.status())?.pending === 1, 15_000, 'one job done, one dead');
    await waitFor(async () => (await batch.status())?.dead === 1, 15_000, 'the failing job dead');

    await b.page.goto(`${url}#/batches`);
    const row = b.page.locator(`main tr[data-bid="${batch.bid}"]`);
    await row.waitFor();
    const cells = await row.locator('td').allTextContents();
    expect(cells[1]).to.equal('nightly');
    expect(cells.slice(3, 7)).to.deep.equal(['2', '1', '1', '1']); // total, pending, failed, dead

    await row.locator('a.bid').click();
    const failure = b.page.locator(`main tr[data-member="${dies}"] a.jid`);
    await failure.waitFor();
    expect(await b.page.locator('main h2').textContent()).to.equal(`Batch ${batch.bid}`);
    await failure.click();
    await b.page.locator(`#job[data-jid="${dies}"] [data-where="dead"]`).waitFor();
  });
});
