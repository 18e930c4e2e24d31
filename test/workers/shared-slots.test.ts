// The shared work table has a reader on the worker threads: a handler's `this.slots()` reads its
// queue's concurrency and busy count on this node, lock-free, from the table the manager writes.
import { expect } from 'chai';
import { useNodes } from '../support/node';
import { createTestNexq } from '../../src/testing';
import { fixturesJobs } from '../support/paths';

describe("a handler's view of its queue's slots (the shared work table)", () => {
  const t = useNodes();

  it('reads the concurrency and the jobs running now from its worker thread', async () => {
    const node = await t.start({ queues: [{ name: 'q', concurrency: 3 }] });
    const out = t.out('slots');
    // Three jobs fetched together, each reading the table while all three run.
    await node.enqueueAll(Array.from({ length: 3 }, () => ({ queue: 'q', class: 'Slots', args: [t.url, out, 300] })));
    const seen = (await t.waitForRecords(out, 3)) as Array<{ concurrency: number; busy: number; free: number }>;
    for (const slots of seen) {
      expect(slots.concurrency).to.equal(3);
      expect(slots.busy).to.be.within(1, 3);
      expect(slots.free).to.equal(slots.concurrency - slots.busy);
    }
    expect(Math.max(...seen.map((s) => s.busy)), 'all three seen running at once').to.equal(3);
  });

  it('reads one slot, busy, under nexq/testing, where a job runs alone', async () => {
    const nexq = createTestNexq({ mode: 'inline', jobsDir: fixturesJobs });
    const out = t.out('slots-alone');
    await nexq.enqueue('q', 'Slots', [t.url, out, 0]);
    expect(await t.records(out)).to.deep.equal([{ concurrency: 1, busy: 1, free: 0 }]);
  });
});
