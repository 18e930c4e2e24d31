// W3's job: reads the time it started and posts (start − sentAt, the time the bench took just
// before its enqueue call) in seconds to the node
// process's main thread over a BroadcastChannel. It never touches Redis; the reading is taken
// before the post, so the post costs nothing that is measured.
import { performance } from 'node:perf_hooks';
import { BroadcastChannel } from 'node:worker_threads';
import { LATENCY_CHANNEL, LatencyReading } from '../protocol';

const channel = new BroadcastChannel(LATENCY_CHANNEL);
channel.unref();

export function perform(index: number, sentAt: number): void {
  const startedAt = (performance.timeOrigin + performance.now()) / 1000;
  const reading: LatencyReading = { index, seconds: startedAt - sentAt };
  channel.postMessage(reading);
}
