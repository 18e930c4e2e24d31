// Mistakes in the set-up stop a node at start, naming what to fix, rather than failing jobs later.
import { expect } from 'chai';
import { mkdtempSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { ConfigError } from '../../config/config-error';
import { HandlerCheckError } from '../../src/handlers/check';
import { Nexq } from '../../src/nexq';
import { COMMAND_TIMEOUT_MS } from '../../src/redis/connection';
import { captureLogs } from '../support/capture-logs';
import { freshNamespace } from '../support/global-hooks';
import { sleep, useNodes, waitFor } from '../support/node';
import { brokenJobs } from '../support/paths';
import { RedisServer } from '../support/redis-server';

function tempDir(): string {
  return mkdtempSync(path.join(os.tmpdir(), 'nexq-startup-'));
}

describe('checks at start', () => {
  const t = useNodes();

  async function startError(options: Parameters<typeof t.start>[0]): Promise<Error> {
    try {
      await t.start(options);
    } catch (err) {
      return err as Error;
    }
    throw new Error('the node started');
  }

  it('refuses a `jobs` entry whose module does not exist, naming the file', async () => {
    const missing = path.join(tempDir(), 'nope.js');
    const err = await startError({ jobs: { Foo: missing } });
    expect(err).to.be.instanceOf(HandlerCheckError);
    expect(err.message).to.equal(`handler Foo: ${missing} failed to load: Error: Cannot find module '${missing}'`);
  });

  it('refuses a jobsDir module without a perform function, naming the file', async () => {
    const err = await startError({ jobsDir: brokenJobs });
    expect(err).to.be.instanceOf(HandlerCheckError);
    expect(err.message).to.equal(
      `handler NoPerform: ${path.join(brokenJobs, 'NoPerform.js')} exports no perform function (named, default, or default.perform)`,
    );
  });

  it('refuses a handler with a syntax error, naming the file and line', async () => {
    const dir = tempDir();
    writeFileSync(path.join(dir, 'Broken.js'), 'exports.perform = function () {\n  return 1;\n');
    const err = await startError({ jobsDir: dir });
    expect(err).to.be.instanceOf(HandlerCheckError);
    const file = path.join(dir, 'Broken.js');
    expect(err.message).to.equal(
      `handler Broken: ${file} failed to load: SyntaxError: Unexpected end of input at ${file}:3`,
    );
  });

  it('refuses a jobsDir that does not exist with a ConfigError naming the folder', async () => {
    const missing = path.join(tempDir(), 'jobs');
    const err = await startError({ jobsDir: missing });
    expect(err).to.be.instanceOf(ConfigError);
    expect(err.message).to.equal(
      `invalid config: jobsDir must be a folder that exists (got ${JSON.stringify(missing)})`,
    );
  });

  it('logs the handlers it found at info, in one line, each module once', async () => {
    const logs = captureLogs();
    await t.start({ logger: logs.logger });
    const lines = logs
      .text()
      .trim()
      .split('\n')
      .map((line) => JSON.parse(line));
    const handlers = lines.filter((line) => line.message.startsWith('handlers: '));
    expect(handlers).to.have.length(1);
    expect(handlers[0].level).to.equal('info');
    expect(handlers[0].message)
      .to.contain('Record (')
      .and.to.contain('Mailer::Welcome (')
      .and.not.to.contain('Mailer.Welcome (');
    // A module of jobsDir named as no class could be (a helper, or a handler misnamed) is said too.
    expect(handlers[0].message).to.match(/; not handlers, their names being no class names: \S*redis-client\.js$/);
  });
});

describe('waiting for Redis at start', () => {
  let server: RedisServer | undefined;

  after(async () => {
    await server?.stop();
  });

  it('keeps trying past the command timeout, having said which address does not answer and why', async function () {
    this.timeout(COMMAND_TIMEOUT_MS + 20_000);
    server = await RedisServer.start();
    await server.kill9();
    const logs = captureLogs();
    const starting = Nexq.start({
      redis: server.url,
      namespace: freshNamespace(),
      mode: 'enqueuer',
      logger: logs.logger,
    });
    starting.catch(() => {});
    try {
      await waitFor(() => logs.text().includes('cannot reach Redis'), 5000, 'the unreachable-Redis message');
      expect(logs.text()).to.include(
        `cannot reach Redis at ${server.url} (from Nexq.start options) (connect ECONNREFUSED 127.0.0.1:${server.port}); still trying`,
      );
      // A ping queued while Redis is down times out after COMMAND_TIMEOUT_MS; the node waits on.
      await sleep(COMMAND_TIMEOUT_MS + 1000);
      await server.launch();
      expect((await starting).node.running).to.equal(true);
    } finally {
      await starting.then(
        (node) => node.stop(),
        () => {},
      );
    }
  });
});
