import { expect } from 'chai';
import { mkdtempSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { configFromEnv, parseQueueList } from '../../config/load';
import { readConfigFile } from '../../config/config-file';
import { ConfigError, resolveConfig } from '../../config/validate';
import { parseArgs } from '../../src/cli/args';
import { startConfig } from '../../src/cli/start';

describe('config loading', () => {
  it('reads REDIS_URL and NEXQ_* variables into typed options', () => {
    const config = configFromEnv({
      REDIS_URL: 'redis://h:1',
      NEXQ_NAMESPACE: '',
      NEXQ_QUEUES: 'default:10,mail',
      NEXQ_CONCURRENCY: '7',
    });
    expect(config).to.deep.equal({
      redis: 'redis://h:1',
      namespace: '',
      queues: [{ name: 'default', concurrency: 10 }, { name: 'mail' }],
      concurrency: 7,
    });
  });

  it('gives queues without a count the default concurrency', () => {
    const resolved = resolveConfig({ queues: parseQueueList('a:3,b', 'q'), concurrency: 4 });
    expect(resolved.queues).to.deep.equal([
      { name: 'a', concurrency: 3 },
      { name: 'b', concurrency: 4 },
    ]);
  });

  it('layers defaults < file < environment < flags', () => {
    const dir = mkdtempSync(path.join(os.tmpdir(), 'nexq-config-'));
    const file = path.join(dir, 'nexq.json');
    writeFileSync(file, JSON.stringify({ namespace: 'from-file', concurrency: 3, nodeId: 'file-node' }));
    const args = parseArgs(['--config', file, '--node-id', 'flag-node'], new Set());
    const config = startConfig(args, { NEXQ_CONCURRENCY: '5' });
    expect(config).to.include({ namespace: 'from-file', concurrency: 5, nodeId: 'flag-node' });
  });

  it('names the file and the problem when the config file is not JSON', () => {
    const dir = mkdtempSync(path.join(os.tmpdir(), 'nexq-config-'));
    const file = path.join(dir, 'bad.json');
    writeFileSync(file, '{ nope');
    expect(() => readConfigFile(file)).to.throw(ConfigError, /--config must be valid JSON.*bad\.json/);
  });

  it('uses the Sidekiq dialect with the empty namespace unless told otherwise', () => {
    expect(resolveConfig({ namespace: '' }).dialect).to.equal('sidekiq');
    expect(resolveConfig({ namespace: '', dialect: 'exq' }).dialect).to.equal('exq');
    expect(resolveConfig({}).dialect).to.equal('exq');
  });

  it('refuses unknown keys and bad values, naming the key', () => {
    expect(() => resolveConfig({ concurency: 3 } as never)).to.throw(
      ConfigError,
      /^invalid config: concurency is not an option; did you mean concurrency\?$/,
    );
    // Nothing close: the options, listed.
    expect(() => resolveConfig({ colour: 'blue' } as never)).to.throw(
      ConfigError,
      /^invalid config: colour is not an option; the options are redis, namespace, queues, .*, web, encryptionKeys$/,
    );
    expect(() => resolveConfig({ concurrency: 0 })).to.throw(ConfigError, /concurrency must be an integer >= 1/);
    expect(() => resolveConfig({ queues: ['a', 'a'] })).to.throw(
      ConfigError,
      /queues must be a list without repeated names/,
    );
    expect(() => resolveConfig({ logLevel: 'loud' as never })).to.throw(ConfigError, /logLevel must be one of/);
  });

  it('never shows the Redis URL (it may hold a password) in a config error', () => {
    expect(() => resolveConfig({ redis: 'http://:pw-123@host' }))
      .to.throw(ConfigError)
      .that.satisfies((e: Error) => !e.message.includes('pw-123'));
  });
});
