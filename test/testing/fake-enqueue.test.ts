// Fake mode's enqueue API: records jobs in memory with the payload the real enqueuer writes.
import { expect } from 'chai';
import { encodeNewJob, InvalidJobError } from '../../src/job/job';
import { nowSeconds } from '../../src/job/time';
import { ConfigError, createTestNexq, TestNexq } from '../../src/testing';
import { jobsDir, rejection, resetRuns, runs, thrown } from './support';

const UUID_V4 = /^[0-9a-f]{8}-[0-9a-f]{4}-4[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$/;
const FLOAT_SECONDS = /^\d{10}\.\d+$/;

describe('nexq/testing fake mode: enqueue', () => {
  let nexq: TestNexq;
  beforeEach(() => {
    resetRuns();
    nexq = createTestNexq({ mode: 'fake', jobsDir });
  });

  it('defaults to fake mode', () => {
    expect(createTestNexq({ jobsDir }).mode).to.equal('fake');
  });

  it('records the job without running its handler', async () => {
    await nexq.enqueue('default', 'Push', [1]);
    expect(runs()).to.deep.equal([]);
    expect(nexq.jobs('default')).to.have.length(1);
  });

  it('records the payload byte for byte as encodeNewJob writes it, apart from the timestamps', async () => {
    const jid = await nexq.enqueue('mail', 'Push', ['bob', { n: 5 }], { retry: 3 });
    const [job] = nexq.jobs('mail');
    const expected = encodeNewJob('mail', 'Push', ['bob', { n: 5 }], { retry: 3, jid }).json;
    const sameTime = (json: string) => json.replace(/"(created_at|enqueued_at)":[\d.]+/g, '"$1":T');
    expect(sameTime(job.raw)).to.equal(sameTime(expected));
  });

  it('writes float-second timestamps that always show a fraction, created_at equal to enqueued_at', async () => {
    await nexq.enqueue('default', 'Push', []);
    const { raw, payload } = nexq.jobs('default')[0];
    expect(raw).to.match(/"created_at":\d{10}\.\d+,"enqueued_at":\d{10}\.\d+\}$/);
    expect(payload.enqueued_at).to.equal(payload.created_at);
  });

  it('writes integer-millisecond timestamps with timestamps: "milliseconds"', async () => {
    const ms = createTestNexq({ jobsDir, timestamps: 'milliseconds' });
    await ms.enqueue('default', 'Push', []);
    expect(ms.jobs()[0].raw).to.match(/"created_at":\d{13},"enqueued_at":\d{13}\}$/);
  });

  it('returns a fresh UUID v4 jid per job, and records it', async () => {
    const a = await nexq.enqueue('default', 'Push', []);
    const b = await nexq.enqueue('default', 'Push', []);
    expect(a).to.match(UUID_V4);
    expect(b).to.match(UUID_V4).and.not.equal(a);
    expect(nexq.jobs().map((j) => j.jid)).to.deep.equal([a, b]);
  });

  it('uses the jid given in options', async () => {
    expect(await nexq.enqueue('default', 'Push', [], { jid: 'my-jid' })).to.equal('my-jid');
    expect(nexq.jobs()[0].payload.jid).to.equal('my-jid');
  });

  it('defaults args to []', async () => {
    await nexq.enqueue('default', 'Push');
    expect(nexq.jobs()[0].args).to.deep.equal([]);
  });

  it('decodes the payload: queue, class, args, jid, retry', async () => {
    const jid = await nexq.enqueue('mail', 'Push', ['x', 2], { retry: false });
    const [job] = nexq.jobs('mail');
    expect(job).to.include({ queue: 'mail', class: 'Push', jid });
    expect(job.args).to.deep.equal(['x', 2]);
    expect(job.payload).to.include({ queue: 'mail', class: 'Push', jid, retry: false });
    expect(job.at).to.equal(undefined);
  });

  it('refuses args JSON would change (a Date), as the real enqueuer does, and records nothing', async () => {
    const err = await rejection(nexq.enqueue('default', 'Push', [{ when: new Date('2024-05-01T10:00:00Z') }]));
    expect(err).to.be.instanceOf(InvalidJobError);
    expect(err.message).to.equal(
      'args of Push are not JSON-safe: args[0].when is a Date (JSON writes "2024-05-01T10:00:00.000Z")',
    );
    expect(nexq.jobs()).to.deep.equal([]);
  });

  it('keeps a job scheduled with enqueueAt with its time, and without enqueued_at (as in `schedule`)', async () => {
    const at = new Date(Date.now() + 3_600_000);
    await nexq.enqueueAt('default', at, 'Push', [1]);
    const [job] = nexq.jobs('default');
    expect(job.at).to.equal(at.getTime() / 1000);
    expect(job.payload).not.to.have.property('enqueued_at');
    expect(job.raw).to.match(/"created_at":[\d.]+\}$/);
  });

  it('keeps a job scheduled with enqueueIn at now + seconds', async () => {
    const before = nowSeconds();
    await nexq.enqueueIn('default', 90, 'Push', []);
    const after = nowSeconds();
    const { at } = nexq.jobs()[0];
    expect(at).to.be.within(before + 90, after + 90);
  });

  it('records a scheduled job expiring ttl seconds after its time, whichever way it was scheduled', async () => {
    await nexq.enqueueIn('default', 60, 'Push', [], { ttl: 10 });
    await nexq.enqueueAt('default', new Date(Date.now() + 60_000), 'Push', [], { ttl: 10 });
    await nexq.enqueue('default', 'Push', [], { delay: 60, ttl: 10 });
    await nexq.enqueueAll([{ queue: 'default', class: 'Push', args: [], in: 60, options: { ttl: 10 } }]);
    for (const job of nexq.jobs()) expect(Number(job.payload.expires_at) - job.at!).to.be.closeTo(10, 0.001);
  });

  it('enqueues now a job whose enqueueAt time has passed, as Sidekiq does', async () => {
    await nexq.enqueueAt('default', new Date(Date.now() - 1000), 'Push', []);
    const [job] = nexq.jobs();
    expect(job.at).to.equal(undefined);
    expect(String(job.payload.enqueued_at)).to.match(FLOAT_SECONDS);
  });

  it('enqueues now a job with enqueueIn of 0 or less', async () => {
    await nexq.enqueueIn('default', 0, 'Push', []);
    await nexq.enqueueIn('default', -5, 'Push', []);
    expect(nexq.jobs().map((j) => j.at)).to.deep.equal([undefined, undefined]);
  });

  it('records enqueueAll jobs in order and resolves to their jids in order', async () => {
    const jids = await nexq.enqueueAll([
      { queue: 'a', class: 'Push', args: [1] },
      { queue: 'b', class: 'Push', args: [2], in: 60 },
      { queue: 'a', class: 'Push', args: [3], options: { jid: 'third' } },
    ]);
    expect(jids[2]).to.equal('third');
    expect(nexq.jobs().map((j) => j.jid)).to.deep.equal(jids);
    expect(nexq.jobs('a').map((j) => j.args)).to.deep.equal([[1], [3]]);
    expect(nexq.jobs('b')[0].at).to.be.a('number');
  });

  it('records nothing from enqueueAll when one job is invalid', async () => {
    const err = await rejection(
      nexq.enqueueAll([
        { queue: 'a', class: 'Push', args: [] },
        { queue: 'bad queue', class: 'Push', args: [] },
      ]),
    );
    expect(err).to.be.instanceOf(InvalidJobError);
    expect(nexq.jobs()).to.deep.equal([]);
  });

  it('lists the jobs of one queue, or of every queue in enqueue order', async () => {
    await nexq.enqueue('a', 'Push', [1]);
    await nexq.enqueue('b', 'Push', [2]);
    await nexq.enqueue('a', 'Push', [3]);
    expect(nexq.jobs('a').map((j) => j.args[0])).to.deep.equal([1, 3]);
    expect(nexq.jobs().map((j) => j.args[0])).to.deep.equal([1, 2, 3]);
    expect(nexq.jobs('none')).to.deep.equal([]);
  });

  it('returns copies: changing a listed job changes nothing recorded', async () => {
    await nexq.enqueue('a', 'Push', [{ n: 1 }]);
    const [job] = nexq.jobs('a');
    (job.args[0] as { n: number }).n = 2;
    job.payload.class = 'Other';
    expect(nexq.jobs('a')[0].args).to.deep.equal([{ n: 1 }]);
    expect(nexq.jobs('a')[0].class).to.equal('Push');
  });

  it('clears one queue', async () => {
    await nexq.enqueue('a', 'Push', []);
    await nexq.enqueue('b', 'Push', []);
    nexq.clear('a');
    expect(nexq.jobs().map((j) => j.queue)).to.deep.equal(['b']);
  });

  it('clears every queue', async () => {
    await nexq.enqueue('a', 'Push', []);
    await nexq.enqueueIn('b', 60, 'Push', []);
    nexq.clear();
    expect(nexq.jobs()).to.deep.equal([]);
  });

  it('records a class no handler is registered for, as a producer may enqueue for other services', async () => {
    await nexq.enqueue('default', 'Ruby::OnlyJob', []);
    expect(nexq.jobs()[0].class).to.equal('Ruby::OnlyJob');
  });

  it('rejects enqueues after stop()', async () => {
    await nexq.stop();
    expect((await rejection(nexq.enqueue('a', 'Push', []))).message).to.match(/stopped/);
  });

  it('refuses an option it does not know with a ConfigError naming it', () => {
    const err = thrown(() => createTestNexq({ redis: 'redis://x' } as never));
    expect(err).to.be.instanceOf(ConfigError);
    expect(err.message).to.match(/redis/);
  });

  it('refuses an unknown mode with a ConfigError', () => {
    expect(thrown(() => createTestNexq({ mode: 'real' as never }))).to.be.instanceOf(ConfigError);
  });

  it("checks jobs and jobsDir with the node's own config rules", () => {
    const err = thrown(() => createTestNexq({ jobs: { Push: 42 as never } }));
    expect(err).to.be.instanceOf(ConfigError);
    expect(err.message).to.match(/jobs\.Push must be a module path/);
  });
});
