// Input nexq cannot run: unknown or hostile class names, and payloads that are not jobs at all.
// Each ends as data in Redis (retry or dead, with the reason); the node keeps running.
import { expect } from 'chai';
import { NodeTest, useNodes, waitFor } from '../support/node';

async function entries(t: NodeTest, key: string, count: number): Promise<any[]> {
  await waitFor(async () => (await t.redis.zcard(key)) >= count, 5000, `${count} entries in ${key}`);
  return (await t.redis.zrange(key, 0, -1)).map((s) => JSON.parse(s));
}

describe('unknown and hostile job classes', () => {
  const t = useNodes();

  it('files a job of an unknown class in the retry set with UnknownJobClassError, and keeps running', async () => {
    const out = t.out('after');
    const node = await t.start();
    const jid = await node.enqueue('default', 'NoSuchJob', []);
    const [job] = await entries(t, t.keys.retry('default'), 1);
    expect(job).to.include({ jid, error_class: 'UnknownJobClassError' });
    expect(job.error_message).to.contain('NoSuchJob').and.to.contain('no handler is registered');
    await node.enqueue('default', 'Record', [t.url, out, 'still here']);
    await t.waitForRecords(out);
  });

  for (const className of [
    '../x',
    '__proto__',
    'constructor',
    '/etc/passwd',
    'Mailer/Welcome',
    '../jobs/Record',
    'Mailer::prototype',
    'a b',
  ]) {
    it(`fails class ${JSON.stringify(className)} as not a valid class name, without loading anything`, async () => {
      const out = t.out('hostile');
      const node = await t.start();
      const jid = await node.enqueue('default', className, [t.url, out, 'loaded!']);
      const [job] = await entries(t, t.keys.retry('default'), 1);
      expect(job).to.include({ jid, class: className, error_class: 'UnknownJobClassError' });
      expect(job.error_message).to.contain('not a valid class name');
      expect(await t.redis.llen(out)).to.equal(0);
    });
  }

  it('does not resolve names of Object.prototype members such as toString', async () => {
    const node = await t.start();
    await node.enqueue('default', 'toString', []);
    const [job] = await entries(t, t.keys.retry('default'), 1);
    expect(job).to.include({ error_class: 'UnknownJobClassError' });
    expect(job.error_message).to.contain('no handler is registered');
  });
});

describe('malformed payloads in a queue', () => {
  const t = useNodes();

  const malformed: Array<[string, string, string]> = [
    ['invalid JSON', '{"class":"Record",', 'not valid JSON'],
    ['a JSON array', '["Record",[]]', 'JSON object'],
    ['a job without class', '{"args":[],"jid":"no-class","queue":"default"}', '"class"'],
    [
      'a job whose args are not an array',
      '{"class":"Record","args":"nope","jid":"bad-args","queue":"default"}',
      '"args"',
    ],
    ['a job without jid', '{"class":"Record","args":[],"queue":"default"}', '"jid"'],
    [
      'a job with a non-integer retry_count',
      '{"class":"Record","args":[],"jid":"rc","retry_count":"2"}',
      '"retry_count"',
    ],
  ];

  for (const [what, raw, reason] of malformed) {
    it(`moves ${what} to the dead set as MalformedJobError with the reason`, async () => {
      await t.start({ nodeId: 'm' });
      await t.redis.lpush(t.keys.queue('default'), raw);
      const [entry] = await entries(t, t.keys.dead('default'), 1);
      expect(entry).to.include({ error_class: 'MalformedJobError', retry: false });
      expect(entry.error_message).to.contain(reason);
      expect(entry.jid).to.be.a('string').that.is.not.empty;
      expect(entry.failed_at).to.be.a('number');
      await waitFor(
        async () => (await t.redis.llen(t.keys.backup('m', 'default'))) === 0,
        2000,
        'an empty backup list',
      );
    });
  }

  it('keeps the unreadable text in the dead entry', async () => {
    await t.start();
    await t.redis.lpush(t.keys.queue('default'), 'definitely not json');
    const [entry] = await entries(t, t.keys.dead('default'), 1);
    expect(entry.args).to.deep.equal(['definitely not json']);
  });

  it('runs the good jobs around malformed ones, and keeps running', async () => {
    const out = t.out('good');
    const node = await t.start({ queues: [{ name: 'default', concurrency: 1 }] });
    const good = (n: number) =>
      JSON.stringify({ class: 'Record', args: [t.url, out, n], jid: `good-${n}`, queue: 'default' });
    await t.redis.lpush(
      t.keys.queue('default'),
      good(1),
      '{oops',
      good(2),
      '[]',
      good(3),
      '{"class":"Record"}',
      good(4),
    );
    await t.waitForRecords(out, 4);
    expect((await t.records(out)).map((r) => r.value)).to.deep.equal([1, 2, 3, 4]);
    expect(await t.redis.zcard(t.keys.dead('default'))).to.equal(3);
    expect(node.node.running).to.equal(true);
    await node.enqueue('default', 'Record', [t.url, out, 5]);
    await t.waitForRecords(out, 5);
  });
});

describe('malformed entries in the schedule and retry sets', () => {
  const t = useNodes();

  it('moves an unreadable due entry to the dead set instead of retrying it forever', async () => {
    await t.start();
    await t.redis.zadd(t.keys.schedule('default'), 1, 'garbage');
    await t.redis.zadd(t.keys.retry('default'), 1, '{"class":"Record","args":[],"jid":"no-queue"}');
    const dead = await entries(t, t.keys.dead('default'), 2);
    expect(dead.map((e) => e.error_class)).to.deep.equal(['MalformedJobError', 'MalformedJobError']);
    expect(dead.map((e) => e.error_message).join(' ')).to.contain('"queue"');
    expect(await t.redis.zcard(t.keys.schedule('default'))).to.equal(0);
    expect(await t.redis.zcard(t.keys.retry('default'))).to.equal(0);
  });

  it('keeps moving good due jobs next to a bad one', async () => {
    const out = t.out('due');
    await t.start();
    const good = JSON.stringify({ class: 'Record', args: [t.url, out, 'due'], jid: 'due-1', queue: 'default' });
    await t.redis.zadd(t.keys.schedule('default'), 1, '[1]', 2, good);
    const [record] = await t.waitForRecords(out);
    expect(record.value).to.equal('due');
    expect(await t.redis.zcard(t.keys.dead('default'))).to.equal(1);
  });
});
