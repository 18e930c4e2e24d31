// How jobs reach the threads' control ports (src/pool/thread-channels.ts): the jobs of one turn go
// in batches, except the first job to reach an idle pool, which goes at once. Ports are stand-ins
// that record what is posted; no thread runs.
import { expect } from 'chai';
import type { MessagePort } from 'node:worker_threads';
import { ThreadChannels } from '../../src/pool/thread-channels';
import type { ControlMessage, JobTask } from '../../workers/protocol';

/** A port that keeps the ids of each 'run' message posted to it. */
function recordingPort(): { port: MessagePort; batches: number[][] } {
  const batches: number[][] = [];
  const port = {
    postMessage: (msg: ControlMessage) => {
      if (msg.type === 'run') batches.push(msg.tasks.map((task) => task.id));
    },
  } as unknown as MessagePort;
  return { port, batches };
}

const task = (): JobTask => ({ raw: '{}', file: 'none.js', generation: 0 });
/** Ends the jobs, so the pool lets go of the timer that keeps the process up while it holds any. */
const settleAll = (channels: ThreadChannels, ids: number[]) => ids.forEach((id) => channels.settle(id, { ok: true }));
const nextTick = () => new Promise((resolve) => process.nextTick(resolve));

describe('thread channels', () => {
  it('sends the first job that reaches an idle pool at once, and batches the rest of the turn', async () => {
    const channels = new ThreadChannels(() => Promise.resolve());
    const a = recordingPort();
    channels.opened(1, a.port);
    const runs = [channels.run(task(), 1)];
    // Posted before any tick or microtask: nothing the main thread does next can hold it up.
    expect(a.batches).to.deep.equal([[1]]);
    runs.push(channels.run(task(), 2), channels.run(task(), 3));
    expect(a.batches).to.deep.equal([[1]]);
    await nextTick();
    expect(a.batches).to.deep.equal([[1], [2, 3]]);
    settleAll(channels, [1, 2, 3]);
    await Promise.all(runs);
  });

  it('batches every job of a turn while a thread holds one', async () => {
    const channels = new ThreadChannels(() => Promise.resolve());
    const a = recordingPort();
    const b = recordingPort();
    channels.opened(1, a.port);
    channels.opened(2, b.port);
    const runs = [channels.run(task(), 1)]; // at once, to the first thread
    await nextTick();
    runs.push(channels.run(task(), 2), channels.run(task(), 3));
    expect([...a.batches, ...b.batches]).to.deep.equal([[1]]);
    await nextTick();
    // Split over the threads, the most to the one holding the fewest.
    expect(b.batches).to.deep.equal([[2]]);
    expect(a.batches).to.deep.equal([[1], [3]]);
    settleAll(channels, [1, 2, 3]);
    await Promise.all(runs);
  });
});
