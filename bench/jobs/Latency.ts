// W3's job: reads the time it started and posts (start − sentAt, the time the bench took just
// before its enqueue call, both on the monotonic clock) in seconds to the node
// process's main thread over a BroadcastChannel. It never touches Redis; the reading is taken
// before the post, so the post costs nothing that is measured.
import { BroadcastChannel } from 'node:worker_threads';
import { LATENCY_CHANNEL, LatencyReading, monotonicSeconds } from '../protocol';

const channel = new BroadcastChannel(LATENCY_CHANNEL);
channel.unref();

export function perform(index: number, sentAt: number): void {
  const startedAt = monotonicSeconds();
  const reading: LatencyReading = { index, seconds: startedAt - sentAt };
  channel.postMessage(reading);
}
