// Nexq.start reads the environment as nexq start does (REDIS_URL, every NEXQ_ variable), under the
// options it is given, and its log says where the Redis address came from, never with a password.
import { expect } from 'chai';
import { ConfigError } from '../../config/config-error';
import { redisSource } from '../../config/load';
import { resolveConfig } from '../../config/validate';
import { RedisUnreachableError } from '../../src/redis/ended';
import { Nexq } from '../../src/nexq';
import { captureLogs } from '../support/capture-logs';
import { useNodes, waitFor } from '../support/node';

describe('Nexq.start and the environment', () => {
  const t = useNodes();
  const started: Nexq[] = [];
  afterEach(async () => {
    for (const nexq of started.splice(0)) await nexq.stop();
  });

  async function start(options: Parameters<typeof Nexq.start>[0]): Promise<Nexq> {
    const nexq = await Nexq.start({ threads: 1, ...options });
    started.push(nexq);
    return nexq;
  }

  it('takes REDIS_URL and NEXQ_ variables when no option says otherwise, and logs where Redis came from', async () => {
    const logs = captureLogs('pretty');
    const nexq = await start({
      logger: logs.logger,
      environment: { REDIS_URL: t.url, NEXQ_NAMESPACE: t.ns, NEXQ_QUEUES: 'mail:3,default', NEXQ_CONCURRENCY: '4' },
    });
    expect(nexq.node.ctx.config.namespace).to.equal(t.ns);
    expect(await nexq.subscriptions()).to.deep.equal([
      { name: 'mail', concurrency: 3 },
      { name: 'default', concurrency: 4 },
    ]);
    expect(logs.text()).to.include(`redis ${t.url} (from REDIS_URL)`);
  });

  it('lets the options given win over the environment, option by option', async () => {
    const logs = captureLogs('pretty');
    const nexq = await start({
      redis: t.url,
      namespace: t.ns,
      mode: 'enqueuer',
      logger: logs.logger,
      environment: { REDIS_URL: 'redis://127.0.0.1:1', NEXQ_NAMESPACE: 'not-this-one', NEXQ_SHUTDOWN_TIMEOUT: '1234' },
    });
    expect(nexq.node.ctx.config).to.deep.include({ namespace: t.ns, shutdownTimeout: 1234 });
    expect(logs.text()).to.include(`redis ${t.url} (from Nexq.start options)`);
  });

  it('names the options as the source with the environment turned off too', async () => {
    const logs = captureLogs('pretty');
    await start({ redis: t.url, namespace: t.ns, mode: 'enqueuer', logger: logs.logger, environment: false });
    expect(logs.text()).to.include(`redis ${t.url} (from Nexq.start options)`);
    const err = await start({ redis: t.url, concurrency: 0, environment: false }).catch((e: unknown) => e);
    expect((err as Error).message).to.include('concurrency (from Nexq.start options)');
  });

  it('names the variable of a bad value, and warns of a NEXQ_ variable no option reads', async () => {
    const err = await start({ environment: { REDIS_URL: t.url, NEXQ_CONCURRENCY: '0' } }).catch((e: unknown) => e);
    expect(err).to.be.instanceOf(ConfigError);
    expect((err as Error).message).to.include('concurrency (from NEXQ_CONCURRENCY)');
    const logs = captureLogs('pretty');
    await start({ mode: 'enqueuer', logger: logs.logger, environment: { REDIS_URL: t.url, NEXQ_CONCURENCY: '5' } });
    expect(logs.text()).to.include(
      'NEXQ_CONCURENCY is not a nexq setting and is ignored; did you mean NEXQ_CONCURRENCY?',
    );
  });

  it('says where an unreachable address came from, without its password', async () => {
    const err = await start({
      mode: 'enqueuer',
      redisStartTimeout: 300,
      logger: captureLogs().logger,
      environment: { REDIS_URL: 'redis://:s3cret@127.0.0.1:1' },
    }).catch((e: unknown) => e as Error);
    expect((err as Error).message).to.match(
      /^cannot reach Redis at redis:\/\/\S+@127\.0\.0\.1:1\S* \(from REDIS_URL\) within 0\.3 s/,
    );
    expect((err as Error).message).not.to.include('s3cret');
  });

  it('reads no variable with environment: false', async () => {
    const nexq = await start({
      redis: t.url,
      namespace: t.ns,
      mode: 'enqueuer',
      environment: false,
      logger: captureLogs().logger,
    });
    expect(nexq.node.ctx.config.shutdownTimeout).to.equal(5000);
    expect(redisSource({})).to.equal('the default: no redis option, REDIS_URL or NEXQ_REDIS_* set');
  });
});

describe('Nexq.start and an unreachable Redis', () => {
  it('gives up after redisStartTimeout, 30 s by default, saying so after 2 s', async function () {
    this.timeout(15_000);
    expect(resolveConfig({}).redisStartTimeout).to.equal(30_000);
    const logs = captureLogs('pretty');
    const starting = Nexq.start({
      redis: 'redis://127.0.0.1:1',
      mode: 'enqueuer',
      logger: logs.logger,
      environment: {},
    });
    starting.catch(() => {}); // rejected 30 s from now, after this test
    await waitFor(() => logs.text().includes('still trying'), 10_000, 'the still-trying line');
    expect(logs.text()).to.include(
      'cannot reach Redis at redis://127.0.0.1:1 (from Nexq.start options) (connect ECONNREFUSED 127.0.0.1:1); ' +
        'still trying, for up to 30 s (redisStartTimeout)',
    );
    const err = await Nexq.start({
      mode: 'enqueuer',
      logger: logs.logger,
      environment: { REDIS_URL: 'redis://127.0.0.1:1', NEXQ_REDIS_START_TIMEOUT: '400' },
    }).catch((e: unknown) => e);
    expect(err).to.be.instanceOf(RedisUnreachableError);
    expect((err as Error).message).to.match(/\(from REDIS_URL\) within 0\.4 s \(connect ECONNREFUSED/);
  });
});
