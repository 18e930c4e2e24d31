// The dashboard end to end in a real headless Chromium against a running node: what the page
// shows, and that its buttons act on the node (a dead job retried runs, a paused queue stops).
import { expect } from 'chai';
import { useBrowser } from '../support/browser';
import { sleep, useNodes, waitFor } from '../support/node';
import { compressBacktrace } from '../../src/job/failure';
import { addToSet, payload, startWebNode } from './support';

describe('web dashboard in Chromium', function () {
  this.timeout(30_000);
  const t = useNodes();
  const b = useBrowser();

  /** Waits until the element's text is exactly `text` (the counters update every 2 s). */
  async function waitForText(selector: string, text: string): Promise<void> {
    await b.page.locator(selector, { hasText: new RegExp(`^${text}$`) }).waitFor();
  }

  it('shows the live counters, the history graph and the queues', async () => {
    const { nexq, url } = await startWebNode(t);
    for (let i = 0; i < 3; i++) await nexq.enqueue('default', 'Record', [t.url, t.out('ran'), i]);
    await t.waitForRecords(t.out('ran'), 3);
    await nexq.enqueue('parked', 'Record', [t.url, t.out('never'), 'a']);
    await nexq.enqueue('parked', 'Record', [t.url, t.out('never'), 'b']);
    await addToSet(t, 'dead', 'default', 'Fail', []);
    await b.page.goto(url);
    await waitForText('#count-processed', '3');
    await waitForText('#count-enqueued', '2');
    await waitForText('#count-dead', '1');
    await waitForText('#count-processes', '1');
    // Today's point of the history graph holds today's count.
    await b.page.locator('#history-graph .series-processed circle:last-of-type[data-value="3"]').waitFor();
    expect(await b.page.locator('#history-graph .series-processed circle').count()).to.equal(30);
    const row = b.page.locator('main tr', { hasText: 'parked' });
    expect(await row.locator('td').nth(1).textContent()).to.equal('2');
    // A counter that changes after the page loaded is shown by the next poll.
    await nexq.enqueue('default', 'Record', [t.url, t.out('ran'), 4]);
    await waitForText('#count-processed', '4');
  });

  it('retrying a dead job from the page makes the node run it', async () => {
    const { url } = await startWebNode(t);
    const jid = await addToSet(t, 'dead', 'default', 'Record', [t.url, t.out('revived'), 'back']);
    const other = await addToSet(t, 'dead', 'default', 'Record', [t.url, t.out('other'), 'stays']);
    await b.page.goto(`${url}#/dead`);
    await b.page.locator(`tr[data-jid="${jid}"] button.retry`).click();
    const [record] = await t.waitForRecords(t.out('revived'));
    expect(record).to.include({ value: 'back', jid, queue: 'default' });
    await b.page.locator('#message', { hasText: '1 job(s) moved to their queues' }).waitFor();
    await b.page.locator(`tr[data-jid="${jid}"]`).waitFor({ state: 'detached' });
    await b.page.locator(`tr[data-jid="${other}"]`).waitFor();
    expect(await t.redis.zcard(t.keys.dead('default'))).to.equal(1);
  });

  it('deletes the selected retries in bulk and keeps the others', async () => {
    const { url } = await startWebNode(t);
    const later = Date.now() / 1000 + 3600;
    const [a, keep, c] = [
      await addToSet(t, 'retry', 'default', 'Fail', ['a'], later),
      await addToSet(t, 'retry', 'default', 'Fail', ['b'], later + 1),
      await addToSet(t, 'retry', 'default', 'Fail', ['c'], later + 2),
    ];
    await b.page.goto(`${url}#/retries`);
    await b.page.locator(`tr[data-jid="${a}"] input.select`).check();
    await b.page.locator(`tr[data-jid="${c}"] input.select`).check();
    await b.page.locator('button.bulk-delete').click();
    await b.page.locator('#message', { hasText: '2 job(s) deleted' }).waitFor();
    await b.page.locator(`tr[data-jid="${a}"]`).waitFor({ state: 'detached' });
    await b.page.locator(`tr[data-jid="${keep}"]`).waitFor();
    const left = await t.redis.zrange(t.keys.retry('default'), 0, -1);
    expect(left.map((raw) => JSON.parse(raw).jid)).to.deep.equal([keep]);
    // One more, by its own Delete button.
    await b.page.locator(`tr[data-jid="${keep}"] button.delete`).click();
    await b.page.locator('p.empty', { hasText: 'No job waits for a retry.' }).waitFor();
    expect(await t.redis.zcard(t.keys.retry('default'))).to.equal(0);
  });

  it('pausing a queue from the page stops the node processing it until it is resumed', async () => {
    const { nexq, url } = await startWebNode(t);
    await nexq.enqueue('default', 'Record', [t.url, t.out('first'), 0]);
    await t.waitForRecords(t.out('first'));
    await b.page.goto(`${url}#/queues`);
    const row = b.page.locator('tr[data-queue="default"]');
    await row.locator('select.pause-mode').selectOption('out');
    await row.locator('button.pause').click();
    await row.locator('.badge.paused', { hasText: 'paused (out)' }).waitFor();
    expect(await t.redis.hgetall(t.keys.paused('default'))).to.deep.equal({ default: 'out' });
    // Enqueues still go in; nothing is fetched while paused (the node polls every 20 ms).
    const jid = await nexq.enqueue('default', 'Record', [t.url, t.out('held'), 1]);
    await sleep(500);
    expect(await t.redis.llen(t.out('held'))).to.equal(0);
    expect(await t.redis.llen(t.keys.queue('default'))).to.equal(1);
    await b.page.reload();
    await row.locator('.size', { hasText: '1' }).waitFor();
    await row.locator('button.resume').click();
    const [record] = await t.waitForRecords(t.out('held'));
    expect(record).to.include({ jid });
    await row.locator('.badge.active').waitFor();
    expect(await t.redis.hgetall(t.keys.paused('default'))).to.deep.equal({});
  });

  it("shows the stack of a failed job on its page, from Sidekiq's compressed error_backtrace", async () => {
    const { url } = await startWebNode(t);
    const lines = ['at perform (/app/jobs/Report.js:3:9)', 'at build (/app/lib/report.js:12:5)'];
    const { jid, raw } = payload('parked', 'Report', [], {
      error_class: 'TypeError',
      error_message: 'boom',
      failed_at: Date.now() / 1000,
      retry_count: 0,
      error_backtrace: compressBacktrace(lines),
    });
    await t.redis.zadd(t.keys.jobSet('dead', 'default'), String(Date.now() / 1000), raw);
    await b.page.goto(`${url}#/jobs/${jid}`);
    const backtrace = b.page.locator(`#job[data-jid="${jid}"] .place[data-where="dead"] pre.backtrace`);
    await backtrace.waitFor();
    expect(await backtrace.textContent()).to.equal(lines.join('\n'));
  });

  it('finds a job by jid from the search box and shows its page', async () => {
    const { nexq, url } = await startWebNode(t);
    const jid = await nexq.enqueue('parked', 'Record', [t.url, t.out('never'), 'look']);
    await b.page.goto(url);
    await b.page.locator('#find-jid').fill(jid);
    await b.page.locator('#find-jid').press('Enter');
    const place = b.page.locator(`#job[data-jid="${jid}"] .place[data-where="queue"]`);
    await place.waitFor();
    expect(await place.locator('h3.where').textContent()).to.equal('waiting in queue parked');
    expect(await place.locator('pre.payload').textContent()).to.equal(await t.redis.lindex(t.keys.queue('parked'), 0));
    expect(await place.locator('tr', { hasText: 'class' }).first().locator('td').nth(1).textContent()).to.equal(
      'Record',
    );
    // A dead job's page offers the retry; a jid nowhere says so.
    const dead = await addToSet(t, 'dead', 'parked', 'Fail', []);
    await b.page.goto(`${url}#/jobs/${dead}`);
    await b.page.locator(`#job[data-jid="${dead}"] .place[data-where="dead"] button.retry`).click();
    await b.page.locator(`#job[data-jid="${dead}"] .place[data-where="queue"]`).waitFor();
    await b.page.goto(`${url}#/jobs/nowhere-jid`);
    await b.page.locator('#job-missing', { hasText: 'no job nowhere-jid found' }).waitFor();
  });

  it('shows the jobs running on each node and the processes', async () => {
    const { nexq, url } = await startWebNode(t, { heartbeatInterval: 1, nodeTimeout: 5 });
    const jid = await nexq.enqueue('default', 'Record', [t.url, t.out('slow'), 'slow', 4000]);
    await b.page.goto(`${url}#/running`);
    const row = b.page.locator(`tr[data-jid="${jid}"]`);
    await row.waitFor();
    expect(await row.locator('td').first().textContent()).to.equal(nexq.node.ctx.config.nodeId);
    await b.page.goto(`${url}#/processes`);
    await b.page.locator(`tr[data-identity="${nexq.node.ctx.identity}"]`).waitFor();
    await waitFor(async () => (await t.redis.llen(t.out('slow'))) === 1, 10_000, 'the slow job');
  });
});
