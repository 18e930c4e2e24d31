// The `redis` option: Sentinel, cluster and WAIT settings are checked with clear errors, built
// from flags and environment variables, and never shown with a password.
import { expect } from 'chai';
import { mkdtempSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { configFromEnv } from '../../config/load';
import { ConfigError, resolveConfig } from '../../config/validate';
import { parseArgs } from '../../src/cli/args';
import { connectionConfig } from '../../src/cli/commands/common';
import { startConfig } from '../../src/cli/start';
import { describeTarget } from '../../src/redis/connection';

const sentinels = [
  { host: '10.0.0.1', port: 26379 },
  { host: '10.0.0.2', port: 26380 },
];
const refused = (redis: unknown) => () => resolveConfig({ redis } as never);

describe('the redis option', () => {
  it('accepts a Sentinel set-up with passwords and WAIT settings', () => {
    const redis = {
      sentinels,
      name: 'main',
      password: 'pw-1',
      sentinelPassword: 'pw-2',
      waitReplicas: 1,
      waitTimeout: 500,
    };
    expect(resolveConfig({ redis }).redis).to.deep.equal(redis);
  });

  it('says which Sentinel field is wrong and what it expects', () => {
    expect(refused({ sentinels })).to.throw(ConfigError, /redis\.name must be the master group name/);
    expect(refused({ name: 'main' })).to.throw(ConfigError, /redis\.name must be absent without redis\.sentinels/);
    expect(refused({ sentinels: [], name: 'main' })).to.throw(
      ConfigError,
      /redis\.sentinels must be a non-empty array of \{ host, port \}/,
    );
    expect(refused({ sentinels: [{ host: 'h', port: 70000 }], name: 'm' })).to.throw(
      ConfigError,
      /redis\.sentinels\[0\]\.port must be a port number/,
    );
    expect(refused({ sentinels: [{ port: 1 }], name: 'm' })).to.throw(
      ConfigError,
      /redis\.sentinels\[0\]\.host must be/,
    );
    expect(refused({ sentinels, name: 'm', url: 'redis://h' })).to.throw(
      ConfigError,
      /redis must be at most one of url, sentinels and cluster/,
    );
  });

  it('checks waitReplicas and waitTimeout', () => {
    expect(refused({ waitReplicas: -1 })).to.throw(ConfigError, /redis\.waitReplicas must be an integer >= 0/);
    expect(refused({ waitReplicas: 1, waitTimeout: 0 })).to.throw(
      ConfigError,
      /redis\.waitTimeout must be an integer from 1 to 9000/,
    );
    expect(refused({ waitTimeout: 60_000 })).to.throw(ConfigError, /waitTimeout/);
  });

  it('checks cluster seeds, and picks the key layout from the namespace in cluster mode', () => {
    const cluster = [{ host: 'h', port: 7000 }];
    expect(refused({ cluster: [{ host: 'h' }] })).to.throw(ConfigError, /redis\.cluster\[0\]\.port/);
    expect(refused({ cluster, db: 2 })).to.throw(ConfigError, /redis\.db must be 0 with redis\.cluster/);
    // A tagged namespace: every key in that tag's slot, Exq's names kept.
    for (const namespace of ['{exq}', 'app:{jobs}', '{t}1'])
      expect(resolveConfig({ redis: { cluster }, namespace })).to.include({ namespace, keyLayout: 'shared' });
    // An untagged one: each queue in a slot of its own.
    expect(resolveConfig({ redis: { cluster }, namespace: 'exq' }).keyLayout).to.equal('per-queue');
    for (const namespace of ['', '{}exq', 'exq{', 'a}b{']) {
      expect(() => resolveConfig({ redis: { cluster }, namespace }), namespace).to.throw(
        ConfigError,
        /namespace must be a non-empty namespace without braces with the per-queue key layout/,
      );
    }
    expect(() => resolveConfig({ redis: { cluster }, namespace: 'exq', keyLayout: 'shared' })).to.throw(
      ConfigError,
      /namespace must be a namespace with a hash tag, like "\{exq\}", with redis\.cluster and keyLayout "shared".*Sidekiq's '' namespace/,
    );
    expect(resolveConfig({ redis: 'redis://h', namespace: 'exq' }).keyLayout).to.equal('shared'); // no cluster: Exq's layout
    expect(resolveConfig({ redis: 'redis://h', namespace: 'exq', keyLayout: 'per-queue' }).keyLayout).to.equal(
      'per-queue',
    );
  });

  it('refuses what the per-queue key layout cannot do: class limits, braces in queue names', () => {
    const perQueue = { redis: 'redis://h', namespace: 'exq', keyLayout: 'per-queue' as const };
    expect(() => resolveConfig({ ...perQueue, classConcurrency: { Report: 1 } })).to.throw(
      ConfigError,
      /classConcurrency must be no class limits with the per-queue key layout/,
    );
    expect(() => resolveConfig({ ...perQueue, queues: ['a', 'b{1}'] })).to.throw(
      ConfigError,
      /queues must be queue names without braces/,
    );
    expect(() => resolveConfig({ ...perQueue, periodic: [{ cron: '@daily', queue: 'x}', class: 'C' }] })).to.throw(
      ConfigError,
      /queues must be queue names without braces/,
    );
    expect(() => resolveConfig({ ...perQueue, keyLayout: 'sideways' as never })).to.throw(
      ConfigError,
      /keyLayout must be one of auto, shared, per-queue/,
    );
  });

  it('never shows a password in an error or in the target it logs', () => {
    for (const bad of [
      { url: 'http://:pw-9@h' },
      { password: 42, url: 'redis://:pw-9@h' },
      { sentinels, name: 'm', sentinelPassword: 7 },
    ]) {
      expect(refused(bad))
        .to.throw(ConfigError)
        .that.satisfies((e: Error) => !e.message.includes('pw-9'));
    }
    const shown = describeTarget({ sentinels, name: 'main', password: 'pw-9', sentinelPassword: 'pw-9' });
    expect(shown).to.equal('sentinel master "main" via 10.0.0.1:26379,10.0.0.2:26380, db 0');
    expect(describeTarget({ url: 'redis://u:pw-9@h:1/2', waitReplicas: 1 })).to.not.include('pw-9');
    expect(describeTarget({ cluster: [{ host: 'h', port: 7000 }], password: 'pw-9' })).to.equal('cluster via h:7000');
  });

  it('builds Sentinel options from flags, with passwords from the environment', () => {
    const args = parseArgs(
      [
        '--redis-sentinels',
        '10.0.0.1:26379, 10.0.0.2:26380',
        '--redis-sentinel-name',
        'main',
        '--redis-wait-replicas',
        '1',
      ],
      new Set(),
    );
    const config = startConfig(args, {
      REDIS_URL: 'redis://ignored:1',
      NEXQ_REDIS_PASSWORD: 'pw-1',
      NEXQ_REDIS_SENTINEL_PASSWORD: 'pw-2',
    });
    expect(config.redis).to.deep.equal({
      sentinels,
      name: 'main',
      waitReplicas: 1,
      password: 'pw-1',
      sentinelPassword: 'pw-2',
    });
    expect(resolveConfig(config).redis).to.deep.equal(config.redis);
  });

  it('builds them from the environment, and completes a config file rather than replacing it', () => {
    expect(
      configFromEnv({ NEXQ_REDIS_SENTINELS: '10.0.0.1:26379,10.0.0.2:26380', NEXQ_REDIS_SENTINEL_NAME: 'main' }).redis,
    ).to.deep.equal({ sentinels, name: 'main' });
    const dir = mkdtempSync(path.join(os.tmpdir(), 'nexq-config-'));
    const file = path.join(dir, 'nexq.json');
    writeFileSync(file, JSON.stringify({ redis: { sentinels, name: 'main' } }));
    const config = connectionConfig(parseArgs(['--config', file], new Set()), { NEXQ_REDIS_WAIT_REPLICAS: '2' });
    expect(config.redis).to.deep.equal({ sentinels, name: 'main', waitReplicas: 2 });
    const withUrl = connectionConfig(
      parseArgs(['--redis', 'redis://h:1', '--redis-wait-replicas', '1'], new Set()),
      {},
    );
    expect(withUrl.redis).to.deep.equal({ url: 'redis://h:1', waitReplicas: 1 });
  });

  it('reads cluster seeds as host:port or URLs, taking credentials from a URL', () => {
    const args = parseArgs(
      ['--redis-cluster', 'redis://app:pw-3@10.0.0.1:7000,10.0.0.2:7001', '--namespace', '{exq}'],
      new Set(),
    );
    expect(
      resolveConfig(startConfig(parseArgs(['--redis-cluster', '10.0.0.1:7000'], new Set()), {})).keyLayout,
    ).to.equal('per-queue');
    expect(startConfig(args, {}).redis).to.deep.equal({
      cluster: [
        { host: '10.0.0.1', port: 7000 },
        { host: '10.0.0.2', port: 7001 },
      ],
      username: 'app',
      password: 'pw-3',
    });
  });

  it('refuses flags that do not fit together, naming them', () => {
    const start =
      (argv: string[], env = {}) =>
      () =>
        startConfig(parseArgs(argv, new Set()), env);
    expect(start(['--redis-sentinels', 'h:1'])).to.throw(
      ConfigError,
      /--redis-sentinel-name must be given with --redis-sentinels/,
    );
    expect(start(['--redis', 'redis://h', '--redis-cluster', 'h:1'])).to.throw(
      ConfigError,
      /--redis \+ --redis-cluster must be only one of/,
    );
    expect(start(['--redis-sentinels', 'h', '--redis-sentinel-name', 'm'])).to.throw(
      ConfigError,
      /--redis-sentinels must be a list like host:port/,
    );
    expect(start(['--redis-wait-replicas', 'one'])).to.throw(
      ConfigError,
      /--redis-wait-replicas must be a whole number/,
    );
    expect(start([], { NEXQ_REDIS_SENTINEL_NAME: 'm' })).to.throw(
      ConfigError,
      /NEXQ_REDIS_SENTINELS must be given with NEXQ_REDIS_SENTINEL_NAME/,
    );
  });
});
