// Jobs with encrypted args on real nodes and a real Redis: the plain arguments are nowhere in Redis
// (queued, scheduled, retried or dead), the handler gets them opened, keys rotate, a job no key
// opens or whose envelope was altered goes to dead with the reason while other jobs run, and no
// key reaches the logs.
import { expect } from 'chai';
import { createHash, randomBytes } from 'node:crypto';
import path from 'node:path';
import { useNodes, waitFor, NodeTest } from '../support/node';
import { onlyEntry } from '../support/sets';
import { repoRoot } from '../support/paths';
import { captureLogs } from '../support/capture-logs';
import { envelopeOf, keyIdOf } from '../../src/job/encryption';
import { defineJob } from '../../src/define-job';

const SEALED = path.join(repoRoot, 'test', 'fixtures', 'encrypted-jobs', 'Sealed.js');
const ECHO = path.join(repoRoot, 'test', 'fixtures', 'encrypted-jobs', 'Echo.js');
const newKey = () => randomBytes(32).toString('base64');
const sha256 = (text: string) => createHash('sha256').update(text).digest('hex');
const kidOf = (key: string) => keyIdOf(Buffer.from(key, 'base64'));

/** Every value in Redis, each key read by its type and dumped: where a plain argument would show. */
async function wholeKeyspace(t: NodeTest): Promise<string> {
  const parts: string[] = [];
  let cursor = '0';
  do {
    const [next, keys] = await t.redis.scan(cursor, 'COUNT', 500);
    cursor = next;
    for (const key of keys) {
      parts.push(key);
      const type = await t.redis.type(key);
      // joined, not spread: another test's list may hold 100,000s of entries (a spread overflows the stack)
      if (type === 'string') parts.push((await t.redis.get(key)) ?? '');
      else if (type === 'list') parts.push((await t.redis.lrange(key, 0, -1)).join('\n'));
      else if (type === 'zset') parts.push((await t.redis.zrange(key, 0, -1)).join('\n'));
      else if (type === 'hash') parts.push(JSON.stringify(await t.redis.hgetall(key)));
      else if (type === 'set') parts.push((await t.redis.smembers(key)).join('\n'));
      // A key gone since the scan (an expiry) dumps as null.
      const dumped = (await t.redis.dumpBuffer(key)) as Buffer | null;
      if (dumped) parts.push(dumped.toString('latin1'));
    }
  } while (cursor !== '0');
  return parts.join('\n');
}

describe('encrypted args on a node', () => {
  const t = useNodes();
  const start = (keys: string | undefined, extra: Parameters<NodeTest['start']>[0] = {}) =>
    t.start({ jobs: { Sealed: SEALED }, ...(keys ? { encryptionKeys: keys } : {}), ...extra });

  it('runs a job of an `encrypt` module with its args opened, and Redis never holds them: queued, scheduled, retried, dead', async () => {
    const key = newKey();
    // A producer (no manager): the jobs stay at rest until the worker below starts.
    const producer = await t.start({
      mode: 'enqueuer',
      encryptionKeys: key,
      queues: [{ name: 'default', encrypt: true }],
    });
    const marker = `secret-${randomBytes(6).toString('hex')}`;
    const out = t.out('sealed');
    await producer.enqueue('default', 'Sealed', [t.url, out, marker]);
    await producer.enqueueIn('default', 3600, 'Sealed', [t.url, out, marker]);
    await producer.enqueue('default', 'Sealed', [t.url, out, marker, true], { retry: 1 });
    await producer.enqueue('default', 'Sealed', [t.url, out, marker, true], { retry: 0 });
    const atRest = await wholeKeyspace(t);
    expect(atRest).to.contain('nexq-encrypted');
    expect(atRest).not.to.contain(marker);
    await start(key);
    const [ran] = await t.waitForRecords(out, 1);
    expect(ran.digest).to.equal(sha256(marker));
    await onlyEntry(t, t.keys.retry('default'));
    const { job: dead } = await onlyEntry(t, t.keys.dead('default'));
    expect(dead.error_message).to.equal('sealed job failed on purpose');
    expect(envelopeOf(dead.args)?.kid).to.equal(kidOf(key));
    expect(await wholeKeyspace(t)).not.to.contain(marker);
  });

  it('encrypts what the `encrypt` job option (defineJob) or a queue spec asks for, and leaves other jobs plain', async () => {
    const key = newKey();
    const node = await t.start({
      mode: 'enqueuer',
      encryptionKeys: key,
      queues: ['default', { name: 'vault', encrypt: true }],
    });
    // Markers no key name holds (queue names are in some: `nexq:processed:<queue>`).
    const [byOption, byQueue, plain, byDefinition] = ['opt', 'queue', 'plain', 'def'].map(
      (m) => `${m}-${randomBytes(6).toString('hex')}`,
    );
    await node.enqueue('default', 'Record', [byOption], { encrypt: true });
    await defineJob<[string]>('Record', { encrypt: true }).enqueue(node, [byDefinition]);
    await node.enqueue('vault', 'Record', [byQueue]);
    await node.enqueue('default', 'Record', [plain]);
    const text = await wholeKeyspace(t);
    expect(text).not.to.contain(byOption);
    expect(text).not.to.contain(byQueue);
    expect(text).not.to.contain(byDefinition);
    expect(text).to.contain(plain);
  });

  it('refuses a job that asks for encryption when no keys are configured, rather than store it plain', async () => {
    const node = await t.start({ mode: 'enqueuer' });
    let refused: Error | undefined;
    await node.enqueue('default', 'Record', ['x'], { encrypt: true }).catch((err: unknown) => (refused = err as Error));
    expect(refused?.message).to.match(/no encryptionKeys are configured/);
    expect(await t.redis.llen(t.keys.queue('default'))).to.equal(0);
  });

  it('does not start a node whose queues or handler modules ask for encryption without keys', async () => {
    const refusal = (options: Parameters<NodeTest['start']>[0]) =>
      t.start(options).then(
        () => 'started',
        (err: unknown) => (err as Error).message,
      );
    expect(await refusal({ queues: [{ name: 'vault', encrypt: true }] })).to.match(/encryptionKeys.*queue vault/);
    expect(await refusal({ jobs: { Sealed: SEALED } })).to.match(/encryptionKeys.*Sealed/);
  });

  it('rotates: a job sealed with the old key runs on a node with [new, old], whose new jobs carry the new key', async () => {
    const [oldKey, freshKey] = [newKey(), newKey()];
    const producer = await t.start({ mode: 'enqueuer', encryptionKeys: oldKey });
    const out = t.out('rotated');
    await producer.enqueue('default', 'Sealed', [t.url, out, 'old'], { encrypt: true });
    const worker = await start(`${freshKey},${oldKey}`);
    const [ran] = await t.waitForRecords(out, 1);
    expect(ran.digest).to.equal(sha256('old'));
    await worker.enqueueIn('default', 3600, 'Sealed', [t.url, out, 'new']);
    const [entry] = await t.redis.zrange(t.keys.schedule('default'), 0, -1);
    expect(envelopeOf(JSON.parse(entry).args)?.kid).to.equal(kidOf(freshKey));
  });

  it('files a job no configured key opens in dead with the reason, and the next job still runs', async () => {
    const producer = await t.start({ mode: 'enqueuer', encryptionKeys: newKey() });
    const out = t.out('after');
    const jid = await producer.enqueue('default', 'Sealed', [t.url, out, 'lost'], { encrypt: true });
    await start(newKey());
    const { job } = await onlyEntry(t, t.keys.dead('default'));
    expect(job).to.include({ jid, error_class: 'EncryptedArgsError' });
    expect(job.error_message).to.match(/no configured key has id/);
    await producer.enqueue('default', 'Record', [t.url, out, 'plain']);
    await t.waitForRecords(out, 1);
    expect(await t.redis.zcard(t.keys.retry('default'))).to.equal(0);
  });

  it('files a job whose envelope was altered in dead with the reason', async () => {
    const key = newKey();
    const producer = await t.start({ mode: 'enqueuer', encryptionKeys: key });
    await producer.enqueue('default', 'Sealed', [t.url, t.out('x'), 'v'], { encrypt: true });
    const [raw] = await t.redis.lrange(t.keys.queue('default'), 0, -1);
    const job = JSON.parse(raw);
    const envelope = envelopeOf(job.args) as NonNullable<ReturnType<typeof envelopeOf>>;
    const data = Buffer.from(String(envelope.data), 'base64');
    data[data.length - 1] ^= 1;
    job.args = [{ ...envelope, data: data.toString('base64') }];
    await t.redis.lset(t.keys.queue('default'), 0, JSON.stringify(job));
    await start(key);
    const { job: dead } = await onlyEntry(t, t.keys.dead('default'));
    expect(dead.error_class).to.equal('EncryptedArgsError');
    expect(dead.error_message).to.match(/does not authenticate/);
  });

  it('shows the args opened to a node with the key and "encrypted" to one without', async () => {
    const key = newKey();
    const keyed = await t.start({ mode: 'enqueuer', encryptionKeys: key });
    const jid = await keyed.enqueue('default', 'Record', ['shown'], { encrypt: true });
    expect((await keyed.show(jid))?.job?.args).to.deep.equal(['shown']);
    const keyless = await t.start({ mode: 'enqueuer' });
    const info = await keyless.show(jid);
    expect(info?.job?.args).to.equal('encrypted');
    expect(info?.raw).not.to.contain('shown');
  });

  it("keeps an encrypted job's result encrypted: read by a node with the key, refused without", async () => {
    const key = newKey();
    const node = await t.start({ jobs: { Echo: ECHO }, encryptionKeys: key });
    const marker = `result-${randomBytes(6).toString('hex')}`;
    const jid = await node.enqueue('default', 'Echo', [marker], { keepResult: 60 });
    expect(await node.waitFor(jid, { timeout: 5000 })).to.deep.equal([marker]);
    expect(await node.result(jid)).to.deep.equal([marker]);
    expect(await wholeKeyspace(t)).not.to.contain(marker);
    const keyless = await t.start({ mode: 'enqueuer' });
    let refused: Error | undefined;
    await keyless.result(jid).catch((err: unknown) => (refused = err as Error));
    expect(refused?.name).to.equal('EncryptedArgsError');
  });

  it('stores a batch callback that asks for encryption sealed, and runs it opened', async () => {
    const key = newKey();
    const producer = await t.start({ mode: 'enqueuer', encryptionKeys: key });
    const marker = `callback-${randomBytes(6).toString('hex')}`;
    const out = t.out('callback');
    const batch = producer.batch({
      onComplete: { queue: 'default', class: 'RecordArgs', args: [t.url, out, marker], encrypt: true },
    });
    await batch.enqueue('default', 'Record', [t.url, t.out('member'), 'm']);
    expect(await wholeKeyspace(t)).not.to.contain(marker);
    await start(key);
    const [ran] = await t.waitForRecords(out, 1);
    expect(ran.values[0]).to.equal(marker);
  });

  it('writes no key to the logs, at debug level, through runs, failures and a job it cannot open', async () => {
    const [key, other] = [newKey(), newKey()];
    const logs = captureLogs();
    const producer = await t.start({ mode: 'enqueuer', encryptionKeys: other });
    await producer.enqueue('default', 'Sealed', [t.url, t.out('l'), 'x'], { encrypt: true });
    await start(key, { logger: logs.logger, logLevel: 'debug' });
    await onlyEntry(t, t.keys.dead('default'));
    const keyed = await t.start({ mode: 'enqueuer', encryptionKeys: key });
    await keyed.enqueue('default', 'Sealed', [t.url, t.out('l'), 'x', true], { retry: 0 });
    await waitFor(async () => (await t.redis.zcard(t.keys.dead('default'))) === 2, 5000, 'two dead jobs');
    const text = logs.text();
    expect(text).to.contain('moved to dead');
    for (const k of [key, other]) {
      expect(text).not.to.contain(k);
      expect(text).not.to.contain(Buffer.from(k, 'base64').toString('hex'));
    }
  });
});
