// The dashboard's filters (class, text in args or error, jid) and cursor paging over HTTP: a page
// after a cursor starts right behind the last entry shown, however the set or queue changed.
import { expect } from 'chai';
import { useNodes } from '../support/node';
import { call, payload, startWebNode } from './support';

describe('web dashboard filters and cursor paging', () => {
  const t = useNodes();

  /** Adds a dead entry at `score`; its jid. */
  async function dead(score: number, className: string, args: unknown[], message = 'boom', queue = 'default') {
    const { jid, raw } = payload(queue, className, args, {
      error_class: 'BoomError',
      error_message: message,
      failed_at: score,
      retry_count: 1,
    });
    await t.redis.sadd(t.keys.queues, queue);
    await t.redis.zadd(t.keys.dead(queue), String(score), raw);
    return jid;
  }

  const jidsOf = (body: any) => body.jobs.map((j: any) => j.jid);

  it('filters a set by class, by text in the args or the error, and by jid', async () => {
    const { url } = await startWebNode(t);
    const a = await dead(1000, 'Mailer', ['alice@example.com']);
    const b = await dead(1001, 'Report', ['q3'], 'Timeout after 30 s');
    const c = await dead(1002, 'Mailer', ['bob@example.com'], 'SMTP refused');
    const get = async (query: string) => (await call(url, `/api/sets/dead?${query}`)).body;
    expect(jidsOf(await get('class=Mailer'))).to.deep.equal([a, c]);
    expect(jidsOf(await get('text=ALICE'))).to.deep.equal([a]);
    expect(jidsOf(await get('text=timeout'))).to.deep.equal([b]);
    expect(jidsOf(await get('text=boomerror'))).to.deep.equal([a, b, c]);
    expect(jidsOf(await get('class=Mailer&text=smtp'))).to.deep.equal([c]);
    expect(jidsOf(await get(`jid=${b}`))).to.deep.equal([b]);
    expect(jidsOf(await get(`jid=${b}&class=Mailer`))).to.deep.equal([]);
    const all = await get('');
    expect(all).to.include({ size: 3, next: null });
    expect(all.jobs[1]).to.include({ error_class: 'BoomError', error_message: 'Timeout after 30 s' });
    expect((await call(url, '/api/sets/dead?cursor=nonsense')).status).to.equal(400);
  });

  it('pages a set by score: entries removed or added before the cursor move no page', async () => {
    const { url } = await startWebNode(t);
    const jids = [];
    // Two queues: in the per-queue key layout, two dead sets merged by score.
    for (let i = 0; i < 5; i++) jids.push(await dead(2000 + i, 'Fail', [i], 'boom', i % 2 ? 'other' : 'default'));
    const first = (await call(url, '/api/sets/dead?limit=2')).body;
    expect(jidsOf(first)).to.deep.equal(jids.slice(0, 2));
    // The first entry is retried away and an older one comes in: an offset would now skip jids[2].
    await t.redis.zremrangebyrank(t.keys.dead('default'), 0, 0);
    await dead(1000, 'Fail', ['older']);
    const second = (await call(url, `/api/sets/dead?limit=2&cursor=${encodeURIComponent(first.next)}`)).body;
    expect(jidsOf(second)).to.deep.equal(jids.slice(2, 4));
    const third = (await call(url, `/api/sets/dead?limit=2&cursor=${encodeURIComponent(second.next)}`)).body;
    expect(third).to.include({ next: null });
    expect(jidsOf(third)).to.deep.equal([jids[4]]);
  });

  it('pages through entries that share one score, each once', async () => {
    const { url } = await startWebNode(t);
    const jids = new Set<string>();
    for (let i = 0; i < 5; i++) jids.add(await dead(3000, 'Fail', [i]));
    const seen: string[] = [];
    let cursor = '';
    for (let page = 0; page < 10; page++) {
      const body = (await call(url, `/api/sets/dead?limit=2${cursor && `&cursor=${encodeURIComponent(cursor)}`}`)).body;
      seen.push(...jidsOf(body));
      if (!body.next) break;
      cursor = body.next;
    }
    expect(seen).to.have.length(5);
    expect(new Set(seen)).to.deep.equal(jids);
  });

  it('pages a queue behind the last job shown while jobs are fetched and pushed', async () => {
    const { nexq, url } = await startWebNode(t);
    const jids = [];
    for (let i = 0; i < 6; i++) jids.push(await nexq.enqueue('parked', i % 2 ? 'Even' : 'Odd', [i]));
    const first = (await call(url, '/api/queues/parked?limit=2')).body;
    expect(jidsOf(first)).to.deep.equal(jids.slice(0, 2)); // the next to run first
    expect(first).to.include({ size: 6, next: jids[1], cursorGone: false });
    // A node takes the next job and a producer pushes one: offsets would shift by one.
    await t.redis.rpop(t.keys.queue('parked'));
    const pushed = await nexq.enqueue('parked', 'Odd', ['new']);
    const second = (await call(url, `/api/queues/parked?limit=2&cursor=${first.next}`)).body;
    expect(jidsOf(second)).to.deep.equal(jids.slice(2, 4));
    // Filtered: the class, behind the cursor, up to the newest job.
    const odd = (await call(url, `/api/queues/parked?class=Odd&cursor=${second.next}`)).body;
    expect(jidsOf(odd)).to.deep.equal([jids[4], pushed]);
    expect(odd.next).to.equal(null);
    // Its anchor fetched meanwhile (so was every job ahead of it): the page starts at the next to run.
    await t.redis.rpop(t.keys.queue('parked'));
    await t.redis.rpop(t.keys.queue('parked'));
    const gone = (await call(url, `/api/queues/parked?limit=1&cursor=${jids[1]}`)).body;
    expect(gone).to.include({ cursorGone: true });
    expect(jidsOf(gone)).to.deep.equal([jids[3]]);
  });
});
