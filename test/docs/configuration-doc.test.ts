// docs/configuration.md's options table is written from config/ by `npm run docs:config`
// (scripts/docs-config.ts): it fails here when an option, its description (the JSDoc in
// config/defaults.ts), its default or its environment variables changed and the doc did not.
import { expect } from 'chai';
import { readFileSync } from 'node:fs';
import { defaults } from '../../config/defaults';
import { layerFromEnv } from '../../config/load';
import { configurationDoc, optionRows, withOptionsTable } from '../../scripts/docs-config';

describe('docs/configuration.md', () => {
  it('holds the options table config/ gives today (else run npm run docs:config)', () => {
    const doc = readFileSync(configurationDoc, 'utf8');
    expect(doc, 'docs/configuration.md is stale: run `npm run docs:config`').to.equal(withOptionsTable(doc));
  });

  it('has one described row per option, in a table the stale check would notice', () => {
    const rows = optionRows();
    expect(rows.map((r) => r.option)).to.have.members(Object.keys(defaults()));
    for (const row of rows) expect(row.description, row.option).to.match(/\S{2,}/);
    const doc = readFileSync(configurationDoc, 'utf8');
    for (const row of rows) expect(doc).to.include(`| \`${row.option}\` |`);
  });

  it('lists for each option the environment variable the loader reads for it', () => {
    const sample = (option: string, fallback: unknown): string => {
      if (option === 'queues') return 'mail:2';
      if (option === 'metrics') return 'true';
      if (typeof fallback === 'number') return '7';
      if (typeof fallback === 'object' && fallback !== null) return JSON.stringify(fallback);
      return 'x';
    };
    const options = defaults() as unknown as Record<string, unknown>;
    const single = optionRows().filter((row) => row.env.length === 1);
    expect(single.length).to.be.above(25);
    for (const { option, env } of single) {
      const { sources } = layerFromEnv({ [env[0]]: sample(option, options[option]) });
      expect(sources[option], `${env[0]} sets ${option}`).to.equal(env[0]);
    }
    const redis = optionRows().find((row) => row.option === 'redis')!;
    expect(layerFromEnv({ REDIS_URL: 'redis://h:1' }).sources.redis).to.equal('REDIS_URL');
    expect(redis.env).to.include.members(['REDIS_URL', 'NEXQ_REDIS_SENTINELS', 'NEXQ_REDIS_WAIT_REPLICAS']);
    const web = optionRows().find((row) => row.option === 'web')!;
    expect(layerFromEnv({ [web.env[0]]: '8080' }).sources.web).to.equal(web.env[0]);
  });
});
