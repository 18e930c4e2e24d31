// A node's stop is bounded by one deadline for its Redis steps (src/node/stop-deadline.ts): with
// its Redis gone (killed, or frozen with SIGSTOP) it still stops, saying once what it left in
// Redis and where its jobs wait, well before the steps' own command timeouts (10 s each, one after
// another: 40 s before the deadline). With Redis up, the stop still removes the process entry,
// leaves the node list and gives the node id back. The bound is an upper limit that shows the stop
// ends by its deadline, not a claim about its speed.
import { expect } from 'chai';
import { captureLogs } from '../support/capture-logs';
import { useNodes, waitFor } from '../support/node';
import { RedisServer } from '../support/redis-server';

const SHUTDOWN_TIMEOUT = 3000;
/** Three shutdown timeouts: the deadline is one and 3 s; a step's own command timeout alone is 10 s. */
const STOP_BOUND_MS = 3 * SHUTDOWN_TIMEOUT;

describe('stopping a node', function () {
  this.timeout(60_000);
  // Its own server, which the tests kill and freeze: started before the hooks of useNodes read its url.
  let server: RedisServer | undefined;
  before(async () => {
    server = await RedisServer.start();
  });
  after(async () => {
    await server?.stop();
  });
  const t = useNodes({ url: () => server!.url });

  async function stopWithRedisGone(gone: (server: RedisServer) => Promise<void>) {
    const logs = captureLogs();
    const node = await t.start({ shutdownTimeout: SHUTDOWN_TIMEOUT, logger: logs.logger });
    const { nodeId } = node.node.ctx.config;
    t.redis.on('error', () => {}); // the test's own client, while its Redis is gone
    await gone(server!);
    const stopped = t.stop(node).then(() => 'stopped' as const);
    const bound = new Promise<'still stopping'>((resolve) =>
      setTimeout(() => resolve('still stopping'), STOP_BOUND_MS).unref(),
    );
    const outcome = await Promise.race([stopped, bound]);
    // Redis back, for the hooks' own clients.
    server!.freeze(false);
    await server!.launch();
    expect(outcome, `stop within ${STOP_BOUND_MS} ms`).to.equal('stopped');
    return { text: logs.text(), nodeId };
  }

  for (const [how, gone] of [
    ['killed', (s: RedisServer) => s.kill9()],
    [
      'frozen (SIGSTOP)',
      (s: RedisServer) => {
        s.freeze(true);
        return Promise.resolve();
      },
    ],
  ] as const) {
    it(`whose Redis was ${how} ends within its bound, saying once where its jobs wait`, async () => {
      const { text, nodeId } = await stopWithRedisGone(gone);
      const said = text.split('\n').filter((line) => line.includes('did not answer the stop'));
      expect(said, 'the one line about what the stop left in Redis').to.have.length(1);
      expect(said[0]).to.include(`backup::${nodeId}::`).and.to.include('another node runs them again');
      expect(text).to.include('node stopped');
      // Each step skipped is in that one line, not a line of its own.
      expect(text).not.to.include('leaving the node list failed');
      expect(text).not.to.include('giving back node id');
    });
  }

  it('with Redis up removes the process entry, leaves the node list and gives the node id back', async () => {
    const node = await t.start({ shutdownTimeout: SHUTDOWN_TIMEOUT });
    const { identity, config } = node.node.ctx;
    await waitFor(
      async () =>
        (await t.redis.sismember(t.keys.processes, identity)) === 1 &&
        (await t.redis.zscore(t.keys.nodes, config.nodeId)) !== null,
      5000,
      'the first beat: the process entry and the node list',
    );
    expect(await t.redis.exists(t.keys.nodeClaim(config.nodeId)), 'its claim on the node id').to.equal(1);
    await t.stop(node);
    expect(await t.redis.sismember(t.keys.processes, identity)).to.equal(0);
    expect(await t.redis.exists(t.keys.process(identity))).to.equal(0);
    expect(await t.redis.zscore(t.keys.nodes, config.nodeId)).to.equal(null);
    expect(await t.redis.hexists(t.keys.nodeIdentities, config.nodeId)).to.equal(0);
    expect(await t.redis.exists(t.keys.nodeClaim(config.nodeId))).to.equal(0);
  });
});
