// The `web` option: checked at start with errors naming the key, set from NEXQ_WEB_* and from
// `nexq start --web PORT --web-host H`, layered over a config file field by field.
import { expect } from 'chai';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { configFromEnv } from '../../config/load';
import { ConfigError, resolveConfig } from '../../config/validate';
import { parseArgs } from '../../src/cli/args';
import { startConfig } from '../../src/cli/start';

function errorOf(fn: () => unknown): ConfigError {
  try {
    fn();
  } catch (err) {
    if (err instanceof ConfigError) return err;
    throw err;
  }
  throw new Error('expected a ConfigError');
}

describe('web option', () => {
  it('is off by default, and defaults its host to 127.0.0.1', () => {
    expect(resolveConfig({}).web).to.equal(undefined);
    expect(resolveConfig({ web: { port: 8080 } }).web).to.deep.equal({ port: 8080, host: '127.0.0.1' });
  });

  it('refuses bad values, naming the key and hiding the password', () => {
    const cases: Array<[unknown, string]> = [
      [8080, 'web'],
      [{}, 'web.port'],
      [{ port: 70000 }, 'web.port'],
      [{ port: '80' }, 'web.port'],
      [{ port: 80, host: '' }, 'web.host'],
      [{ port: 80, user: 'x' }, 'web.user'],
      [{ port: 80, username: 'ops' }, 'web.password'],
      [{ port: 80, password: 'pw-123' }, 'web.username'],
      [{ port: 80, username: 'a:b', password: 'pw-123' }, 'web.username'],
    ];
    for (const [web, key] of cases) {
      const err = errorOf(() => resolveConfig({ web } as never));
      expect(err.key, JSON.stringify(web)).to.equal(key);
      expect(err.message).not.to.include('pw-123');
    }
  });

  it('comes from NEXQ_WEB_* and from nexq start --web / --web-host, over a config file', () => {
    expect(
      configFromEnv({ NEXQ_WEB_PORT: '9000', NEXQ_WEB_USERNAME: 'ops', NEXQ_WEB_PASSWORD: 'pw' }).web,
    ).to.deep.equal({ port: 9000, username: 'ops', password: 'pw' });
    expect(configFromEnv({}).web).to.equal(undefined);
    expect(() => configFromEnv({ NEXQ_WEB_PORT: 'eighty' })).to.throw(ConfigError, 'NEXQ_WEB_PORT');
    const dir = mkdtempSync(path.join(os.tmpdir(), 'nexq-web-'));
    const file = path.join(dir, 'config.json');
    writeFileSync(file, JSON.stringify({ web: { port: 7000, username: 'ops', password: 'from-file' } }));
    const config = startConfig(parseArgs(['--config', file, '--web-host', '0.0.0.0'], new Set()), {
      NEXQ_WEB_PASSWORD: 'from-env',
    });
    rmSync(dir, { recursive: true, force: true });
    expect(config.web).to.deep.equal({ port: 7000, host: '0.0.0.0', username: 'ops', password: 'from-env' });
    expect(startConfig(parseArgs(['--web', '8081'], new Set()), {}).web).to.deep.equal({ port: 8081 });
    expect(() => startConfig(parseArgs(['--web', 'x'], new Set()), {})).to.throw('--web must be a whole number');
  });
});
