// The dashboard's Metrics page (Sidekiq 7's): per-class counts and run-time percentiles of the last
// hours, from the API and in Chromium, after a node ran jobs.
import { expect } from 'chai';
import type { Nexq } from '../../src/nexq';
import { useBrowser } from '../support/browser';
import { NodeTest, useNodes, waitFor } from '../support/node';
import { call, startWebNode } from './support';

/** Runs 4 Sleep(60 ms) and 2 Fail jobs and waits until the metrics API counts them all. */
async function runJobs(t: NodeTest, nexq: Nexq, url: string): Promise<any> {
  await nexq.enqueueAll([
    ...[1, 2, 3, 4].map(() => ({ queue: 'default', class: 'Sleep', args: [60] })),
    ...[1, 2].map(() => ({ queue: 'default', class: 'Fail', args: [] })),
  ]);
  let body: any;
  await waitFor(
    async () => {
      body = (await call(url, '/api/metrics?minutes=60')).body;
      return (body.classes as Array<{ processed: number }>).reduce((n, c) => n + c.processed, 0) === 6;
    },
    10_000,
    'six jobs in the metrics',
  );
  return body;
}

describe('web dashboard Metrics page', function () {
  this.timeout(30_000);
  const t = useNodes();
  const b = useBrowser();

  it('answers per-class processed, failed, total time and p50/p95 over the chosen minutes', async () => {
    const { nexq, url } = await startWebNode(t);
    const body = await runJobs(t, nexq, url);
    expect(body.minutes).to.have.length(60);
    const sleep = body.classes.find((c: any) => c.class === 'Sleep');
    expect(sleep).to.include({ processed: 4, failed: 0 });
    expect(sleep.totalMs).to.be.at.least(4 * 60);
    expect(sleep.p50Ms).to.be.at.least(50); // 60 ms runs sit in the 50-100 ms bucket or above
    expect(sleep.p95Ms).to.be.at.least(sleep.p50Ms);
    expect(sleep.perMinute.processed.reduce((a: number, b: number) => a + b, 0)).to.equal(4);
    expect(body.classes.find((c: any) => c.class === 'Fail')).to.include({ processed: 2, failed: 2 });
    expect((await call(url, '/api/metrics?minutes=100000')).status).to.equal(400);
  });

  it('shows a row per class and a graph of the class chosen', async () => {
    const { nexq, url } = await startWebNode(t);
    await runJobs(t, nexq, url);
    await b.page.goto(`${url}#/metrics`);
    const row = b.page.locator('main tr[data-class="Sleep"]');
    await row.waitFor();
    expect(await row.locator('td').nth(1).textContent()).to.equal('4');
    expect(await row.locator('td').nth(2).textContent()).to.equal('0');
    expect(await b.page.locator('main tr[data-class="Fail"] td').nth(2).textContent()).to.equal('2');
    await row.locator('a').click();
    await b.page.locator('#metrics-graph svg[aria-label="Sleep: jobs per minute"]').waitFor();
    const points = b.page.locator('#metrics-graph .series-processed circle');
    expect(await points.count()).to.equal(60);
    const values = await points.evaluateAll((cs) => cs.map((c) => Number(c.getAttribute('data-value'))));
    expect(values.reduce((a, v) => a + v, 0)).to.equal(4);
  });
});
