// Every nexq error is a NexqError with a stable code of its own, listed in docs/errors.md, and the
// codes a user can meet through the public API are the ones said there.
import { expect } from 'chai';
import { readdirSync, readFileSync, statSync } from 'node:fs';
import path from 'node:path';
import * as errors from '../src/errors';
import * as index from '../src/index';
import { JobArgsError, JobFailedError } from '../src/testing/errors';
import { createTestNexq } from '../src/testing';
import { NameTakenError } from '../src/runtime/registry';
import { ApiError } from '../src/web/api';
import { UsageError } from '../src/cli/args';
import { DrainTimeoutError } from '../src/cli/commands/drain';
import { JobNotFoundError, QueueUnservedError, UnknownProcessError, UnknownQueueError } from '../src/cli/errors';
import type { JobErrorInfo } from '../src/events/job-events';
import { Nexq } from '../src/nexq';
import { freshNamespace, sharedRedis } from './support/global-hooks';
import { repoRoot } from './support/paths';
import { useNodes, waitFor } from './support/node';
import { jobsDir as testingJobs } from './testing/support';

type ErrorClass = (abstract new (...args: never[]) => Error) & { code: string };

const { NexqError } = errors;
/** Every error class of src/errors.ts, and those kept out of it (nexq/testing's, the CLI's, internals). */
const exported = Object.entries(errors).filter(
  ([name, value]) => name !== 'NexqError' && typeof value === 'function' && value.prototype instanceof NexqError,
) as Array<[string, ErrorClass]>;
const others: Array<[string, ErrorClass]> = Object.entries({
  JobFailedError,
  JobArgsError,
  NameTakenError,
  ApiError,
  UsageError,
  DrainTimeoutError,
  JobNotFoundError,
  UnknownQueueError,
  QueueUnservedError,
  UnknownProcessError,
});
const all = [...exported, ...others];

async function rejection(promise: Promise<unknown>): Promise<any> {
  return promise.then(
    () => expect.fail('expected a rejection'),
    (err: unknown) => err,
  );
}

describe('error codes', () => {
  it('gives every error class a NexqErrorCode of its own, each listed in docs/errors.md with its class', () => {
    expect(exported.length).to.be.greaterThan(20);
    const docs = readFileSync(path.join(repoRoot, 'docs', 'errors.md'), 'utf8');
    const seen = new Map<string, string>();
    for (const [name, cls] of all) {
      expect(cls.prototype, name).to.be.instanceOf(NexqError);
      expect(cls.code, name).to.match(/^[A-Z][A-Z_]+[A-Z]$/);
      expect(seen.get(cls.code), `${name} and ${seen.get(cls.code)} share ${cls.code}`).to.equal(undefined);
      seen.set(cls.code, name);
      expect(docs, `docs/errors.md lists ${cls.code} for ${name}`).to.match(
        new RegExp(`^\\| \`${cls.code}\` \\| \`${name}\` \\|`, 'm'),
      );
    }
  });

  it('exports every error class of src/errors.ts from the package index', () => {
    for (const [name, cls] of exported) expect((index as Record<string, unknown>)[name], name).to.equal(cls);
    expect(index.NexqError).to.equal(NexqError);
  });

  it('leaves no error class in the tree that does not extend NexqError', () => {
    const plain: string[] = [];
    const walk = (dir: string): void => {
      for (const entry of readdirSync(dir)) {
        const file = path.join(dir, entry);
        if (statSync(file).isDirectory()) walk(file);
        else if (file.endsWith('.ts') && /class \w+ extends Error\b/.test(readFileSync(file, 'utf8')))
          plain.push(path.relative(repoRoot, file));
      }
    };
    for (const dir of ['src', 'config', 'supervisors', 'workers']) walk(path.join(repoRoot, dir));
    expect(plain).to.deep.equal(['config/nexq-error.ts']);
  });

  it('carries the code on each instance, and the instance is still its own class', () => {
    const err = new errors.QueuePausedError('x');
    expect(err).to.include({ code: 'QUEUE_PAUSED', name: 'QueuePausedError', message: 'x' });
    expect(err).to.be.instanceOf(Error);
    const unknown = new errors.UnknownOptionError('concurency', ['concurrency']);
    expect(unknown.code).to.equal('CONFIG_UNKNOWN_OPTION');
    expect(unknown).to.be.instanceOf(errors.ConfigError);
    expect(unknown.from('a file').code).to.equal('CONFIG_UNKNOWN_OPTION');
  });
});

describe('error codes through the public API', () => {
  const t = useNodes();

  it('refuses an enqueue into a paused queue with QUEUE_PAUSED', async () => {
    const node = await t.start({ mode: 'enqueuer' });
    await node.pause('mail', 'in');
    const err = await rejection(node.enqueue('mail', 'Record', []));
    expect(err).to.be.instanceOf(index.QueuePausedError).and.instanceOf(index.NexqError);
    expect(err.code).to.equal('QUEUE_PAUSED');
    const bulk = await rejection(
      node.enqueueAll([
        { queue: 'a', class: 'X', args: [] },
        { queue: 'mail', class: 'X', args: [] },
      ]),
    );
    expect(bulk.code).to.equal('QUEUE_PAUSED');
  });

  it('refuses an enqueue past maxlen with QUEUE_FULL', async () => {
    const node = await t.start({ mode: 'enqueuer' });
    await node.enqueue('default', 'Record', [], { maxlen: 1 });
    const err = await rejection(node.enqueue('default', 'Record', [], { maxlen: 1 }));
    expect(err).to.be.instanceOf(index.QueueFullError);
    expect(err.code).to.equal('QUEUE_FULL');
  });

  it('refuses bad job options with JOB_INVALID, and a key of the wrong type with REDIS_WRONG_TYPE', async () => {
    const node = await t.start({ mode: 'enqueuer' });
    const invalid = await rejection(node.enqueue('default', 'Record', [], { delay: -1 }));
    expect(invalid).to.be.instanceOf(index.InvalidJobError);
    expect(invalid.code).to.equal('JOB_INVALID');
    await t.redis.set(t.keys.queue('default'), 'not a list');
    const wrong = await rejection(node.enqueue('default', 'Record', []));
    expect(wrong).to.be.instanceOf(index.RedisWrongTypeError);
    expect(wrong.code).to.equal('REDIS_WRONG_TYPE');
    expect(wrong.message).to.contain('WRONGTYPE');
  });

  it('refuses bad options at start with CONFIG_INVALID, and an unknown one with CONFIG_UNKNOWN_OPTION', async () => {
    const base = { redis: sharedRedis().url, namespace: freshNamespace(), logLevel: 'error' as const, threads: 1 };
    const bad = await rejection(Nexq.start({ ...base, concurrency: 0 }));
    expect(bad).to.be.instanceOf(index.ConfigError);
    expect(bad.code).to.equal('CONFIG_INVALID');
    const unknown = await rejection(Nexq.start({ ...base, concurency: 3 } as never));
    expect(unknown.code).to.equal('CONFIG_UNKNOWN_OPTION');
  });

  it('tells a run nexq ended by its code in the job events: JOB_TIMEOUT, HANDLER_MISSING; a throw has none', async () => {
    const node = await t.start({ jobTimeout: 1000 });
    const failures = new Map<string, JobErrorInfo>();
    node.events.on('job:failure', ({ jid, error }) => void failures.set(jid, error));
    const slow = await node.enqueue('default', 'Sleep', [5000], { retry: 0 });
    const missing = await node.enqueue('default', 'NoSuchJob', [], { retry: 0 });
    const thrown = await node.enqueue('default', 'Fail', [], { retry: 0 });
    await waitFor(() => failures.size === 3, 15_000, 'three failures');
    expect(failures.get(slow)).to.include({ class: 'JobTimeoutError', code: 'JOB_TIMEOUT' });
    expect(failures.get(missing)).to.include({ class: 'UnknownJobClassError', code: 'HANDLER_MISSING' });
    expect(failures.get(thrown)).to.include({ class: 'BoomError' });
    expect(failures.get(thrown)).not.to.have.property('code');
    // The payload keeps Sidekiq's fields only: the class, not the code.
    const dead = JSON.parse((await t.redis.zrange(t.keys.dead('default'), 0, -1)).find((j) => j.includes(slow))!);
    expect(dead).to.include({ error_class: 'JobTimeoutError' }).and.not.have.property('code');
  });

  it('fails a drained job without a handler with JOB_FAILED, its error saying HANDLER_MISSING (nexq/testing)', async () => {
    const nexq = createTestNexq({ jobsDir: testingJobs });
    await nexq.enqueue('default', 'NoSuchJob', []);
    const err: unknown = await rejection(nexq.drain());
    expect(err).to.be.instanceOf(JobFailedError).and.instanceOf(NexqError);
    expect(err).to.have.property('code', 'JOB_FAILED');
    expect(err).to.have.nested.property('error.code', 'HANDLER_MISSING');
  });
});
