// Config files in YAML or JSON, every option from the environment, and one message naming the bad
// key and where its value came from, whichever layer set it.
import { expect } from 'chai';
import { mkdtempSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { defaults } from '../../config/defaults';
import { envName, fileAndEnv, layerFromEnv, unknownEnvWarnings, validateLayers } from '../../config/load';
import { readConfigFile } from '../../config/config-file';
import { ConfigError, resolveConfig } from '../../config/validate';
import { parseArgs } from '../../src/cli/args';
import { connectionConfig } from '../../src/cli/commands/common';
import { startConfig } from '../../src/cli/start';

function tempFile(name: string, text: string): string {
  const file = path.join(mkdtempSync(path.join(os.tmpdir(), 'nexq-config-')), name);
  writeFileSync(file, text);
  return file;
}

const start = (argv: string[], env: NodeJS.ProcessEnv = {}) => startConfig(parseArgs(argv, new Set()), env);

describe('config files and the environment', () => {
  it('reads a YAML file (.yaml and .yml) into the same options as JSON', () => {
    const yaml = `
namespace: from-yaml
concurrency: 4
queues:
  - default
  - { name: mail, concurrency: 2, globalConcurrency: 5 }
periodic:
  - cron: "*/5 * * * *"
    queue: default
    class: Report
    args: [eu, 1]
metrics: { port: 9400, host: 0.0.0.0 }
`;
    const expected = {
      namespace: 'from-yaml',
      concurrency: 4,
      queues: ['default', { name: 'mail', concurrency: 2, globalConcurrency: 5 }],
      periodic: [{ cron: '*/5 * * * *', queue: 'default', class: 'Report', args: ['eu', 1] }],
      metrics: { port: 9400, host: '0.0.0.0' },
    };
    expect(readConfigFile(tempFile('nexq.yaml', yaml))).to.deep.equal(expected);
    expect(readConfigFile(tempFile('nexq.yml', yaml))).to.deep.equal(expected);
    expect(readConfigFile(tempFile('nexq.json', JSON.stringify(expected)))).to.deep.equal(expected);
    expect(start(['--config', tempFile('nexq.yml', yaml)])).to.deep.include({ namespace: 'from-yaml', concurrency: 4 });
  });

  it('names the file, line and column of invalid YAML, on one line', () => {
    const file = tempFile('bad.yaml', 'namespace: a\nqueues: [default,\nconcurrency: 3\n');
    expect(() => readConfigFile(file))
      .to.throw(ConfigError)
      .that.satisfies((e: Error) => {
        expect(e.message).to.match(
          /^invalid config: --config must be valid YAML \(got ".*bad\.yaml line \d+, column \d+: [^"]+"\)$/,
        );
        return !e.message.includes('\n');
      });
    const duplicate = tempFile('dup.yml', 'namespace: a\nnamespace: b\n');
    expect(() => readConfigFile(duplicate)).to.throw(ConfigError, /dup\.yml line 2, column 1: Map keys must be unique/);
    expect(() => readConfigFile(tempFile('list.yaml', '- a\n- b\n'))).to.throw(
      ConfigError,
      /--config must be a YAML object of options/,
    );
    expect(() => readConfigFile(tempFile('empty.yaml', ''))).to.throw(
      ConfigError,
      /--config must be a YAML object of options/,
    );
  });

  it('lets the environment set every option', () => {
    const special: Record<string, NodeJS.ProcessEnv> = {
      redis: { REDIS_URL: 'redis://envhost:1' },
      queues: { NEXQ_QUEUES: 'a:2,b' },
      jobs: { NEXQ_JOBS: '{"Foo":"./foo.js"}' },
      periodic: { NEXQ_PERIODIC: '[{"cron":"@daily","queue":"a","class":"Foo"}]' },
      metrics: { NEXQ_METRICS_PORT: '9401', NEXQ_METRICS_HOST: '::1' },
      web: { NEXQ_WEB_PORT: '8080' },
      classConcurrency: { NEXQ_CLASS_CONCURRENCY: '{"Report":2}' },
      classRateLimits: { NEXQ_CLASS_RATE_LIMITS: '{"Charge":{"limit":10,"per":1}}' },
    };
    const sample = (value: unknown): string => (typeof value === 'number' ? '7' : 'x');
    for (const [key, fallback] of Object.entries(defaults())) {
      const env = special[key] ?? { [envName(key)]: sample(fallback) };
      const { config, sources } = layerFromEnv(env);
      expect(Object.keys(config), `the variable for ${key}`).to.deep.equal([key]);
      expect(sources[key]).to.include(Object.keys(env)[0]);
    }
    expect(layerFromEnv({ NEXQ_SHUTDOWN_TIMEOUT: '250', NEXQ_TIMESTAMPS: 'milliseconds' }).config).to.deep.equal({
      shutdownTimeout: 250,
      timestamps: 'milliseconds',
    });
    expect(layerFromEnv({ NEXQ_METRICS_PORT: '9401', NEXQ_METRICS_HOST: '::1' }).config.metrics).to.deep.equal({
      port: 9401,
      host: '::1',
    });
    expect(layerFromEnv({ NEXQ_METRICS: 'true' }).config.metrics).to.equal(true);
    expect(layerFromEnv({ NEXQ_JOBS: '{"Foo":"./foo.js"}' }).config.jobs).to.deep.equal({ Foo: './foo.js' });
  });

  it('refuses unreadable environment values, naming the variable', () => {
    expect(() => layerFromEnv({ NEXQ_NODE_TIMEOUT: '1.5' })).to.throw(
      ConfigError,
      /^invalid config: NEXQ_NODE_TIMEOUT must be a whole number \(got "1\.5"\)$/,
    );
    expect(() => layerFromEnv({ NEXQ_PERIODIC: '[{' })).to.throw(
      ConfigError,
      /NEXQ_PERIODIC must be an array of .* in JSON/,
    );
    expect(() => layerFromEnv({ NEXQ_METRICS: 'yes' })).to.throw(ConfigError, /NEXQ_METRICS must be true or false/);
    expect(() => layerFromEnv({ NEXQ_METRICS_HOST: '0.0.0.0' })).to.throw(
      ConfigError,
      /NEXQ_METRICS_HOST must be set together with NEXQ_METRICS_PORT/,
    );
  });

  it('checks file and environment values by the same rules, naming the key and where it came from', () => {
    const file = tempFile('nexq.yaml', 'concurrency: 0\nheartbeatInterval: 5\n');
    const fromFile = () => start(['--config', file]);
    expect(fromFile).to.throw(
      ConfigError,
      new RegExp(
        `^invalid config: concurrency \\(from ${file.replace(/[.\\/]/g, '\\$&')}\\) must be an integer >= 1 \\(got 0\\)$`,
      ),
    );
    const fromEnv = () => start([], { NEXQ_CONCURRENCY: '0' });
    expect(fromEnv).to.throw(
      ConfigError,
      /^invalid config: concurrency \(from NEXQ_CONCURRENCY\) must be an integer >= 1 \(got 0\)$/,
    );
    // The environment wins over the file, so its value is the one checked and named.
    expect(() => start(['--config', file], { NEXQ_CONCURRENCY: '3', NEXQ_MODE: 'turbo' })).to.throw(
      ConfigError,
      /^invalid config: mode \(from NEXQ_MODE\) must be one of default, enqueuer/,
    );
    expect(() => start([], { NEXQ_QUEUES: 'a:0' })).to.throw(
      ConfigError,
      /^invalid config: queues\[0\]\.concurrency \(from NEXQ_QUEUES\) must be an integer >= 1/,
    );
    const metricsFile = tempFile('m.yml', 'metrics: { port: 70000 }\n');
    expect(() => start(['--config', metricsFile])).to.throw(
      ConfigError,
      /metrics\.port \(from .*m\.yml\) must be an integer from 0 to 65535 \(got 70000\)/,
    );
    expect(() => start(['--metrics', '70000'])).to.throw(
      ConfigError,
      /metrics\.port \(from --metrics\) must be an integer from 0 to 65535/,
    );
    const unknown = tempFile('u.yaml', 'concurency: 3\n');
    expect(() => start(['--config', unknown])).to.throw(
      ConfigError,
      /^invalid config: concurency \(from .*u\.yaml\) is not an option; did you mean concurrency\?$/,
    );
  });

  it('warns about NEXQ_ variables no option reads, with the closest name, but not about tooling variables', () => {
    const env = {
      NEXQ_CONCURENCY: '5',
      NEXQ_FROBNICATE: '1',
      NEXQ_CONCURRENCY: '5',
      NEXQ_KEY_LAYOUT: 'shared',
      NEXQ_WEB_PORT: '1',
      NEXQ_METRICS_HOST: 'x',
      NEXQ_REDIS_PASSWORD: 'pw',
      NEXQ_TEST_KEY_LAYOUT: 'shared',
      NEXQ_TEST_LOGS: '1',
      NEXQ_BENCH_NODE: '{}',
      NEXQ_CHAOS_OPTIONS: '{}',
      NEXQ_SOAK_NODE: '{}',
      NEXQ_CHROMIUM: '/usr/bin/chromium',
      REDIS_URL: 'redis://x',
    };
    expect(unknownEnvWarnings(env)).to.deep.equal([
      'NEXQ_CONCURENCY is not a nexq setting and is ignored; did you mean NEXQ_CONCURRENCY?',
      'NEXQ_FROBNICATE is not a nexq setting and is ignored',
    ]);
    // Every variable the loader reads counts as known.
    const every = Object.fromEntries(
      Object.keys(defaults())
        .filter((k) => k !== 'redis' && k !== 'web')
        .map((k) => [envName(k), '']),
    );
    expect(unknownEnvWarnings(every)).to.deep.equal([]);
  });

  it('sets the metrics port from --metrics, keeping a host from the file', () => {
    const file = tempFile('h.yaml', 'metrics: { port: 1, host: 0.0.0.0 }\n');
    expect(start(['--config', file, '--metrics', '9402']).metrics).to.deep.equal({ port: 9402, host: '0.0.0.0' });
    expect(start(['--metrics', '0']).metrics).to.deep.equal({ port: 0 });
  });

  it("checks the admin commands' connection options the same way", () => {
    const file = tempFile('c.yml', 'namespace: "a b"\nqueues: [not checked here]\n');
    expect(() => connectionConfig(parseArgs(['--config', file], new Set()), {})).to.throw(
      ConfigError,
      /^invalid config: namespace \(from .*c\.yml\) must be a string without spaces/,
    );
    expect(connectionConfig(parseArgs(['--namespace', 'ok'], new Set()), { NEXQ_QUEUES: 'x' })).to.deep.equal({
      namespace: 'ok',
      mode: 'enqueuer',
    });
  });

  it('validates the merged layers once, as the node does', () => {
    const layers = fileAndEnv(undefined, { NEXQ_NODE_TIMEOUT: '3', NEXQ_HEARTBEAT_INTERVAL: '5' });
    expect(() => validateLayers(layers)).to.throw(
      ConfigError,
      /nodeTimeout \(from NEXQ_NODE_TIMEOUT\) must be more seconds than heartbeatInterval/,
    );
    expect(() => resolveConfig(layers.config)).to.throw(ConfigError, /^invalid config: nodeTimeout must be/);
  });
});
