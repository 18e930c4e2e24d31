// The bench's handle on a peer's process: messages as JSON lines on stdout, other lines as its log.
import { expect } from 'chai';
import { NodeChild } from '../../bench/node-child';

/** A process that says version, ready and done in one write (a peer whose jobs all finished at start), then waits. */
const SCRIPT = `
const lines = [
  { type: 'version', version: 'fake 1.0' },
  { type: 'ready', nodeId: 'fake', at: 1, mono: 1, finishedAtReady: 3, cpu: { user: 0, system: 0 } },
  { type: 'done', at: 2, mono: 2, acked: 3, failed: 0, cpu: { user: 0, system: 0 }, latencies: [] },
];
process.stdout.write(lines.map((l) => JSON.stringify(l)).join('\\n') + '\\nnot a message\\n');
setInterval(() => {}, 1000);
`;

describe('bench NodeChild with a spawned peer process', () => {
  it('keeps messages that came in one read until they are waited for, and other lines as log', async () => {
    const { child, version } = await NodeChild.spawnPeer(process.execPath, ['-e', SCRIPT], {});
    try {
      expect(version).to.equal('fake 1.0');
      const ready = await child.next('ready', 2000);
      expect(ready.finishedAtReady).to.equal(3);
      const done = await child.waitDone();
      expect(done.acked).to.equal(3);
      expect(child.log).to.deep.equal(['not a message']);
    } finally {
      await child.stop();
    }
  });
});
