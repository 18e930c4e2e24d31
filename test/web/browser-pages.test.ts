// The dashboard pages a first hour with nexq asked for, in a real headless Chromium against a
// running node: the schedules (next and last run on their own zone, remove), a running job's
// progress, deleting one waiting job from its queue's page, the page opened at a user:pass@host
// URL, and the warnings for jobs no live node would run.
import { expect } from 'chai';
import path from 'node:path';
import { useBrowser } from '../support/browser';
import { useNodes, waitFor } from '../support/node';
import { repoRoot } from '../support/paths';
import { startWebNode } from './support';

describe('web dashboard pages in Chromium', function () {
  this.timeout(30_000);
  const t = useNodes();
  const b = useBrowser();

  it('lists the schedules with their next and last run on their own zone, and removes one', async () => {
    const { nexq, url } = await startWebNode(t);
    await nexq.schedules.set('nightly', {
      cron: '0 2 * * *',
      tz: 'America/New_York',
      queue: 'default',
      class: 'Report',
    });
    await nexq.schedules.set('hourly', { cron: '0 * * * *', queue: 'default', class: 'Ping', args: [1] });
    await b.page.goto(`${url}#/schedules`);
    const nightly = b.page.locator('tr[data-schedule="nightly"]');
    // 02:00 on New York's wall clock, whatever this machine's zone or the date.
    expect(await nightly.locator('.next-run').textContent()).to.match(/^\d{4}-\d\d-\d\d 02:00:00 America\/New_York$/);
    expect(await nightly.locator('td').nth(2).textContent()).to.equal('America/New_York');
    expect(await b.page.locator('tr[data-schedule="hourly"] .next-run').textContent()).to.match(/:00:00 UTC$/);
    // A new schedule has not run yet.
    expect(await nightly.locator('.last-run').textContent()).to.equal('–');
    // Its next tick run (as a node's enqueue-periodic.lua records it): its last run, on its own zone.
    const { token } = JSON.parse((await t.redis.hget(t.keys.schedules, 'nightly'))!);
    const listed = (await nexq.schedules.list()).find((s) => s.name === 'nightly')!;
    const ran = listed.nextRunAt!.getTime() / 1000;
    await t.redis.set(t.keys.periodic(`nightly@${token}`, 'default'), String(ran));
    await waitFor(async () => {
      await b.page.goto(`${url}#/schedules?x=${Date.now()}`);
      return /\d\d 02:00:00 America\/New_York/.test((await nightly.locator('.last-run').textContent()) ?? '');
    }, 10_000);
    b.page.once('dialog', (dialog) => dialog.accept().catch(() => undefined));
    await nightly.locator('button.remove').click();
    await b.page.locator('#message', { hasText: 'schedule nightly removed' }).waitFor();
    await nightly.waitFor({ state: 'detached' });
    expect((await nexq.schedules.list()).map((s) => s.name)).to.deep.equal(['hourly']);
  });

  it("shows a running job's progress on the Running page", async () => {
    const { nexq, url } = await startWebNode(t, {
      jobsDir: path.join(repoRoot, 'test', 'fixtures', 'result-jobs'),
      heartbeatInterval: 1,
    });
    const jid = await nexq.enqueue('default', 'Steps', [t.url, t.out('gate')]);
    await b.page.goto(`${url}#/running`);
    await b.page.locator(`tr[data-jid="${jid}"] .progress`, { hasText: '{"step":1,"of":2}' }).waitFor();
    await t.redis.lpush(t.out('gate'), 'go');
  });

  it("deletes one waiting job from its queue's page and keeps the others", async () => {
    const { nexq, url } = await startWebNode(t);
    await nexq.pause('parked', 'out');
    const gone = await nexq.enqueue('parked', 'Record', [t.url, t.out('never'), 'a'], { unique: { for: 600 } });
    const stays = await nexq.enqueue('parked', 'Record', [t.url, t.out('never'), 'b']);
    // One another producer pushed, which the job index does not know.
    const foreign = 'foreign-jid-1';
    await t.redis.lpush(
      t.keys.queue('parked'),
      JSON.stringify({ class: 'Record', args: [], jid: foreign, queue: 'parked' }),
    );
    await b.page.goto(`${url}#/queues/parked`);
    for (const jid of [gone, foreign]) {
      b.page.once('dialog', (dialog) => dialog.accept().catch(() => undefined));
      await b.page.locator(`tr[data-jid="${jid}"] button.delete`).click();
      await b.page.locator('#message', { hasText: `job ${jid} deleted` }).waitFor();
      await b.page.locator(`tr[data-jid="${jid}"]`).waitFor({ state: 'detached' });
    }
    const left = (await t.redis.lrange(t.keys.queue('parked'), 0, -1)).map((raw) => JSON.parse(raw).jid);
    expect(left).to.deep.equal([stays]);
    // Its unique lock went with it: the same job can be enqueued again.
    expect(
      (await nexq.enqueueResult('parked', 'Record', [t.url, t.out('never'), 'a'], { unique: { for: 600 } })).conflict,
    ).to.be.false;
  });

  it('works when opened at a user:pass@host URL', async () => {
    const { nexq, url } = await startWebNode(t, {
      web: { port: 0, username: 'ops', password: 'pw-123' },
    });
    await nexq.enqueue('default', 'Record', [t.url, t.out('ran'), 1]);
    await t.waitForRecords(t.out('ran'), 1);
    const withCredentials = url.replace('http://', 'http://ops:pw-123@');
    await b.page.goto(withCredentials);
    await b.page.locator('#count-processed', { hasText: /^1$/ }).waitFor();
    expect(await b.page.locator('#status').getAttribute('class')).to.not.equal('error');
    await b.page.goto(`${withCredentials}#/queues`);
    await b.page.locator('main[data-page="queues"]').waitFor();
    expect(await b.page.locator('main p.error').count()).to.equal(0);
  });

  it('warns of a queue no live node serves and of a class no node serving it handles', async () => {
    const { nexq, url } = await startWebNode(t);
    await waitFor(() => t.redis.hget(t.keys.process(nexq.node.ctx.identity), 'info'));
    await nexq.enqueue('defualt', 'Record', []);
    await nexq.pause('default', 'out');
    await nexq.enqueue('default', 'Recrod', []);
    await b.page.goto(`${url}#/queues`);
    await b.page
      .locator('p.warning[data-queue="defualt"]', {
        hasText: 'no live node serves queue "defualt": its jobs wait until one does; did you mean "default"?',
      })
      .waitFor();
    await b.page.goto(`${url}#/queues/default`);
    await b.page.locator('p.warning', { hasText: 'no live node has a handler for class "Recrod"' }).waitFor();
    expect(await b.page.locator('p.warning').textContent()).to.include('did you mean "Record"?');
  });
});
