// Jobs a Sidekiq or Exq producer left under another namespace than the node's are named once, in
// one line with the option to set, by the node at start and by `nexq stats`.
import { expect } from 'chai';
import Redis from 'ioredis';
import { describeElsewhere, parseQueueKey } from '../../src/redis/other-namespaces';
import { captureLogs } from '../support/capture-logs';
import { cliAgainst } from '../support/cli';
import { useNodes, waitFor } from '../support/node';
import { RedisServer } from '../support/redis-server';

describe('jobs under another namespace', () => {
  const t = useNodes();

  it('reads a queue list key as its namespace and queue, and no other key', () => {
    expect(parseQueueKey('queue:default')).to.deep.equal({ namespace: '', queue: 'default' });
    expect(parseQueueKey('exq:queue:mail')).to.deep.equal({ namespace: 'exq', queue: 'mail' });
    expect(parseQueueKey('my:app:queue:low')).to.deep.equal({ namespace: 'my:app', queue: 'low' });
    expect(parseQueueKey('exq:queue:backup::node-1::mail')).to.equal(undefined);
    expect(parseQueueKey('{exq}:queue:{mail}')).to.equal(undefined);
    expect(parseQueueKey('exq:queues')).to.equal(undefined);
    // Where a clear of this namespace's queue takes its jobs (a clear cut off leaves them there).
    expect(parseQueueKey(t.keys.clearing(t.keys.queue('mail')))).to.equal(undefined);
  });

  it('a node names them once, in one line with the option to set, for the queues it serves', async () => {
    const queue = `elsewhere-${t.ns}`;
    const job = (q: string) => JSON.stringify({ class: 'Record', args: [], jid: 'j', queue: q });
    await t.redis.lpush(`queue:${queue}`, job(queue), job(queue));
    await t.redis.lpush(`exq:queue:${queue}`, job(queue));
    await t.redis.lpush('exq:queue:not-served-here', job('not-served-here'));
    // Another app on this Redis, whose own node is alive: its jobs are not ours to name.
    await t.redis.lpush(`other-app:queue:${queue}`, job(queue));
    await t.redis.sadd('other-app:processes', 'host:1:x');
    await t.redis.hset('other-app:host:1:x', 'info', '{}');
    try {
      const logs = captureLogs('pretty');
      await t.start({ queues: [queue], logger: logs.logger });
      const line = await waitFor(
        () =>
          logs
            .text()
            .split('\n')
            .find((l) => l.includes('another namespace')),
        5000,
      );
      expect(line).to.match(
        new RegExp(
          `warn  \\[node\\] jobs wait under another namespace than "${t.ns}": 2 in queue:${queue}, 1 in exq:queue:${queue}; ` +
            `to run or see them set the namespace option \\(NEXQ_NAMESPACE, --namespace\\) to "" \\(Sidekiq's layout, ` +
            `no namespace\\) or "exq" \\(Exq's default\\)$`,
        ),
      );
      expect(line).not.to.include('not-served-here');
      expect(logs.text().match(/another namespace/g)).to.have.length(1);
    } finally {
      await t.redis.del(
        `queue:${queue}`,
        `exq:queue:${queue}`,
        'exq:queue:not-served-here',
        `other-app:queue:${queue}`,
      );
      await t.redis.del('other-app:processes', 'other-app:host:1:x');
    }
  });

  it('names the three largest lists and namespaces, and counts the rest', () => {
    const found = [1, 5, 2, 9, 3].map((size, i) => ({ namespace: `app${i}`, queue: 'default', size }));
    expect(describeElsewhere(found, 'exq', '--namespace')).to.equal(
      'jobs wait under another namespace than "exq": 9 in app3:queue:default, 5 in app1:queue:default, ' +
        '3 in app4:queue:default, 2 more list(s); to run or see them set --namespace to "app3" or "app1" or "app4" ' +
        '(or one of 2 more)',
    );
  });

  it('nexq stats names them too, in its table and its JSON', async function () {
    this.timeout(30_000);
    const server = await RedisServer.start();
    const redis = new Redis(server.url);
    try {
      await redis.lpush('queue:default', '{"class":"HardWorker","args":[],"jid":"a","queue":"default"}');
      const { ok, json } = cliAgainst(() => ({ url: server.url, ns: 'exq' }));
      const text = await ok(['stats']);
      expect(text.trim().split('\n').at(-1)).to.equal(
        `jobs wait under another namespace than "exq": 1 in queue:default; to run or see them set --namespace ` +
          `(NEXQ_NAMESPACE) to "" (Sidekiq's layout, no namespace)`,
      );
      expect((await json(['stats'])).otherNamespaces).to.deep.equal([{ namespace: '', queue: 'default', size: 1 }]);
    } finally {
      redis.disconnect();
      await server.stop();
    }
  });
});
