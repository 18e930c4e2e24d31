// The node's typed job events, heard from real jobs run on worker threads against real Redis.
import { expect } from 'chai';
import { JobEventMap, JobEventName, JobEvents } from '../../src/events/job-events';
import { sleep, useNodes, waitFor } from '../support/node';

describe('job events', () => {
  const t = useNodes();

  function recorder(events: JobEvents, names: JobEventName[]) {
    const heard: Array<{ name: JobEventName; payload: JobEventMap[JobEventName] }> = [];
    for (const name of names) events.on(name, (payload) => void heard.push({ name, payload }));
    return heard;
  }

  it('tells start and success with the job, the node and the duration', async () => {
    const node = await t.start();
    const heard = recorder(node.events, ['job:start', 'job:success', 'job:failure']);
    const jid = await node.enqueue('default', 'Record', [t.url, t.out('ok'), 'x']);
    await waitFor(() => heard.length === 2, 10_000, 'start and success');
    expect(heard.map((h) => h.name)).to.deep.equal(['job:start', 'job:success']);
    const nodeId = node.node.ctx.config.nodeId;
    expect(heard[0].payload).to.deep.equal({
      jid,
      queue: 'default',
      class: 'Record',
      args: [t.url, t.out('ok'), 'x'],
      nodeId,
      retryCount: 0,
    });
    const success = heard[1].payload as JobEventMap['job:success'];
    expect(success).to.include({ jid, class: 'Record', nodeId });
    expect(success.durationMs).to.be.a('number').and.at.least(0);
    // Settled before the event: the job is no longer in the backup list.
    expect(await t.redis.llen(t.keys.backup(nodeId, 'default'))).to.equal(0);
  });

  it('tells a failure, then the retry with its count and time, then the death', async () => {
    const node = await t.start({ maxRetries: 1 });
    const heard = recorder(node.events, ['job:failure', 'job:retry', 'job:dead']);
    const jid = await node.enqueue('default', 'Fail', ['kaput']);
    await waitFor(() => heard.length === 2, 10_000, 'failure and retry');
    const [failure, retry] = heard;
    expect(failure.name).to.equal('job:failure');
    expect(failure.payload).to.deep.include({
      jid,
      class: 'Fail',
      retryCount: 0,
      error: { class: 'BoomError', message: 'kaput' },
    });
    expect(retry.name).to.equal('job:retry');
    const retried = retry.payload as JobEventMap['job:retry'];
    expect(retried).to.deep.include({ jid, retryCount: 1, error: { class: 'BoomError', message: 'kaput' } });
    const [, score] = await t.redis.zrange(t.keys.retry('default'), 0, -1, 'WITHSCORES');
    expect(retried.nextRetryAt.getTime()).to.be.closeTo(Number(score) * 1000, 1);
    // Run the retry now: its second failure is its last.
    await t.redis.zadd(t.keys.retry('default'), '0', (await t.redis.zrange(t.keys.retry('default'), 0, 0))[0]);
    await waitFor(() => heard.length === 4, 10_000, 'second failure and death');
    expect(heard.slice(2).map((h) => h.name)).to.deep.equal(['job:failure', 'job:dead']);
    expect(heard[3].payload).to.deep.include({ jid, retryCount: 2, error: { class: 'BoomError', message: 'kaput' } });
    expect(await t.redis.zcard(t.keys.dead('default'))).to.equal(1);
  });

  it('tells an expired job as dead', async () => {
    const producer = await t.start({ mode: 'enqueuer' });
    await producer.enqueue('default', 'Record', [t.url, t.out('late'), 1], { ttl: 0.05 });
    await sleep(100);
    const node = await t.start();
    const heard = recorder(node.events, ['job:start', 'job:dead']);
    await waitFor(() => heard.length === 1, 10_000, 'the death');
    expect(heard[0].name).to.equal('job:dead');
    expect(heard[0].payload).to.deep.include({
      class: 'Record',
      error: { class: 'JobExpiredError', message: 'expired', code: 'JOB_EXPIRED' },
    });
  });

  it('a listener that throws or rejects breaks neither the job nor the node; off and once work', async () => {
    const node = await t.start();
    node.events.on('job:start', () => {
      throw new Error('listener bug');
    });
    node.events.on('job:success', () => Promise.reject(new Error('async listener bug')));
    let onceCalls = 0;
    node.events.once('job:success', () => {
      onceCalls++;
    });
    let offCalls = 0;
    const off = () => {
      offCalls++;
    };
    node.events.on('job:success', off).off('job:success', off);
    for (const value of [1, 2]) await node.enqueue('default', 'Record', [t.url, t.out('both'), value]);
    await t.waitForRecords(t.out('both'), 2, 10_000);
    await node.drain();
    expect(await t.redis.llen(t.keys.backup(node.node.ctx.config.nodeId, 'default'))).to.equal(0);
    expect(node.node.running).to.equal(true);
    expect(onceCalls).to.equal(1);
    expect(offCalls).to.equal(0);
    expect(node.events.listenerCount('job:success')).to.equal(1);
  });

  it('builds no payload when nobody listens', () => {
    const events = new JobEvents();
    expect(events.has('job:start')).to.equal(false);
    const listener = () => {};
    events.on('job:start', listener);
    expect(events.has('job:start')).to.equal(true);
    events.off('job:start', listener);
    expect(events.has('job:start')).to.equal(false);
  });

  it('off removes a once listener by the function given, and once calls it one time only', () => {
    const events = new JobEvents();
    let calls = 0;
    const listener = () => {
      calls++;
    };
    events.once('job:dead', listener).off('job:dead', listener);
    expect(events.has('job:dead')).to.equal(false);
    events.once('job:dead', listener);
    const payload = {
      jid: 'j',
      queue: 'q',
      class: 'C',
      args: [],
      nodeId: 'n',
      retryCount: 1,
      error: { class: 'E', message: 'm' },
    };
    events.emit('job:dead', payload);
    events.emit('job:dead', payload);
    expect(calls).to.equal(1);
    expect(events.has('job:dead')).to.equal(false);
  });
});
