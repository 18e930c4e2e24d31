// The serial ceiling: one ioredis client in the bench process, one awaited command at a time, as
// W1's one-at-a-time loop awaits one EVALSHA per job. An awaited PING is the bare round trip; an
// awaited EVALSHA of a script that only returns adds what running any script costs. W1 one at a
// time read against these says how much nexq adds to the round trip it cannot avoid.
import { performance } from 'node:perf_hooks';
import Redis from 'ioredis';

export interface SerialRoundTrips {
  /** Commands timed per kind (in rounds, PING and EVALSHA alternating), after untimed ones. */
  requests: number;
  pingPerSec: number;
  evalshaPerSec: number;
}

const TRIVIAL_SCRIPT = 'return 1';

/** Rounds of each kind, alternated, so a change in the machine's speed meets both alike. */
const ROUNDS = 4;

export async function measureSerialRoundTrips(
  url: string,
  requests: number,
  warmup: number,
): Promise<SerialRoundTrips> {
  // ioredis' defaults (no auto-pipelining, no command timeout): the client at its cheapest.
  const client = new Redis(url);
  try {
    const sha = (await client.script('LOAD', TRIVIAL_SCRIPT)) as string;
    const kinds = [() => client.ping(), () => client.evalsha(sha, 0)];
    for (const send of kinds) for (let i = 0; i < warmup; i++) await send();
    const seconds = kinds.map(() => 0);
    const perRound = Math.ceil(requests / ROUNDS);
    for (let round = 0; round < ROUNDS; round++) {
      for (const [k, send] of kinds.entries()) {
        const started = performance.now();
        for (let i = 0; i < perRound; i++) await send();
        seconds[k] += (performance.now() - started) / 1000;
      }
    }
    const timed = perRound * ROUNDS;
    return { requests: timed, pingPerSec: timed / seconds[0], evalshaPerSec: timed / seconds[1] };
  } finally {
    await client.quit().catch(() => client.disconnect());
  }
}
