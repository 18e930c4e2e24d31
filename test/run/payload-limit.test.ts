// maxPayloadBytes (issue #32 item 5): enqueue refuses a job whose JSON is bigger, naming its size
// and the option, and writes nothing; a bigger payload a foreign producer pushed goes to the dead
// set with that reason when fetched, and the node carries on.
import { expect } from 'chai';
import { PayloadTooLargeError, InvalidJobError } from '../../src/errors';
import { prepareJobs } from '../../src/job/new-jobs';
import { createTestNexq } from '../../src/testing';
import { cliAgainst } from '../support/cli';
import { useNodes, waitFor } from '../support/node';

const LIMIT = 4000;

/** What `promise` was rejected with (it must be rejected). */
async function refusal(promise: Promise<unknown>): Promise<unknown> {
  return promise.then(
    () => expect.fail('the enqueue was accepted'),
    (err: unknown) => err,
  );
}

/** An argument of `bytes` ASCII characters (as many bytes of JSON). */
const padded = (bytes: number) => 'x'.repeat(bytes);

describe('the payload size limit', () => {
  const t = useNodes();

  it('refuses an enqueue above maxPayloadBytes with its size and the option, and writes nothing', async () => {
    const node = await t.start({ maxPayloadBytes: LIMIT });
    const err = await refusal(node.enqueue('unserved', 'Record', [padded(LIMIT)]));
    expect(err).to.be.instanceOf(PayloadTooLargeError).and.instanceOf(InvalidJobError);
    expect(err).to.include({ code: 'JOB_TOO_LARGE' });
    const { message } = err as Error;
    expect(message).to.contain('maxPayloadBytes (4000)');
    expect(Number(/payload is (\d+) bytes/.exec(message)?.[1])).to.be.greaterThan(LIMIT);
    // All or nothing, and scheduled jobs too.
    const small = { queue: 'unserved', class: 'Record', args: ['small'] };
    const scheduled = { queue: 'unserved', class: 'Record', args: [padded(LIMIT)], in: 60 };
    expect(await refusal(node.enqueueAll([small, scheduled]))).to.be.instanceOf(PayloadTooLargeError);
    expect(await t.redis.exists(t.keys.queue('unserved'), t.keys.schedule('unserved'))).to.equal(0);
    // Below the limit it goes in (to a queue this node does not serve, where it stays).
    await node.enqueue('unserved', 'Record', [padded(LIMIT - 500)]);
    expect(await t.redis.llen(t.keys.queue('unserved'))).to.equal(1);
  });

  it('nexq enqueue refuses a payload above NEXQ_MAX_PAYLOAD_BYTES in one line, exit code 2, writing nothing', async () => {
    const { cli } = cliAgainst(() => t);
    const run = await cli(['enqueue', 'default', 'Record', JSON.stringify([padded(LIMIT)])], {
      NEXQ_MAX_PAYLOAD_BYTES: String(LIMIT),
    });
    expect(run.status).to.equal(2);
    expect(run.stderr).to.match(/^nexq: job payload is \d+ bytes, above maxPayloadBytes \(4000\)[^\n]*\n$/);
    expect(await t.redis.exists(t.keys.queue('default'))).to.equal(0);
  });

  it('counts bytes, not characters, and takes 0 as no limit', () => {
    const wide = { queue: 'q', class: 'Record', args: ['é'.repeat(LIMIT / 2)] }; // 2 bytes each
    expect(() => prepareJobs([wide], 'seconds', 0, LIMIT)).to.throw(PayloadTooLargeError);
    expect(prepareJobs([wide], 'seconds', 0, 0)).to.have.length(1);
  });

  it('refuses 2 MB of args under the default limit (1 MB), in nexq/testing too', async () => {
    const big = { queue: 'q', class: 'Record', args: [padded(2 * 1024 * 1024)] };
    expect(() => prepareJobs([big])).to.throw(PayloadTooLargeError, /maxPayloadBytes \(1048576\)/);
    const testNexq = createTestNexq();
    expect(await refusal(testNexq.enqueue('q', 'Record', big.args))).to.be.instanceOf(PayloadTooLargeError);
    expect(testNexq.allEnqueued()).to.deep.equal([]);
  });

  it('sends a bigger payload a foreign producer pushed to the dead set with the reason, and runs the next job', async () => {
    const out = t.out('after');
    const node = await t.start({ nodeId: 'p', maxPayloadBytes: LIMIT, queues: [{ name: 'default', concurrency: 1 }] });
    const raw = JSON.stringify({ class: 'Record', args: [t.url, out, padded(LIMIT)], jid: 'big', queue: 'default' });
    await t.redis.lpush(t.keys.queue('default'), raw);
    await waitFor(async () => (await t.redis.zcard(t.keys.dead('default'))) === 1, 5000, 'the big job dead');
    const [dead] = (await t.redis.zrange(t.keys.dead('default'), 0, -1)).map((s) => JSON.parse(s));
    expect(dead).to.include({ jid: 'big', error_class: 'PayloadTooLargeError', retry: false });
    expect(dead.error_message).to.contain(`payload is ${raw.length} bytes`).and.contain('maxPayloadBytes (4000)');
    expect(dead.args).to.deep.equal([t.url, out, padded(LIMIT)]);
    await waitFor(async () => (await t.redis.llen(t.keys.backup('p', 'default'))) === 0, 2000, 'an empty backup list');
    expect(await t.redis.llen(out)).to.equal(0);
    await node.enqueue('default', 'Record', [t.url, out, 'small']);
    await t.waitForRecords(out);
  });
});
