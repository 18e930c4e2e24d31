// The admin commands that act on many jobs or on processes (kill, clear, retry --all --dead,
// quiet, stop) and the checks on what they are given, each a real `nexq` process on the test Redis.
import { expect } from 'chai';
import { cliAgainst } from '../support/cli';
import { useNodes, waitFor } from '../support/node';

describe('nexq kill, clear, quiet, stop', () => {
  const t = useNodes();

  const { cli, ok, json } = cliAgainst(() => t);

  /** Puts `count` failed jobs in the retry set, as a node files them. */
  async function retrying(count: number): Promise<string[]> {
    const node = await t.start({ mode: 'enqueuer' });
    const jids: string[] = [];
    for (let i = 0; i < count; i++) jids.push(await node.enqueue('default', 'Fail', [`r${i}`], { retry: 5 }));
    const worker = await t.start();
    await waitFor(async () => (await t.redis.zcard(t.keys.retry('default'))) === count, 10_000, 'the retries');
    await t.stop(worker);
    return jids;
  }

  it('kill moves a job from the retry set to the dead set, where show finds it; kill --all the rest', async () => {
    const [first, ...rest] = await retrying(3);
    expect(await json(['kill', first])).to.deep.equal({ count: 1, jobs: [{ jid: first, from: 'retry', to: 'dead' }] });
    expect(await t.redis.zcard(t.keys.retry('default'))).to.equal(2);
    expect((await json(['show', first])).state).to.equal('dead');
    expect((await json(['dead'])).map((j: { jid: string }) => j.jid)).to.deep.equal([first]);
    const again = await cli(['kill', first]);
    expect(again.status).to.equal(1);
    expect(again.stderr).to.equal(`nexq: no job ${first} in the retry set\n`);
    expect((await ok(['kill', '--all'])).trim()).to.equal('2 job(s) moved to the dead set');
    expect(await t.redis.zcard(t.keys.retry('default'))).to.equal(0);
    expect((await json(['dead', '--limit', '0'])).map((j: { jid: string }) => j.jid).sort()).to.deep.equal(
      [first, ...rest].sort(),
    );
    // retry --all --dead takes the whole dead set back to its queue.
    expect((await json(['retry', '--all', '--dead'])).count).to.equal(3);
    expect(await t.redis.llen(t.keys.queue('default'))).to.equal(3);
    expect(await t.redis.zcard(t.keys.dead('default'))).to.equal(0);
  });

  it('--limit 0 lists every job, not none', async () => {
    for (let i = 0; i < 60; i++)
      await t.redis.zadd(
        t.keys.dead('default'),
        i,
        JSON.stringify({ jid: `d${i}`, class: 'X', args: [], queue: 'default' }),
      );
    expect(await json(['dead'])).to.have.length(50);
    expect(await json(['dead', '--limit', '0'])).to.have.length(60);
  });

  it('clear empties a queue or a set with --yes, refuses without it when stdin is no terminal', async () => {
    const producer = await t.start({ mode: 'enqueuer' });
    const keep = await producer.enqueue('mail', 'Keep', []);
    for (let i = 0; i < 4; i++) await producer.enqueue('default', 'Gone', [i]);
    const unique = await producer.enqueue('default', 'Once', [], { unique: { for: 3600, key: 'only-one' } });
    const refused = await cli(['clear', 'default']);
    expect(refused.status).to.equal(2);
    expect(refused.stderr).to.equal('nexq: clearing queue default needs --yes when stdin is not a terminal\n');
    expect(await t.redis.llen(t.keys.queue('default'))).to.equal(5);
    expect(await json(['clear', 'default', '--yes'])).to.deep.equal({ count: 5, queue: 'default' });
    expect(await t.redis.llen(t.keys.queue('default'))).to.equal(0);
    expect(await t.redis.llen(t.keys.queue('mail'))).to.equal(1);
    // Forgotten by the index, and the unique lock let go: the same job can be enqueued again.
    expect(await producer.show(unique)).to.equal(undefined);
    expect((await producer.show(keep))?.state).to.equal('queued');
    const again = await producer.enqueueResult('default', 'Once', [], {
      unique: { for: 3600, key: 'only-one' },
    });
    expect(again.conflict).to.not.equal(true);
    expect(again.jid).not.to.equal(unique);
    await producer.enqueueIn('default', 600, 'Later', []);
    expect((await ok(['clear', '--set', 'schedule', '--yes'])).trim()).to.equal(
      '1 job(s) removed from the schedule set',
    );
    expect(await t.redis.zcard(t.keys.schedule('default'))).to.equal(0);
    const unknown = await cli(['clear', 'nosuchqueue', '--yes']);
    expect(unknown.status).to.equal(1);
    expect(unknown.stderr).to.match(/^nexq: unknown queue "nosuchqueue" \(known: default, mail; see nexq queues\)\n$/);
    const badSet = await cli(['clear', '--set', 'done', '--yes']);
    expect(badSet.status).to.equal(2);
    expect(badSet.stderr).to.equal('nexq: --set must be one of schedule, retry, dead, got "done"\n');
  });

  it('jobs on an unknown queue is an error naming it, not "(none)"', async () => {
    await ok(['enqueue', 'default', 'A']);
    const result = await cli(['jobs', 'nosuchqueue']);
    expect(result.status).to.equal(1);
    expect(result.stdout).to.equal('');
    expect(result.stderr).to.equal('nexq: unknown queue "nosuchqueue" (known: default; see nexq queues)\n');
    // A known queue that is empty is listed as empty.
    await t.redis.del(t.keys.queue('default'));
    expect(await ok(['jobs', 'default'])).to.equal('(none)\n');
  });

  it('quiet and stop signal a live node through Redis, as Sidekiq does', async () => {
    const node = await t.start({ heartbeatInterval: 1 });
    await waitFor(async () => (await t.redis.scard(t.keys.processes)) === 1, 10_000, 'the process entry');
    const [identity] = await t.redis.smembers(t.keys.processes);
    expect(await json(['quiet', identity])).to.deep.equal({ count: 1, signal: 'TSTP', processes: [identity] });
    await waitFor(async () => (await json(['processes']))[0]?.quiet === true, 10_000, 'the node to go quiet');
    const unknown = await cli(['stop', 'no-such-process']);
    expect(unknown.status).to.equal(1);
    expect(unknown.stderr).to.equal('nexq: no live process "no-such-process" (see nexq processes)\n');
    expect((await ok(['stop', '--all'])).trim()).to.equal('TERM sent to 1 process(es)');
    await node.node.stopped;
    expect(node.node.running).to.equal(false);
  });
});
