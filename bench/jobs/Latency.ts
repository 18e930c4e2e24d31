// W3's job: reads the time it started and posts (start − enqueued_at) in seconds to the node
// process's main thread over a BroadcastChannel. It never touches Redis; the reading is taken
// before the post, so the post costs nothing that is measured.
import { performance } from 'node:perf_hooks';
import { BroadcastChannel } from 'node:worker_threads';
import { LATENCY_CHANNEL, LatencyReading } from '../protocol';

const channel = new BroadcastChannel(LATENCY_CHANNEL);
channel.unref();

export function perform(this: { enqueuedAt: number | undefined }, index: number): void {
  const startedAt = (performance.timeOrigin + performance.now()) / 1000;
  const reading: LatencyReading = { index, seconds: startedAt - (this.enqueuedAt ?? NaN) };
  channel.postMessage(reading);
}
