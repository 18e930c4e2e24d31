// The dashboard's operator actions in a real headless Chromium, each once: Kill a retry, clear a
// queue, Quiet and Stop a process, cancel a running job; the set filter and the cursor pager; the
// processes' details and supervision tree.
import { expect } from 'chai';
import { useBrowser } from '../support/browser';
import { useNodes, waitFor } from '../support/node';
import { addToSet, startWebNode } from './support';

describe('web dashboard actions in Chromium', function () {
  this.timeout(30_000);
  const t = useNodes();
  const b = useBrowser();

  /** Accepts the page's confirm() dialogs (Playwright dismisses them otherwise). */
  function acceptDialogs(): void {
    b.page.on('dialog', (dialog) => {
      dialog.accept().catch(() => {}); // the page may be gone already
    });
  }

  it('kills a retry from its row: it moves to the dead set', async () => {
    const { url } = await startWebNode(t);
    const later = Date.now() / 1000 + 3600;
    const jid = await addToSet(t, 'retry', 'default', 'Fail', ['k'], later);
    const other = await addToSet(t, 'retry', 'default', 'Fail', ['stays'], later + 1);
    await b.page.goto(`${url}#/retries`);
    await b.page.locator(`tr[data-jid="${jid}"] button.kill`).click();
    await b.page.locator('#message', { hasText: '1 job(s) moved to the dead set' }).waitFor();
    await b.page.locator(`tr[data-jid="${jid}"]`).waitFor({ state: 'detached' });
    await b.page.locator(`tr[data-jid="${other}"]`).waitFor();
    const dead = await t.redis.zrange(t.keys.dead('default'), 0, -1);
    expect(dead.map((raw) => JSON.parse(raw).jid)).to.deep.equal([jid]);
  });

  it('clears a queue from the queues page after a confirmation', async () => {
    const { nexq, url } = await startWebNode(t);
    for (let i = 0; i < 3; i++) await nexq.enqueue('parked', 'Record', [t.url, t.out('never'), i]);
    acceptDialogs();
    await b.page.goto(`${url}#/queues`);
    const row = b.page.locator('tr[data-queue="parked"]');
    await row.locator('.size', { hasText: '3' }).waitFor();
    await row.locator('button.clear').click();
    await b.page.locator('#message', { hasText: 'queue parked cleared' }).waitFor();
    expect(await t.redis.llen(t.keys.queue('parked'))).to.equal(0);
  });

  it('quiets and then stops a node from the processes page, and shows its details and tree', async () => {
    const { url } = await startWebNode(t);
    const other = await t.start({ heartbeatInterval: 1, nodeTimeout: 5 });
    const identity = other.node.ctx.identity;
    acceptDialogs();
    await b.page.goto(`${url}#/processes`);
    const row = b.page.locator(`tr[data-identity="${identity}"]`);
    await row.waitFor();
    expect(await row.locator('td').nth(9).textContent()).to.equal('2'); // threads
    expect(await row.locator('td').nth(10).textContent()).to.match(/^\d+ MB$/);
    const tree = b.page.locator(`section.node-tree[data-identity="${identity}"]`);
    await tree.locator('li[data-actor="manager"][data-state="running"]').waitFor();
    await tree.locator('li[data-actor="redis-connection"]').waitFor();
    await row.locator('button.quiet').click();
    await b.page.locator('#message', { hasText: `Quiet sent to ${identity}` }).waitFor();
    await waitFor(() => other.node.ctx.lifecycle.quiet, 10_000, 'the node to go quiet');
    await row.locator('button.stop').click();
    await b.page.locator('#message', { hasText: `Stop sent to ${identity}` }).waitFor();
    await other.node.exited;
    expect(other.node.running).to.equal(false);
  });

  it('cancels a running job from the running page: it goes to the dead set', async () => {
    const { nexq, url } = await startWebNode(t);
    const jid = await nexq.enqueue('default', 'Gate', [t.url, t.out('gate')]);
    acceptDialogs();
    await b.page.goto(`${url}#/running`);
    await b.page.locator(`tr[data-jid="${jid}"] button.cancel`).click();
    await b.page.locator('#message', { hasText: `job ${jid} cancelled` }).waitFor();
    const [dead] = (await t.redis.zrange(t.keys.dead('default'), 0, -1)).map((raw) => JSON.parse(raw));
    expect(dead).to.include({ jid, error_class: 'JobCancelledError' });
  });

  it('filters the dead set by class and pages it with the cursor', async () => {
    const { url } = await startWebNode(t);
    const mails = [];
    for (let i = 0; i < 51; i++) mails.push(await addToSet(t, 'dead', 'default', 'Mailer', [i], 1000 + i));
    const report = await addToSet(t, 'dead', 'default', 'Report', [], 1000.5);
    await b.page.goto(`${url}#/dead`);
    await b.page.locator(`tr[data-jid="${report}"]`).waitFor();
    await b.page.locator('form.filter input[name="class"]').fill('Mailer');
    await b.page.locator('form.filter button[type="submit"]').click();
    await b.page.locator(`tr[data-jid="${report}"]`).waitFor({ state: 'detached' });
    expect(await b.page.locator('tbody tr').count()).to.equal(50);
    await b.page.locator('p.pager a.next').click();
    await b.page.locator(`tr[data-jid="${mails[50]}"]`).waitFor();
    expect(await b.page.locator('tbody tr').count()).to.equal(1);
    expect(await b.page.locator('p.pager .end').textContent()).to.equal('end of the list');
  });
});
