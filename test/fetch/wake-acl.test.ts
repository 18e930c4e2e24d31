// A Redis user whose ACL allows nexq's channels but not `__redis__:invalidate` (Redis 7 gives a new
// user no channels): the wake signals still arrive, without key tracking. The subscriber asks for
// the invalidations in a SUBSCRIBE of their own, since Redis refuses a whole SUBSCRIBE when one of
// its channels is not allowed.
import { expect } from 'chai';
import { randomUUID } from 'node:crypto';
import { useNodes, waitFor } from '../support/node';

describe('wake signals under an ACL that allows only nexq channels', () => {
  const t = useNodes();

  it('still wake the idle node: a job enqueued starts though the idle poll is an hour apart', async () => {
    const user = `nexq-acl-${randomUUID().slice(0, 8)}`;
    const password = randomUUID();
    const channels = [t.keys.wakeChannel, t.keys.cancelChannel].map((c) => `&${c}`);
    await t.redis.acl('SETUSER', user, 'on', `>${password}`, '~*', 'resetchannels', ...channels, '+@all');
    const url = new URL(t.url);
    url.username = user;
    url.password = password;
    try {
      // Two queues: a node of one waits with its fetch sent ahead, not on signals.
      const node = await t.start({
        redis: url.toString(),
        pollTimeout: 3_600_000,
        idlePollInterval: 3_600_000,
        queues: ['default', 'spare'],
      });
      await waitFor(
        async () => ((await t.redis.pubsub('NUMSUB', t.keys.wakeChannel)) as [string, number])[1] >= 1,
        5000,
        'the wake subscriber',
      );
      await node.enqueue('default', 'Record', [t.url, t.out('acl'), 1]);
      const [ran] = await t.waitForRecords(t.out('acl'), 1, 10_000);
      expect(ran.value).to.equal(1);
      await node.stop();
    } finally {
      await t.redis.acl('DELUSER', user);
    }
  });
});
