// W6's unit of CPU work: a chain of SHA-256 hashes over a small buffer, each hashing the last
// digest, so no step can be skipped and the result names the work done. `calibrateIterations`
// finds, once per run, the chain length that costs about a given time on this machine; every
// runner (nexq's job, the peers' handler in bench/peers/cpu-work.js) then does that many.
import { createHash } from 'node:crypto';
import { performance } from 'node:perf_hooks';

/** The chain's first input: 64 bytes, as a small job payload might be. */
const SEED = Buffer.alloc(64, 0x6e);

/** Hashes `iterations` times, each over the previous digest; returns the last digest in hex. */
export function hashChain(iterations: number): string {
  let digest: Buffer = SEED;
  for (let i = 0; i < iterations; i++) digest = createHash('sha256').update(digest).digest();
  return digest.toString('hex');
}

/**
 * Rounds timed; the fastest counts (another process on the machine only ever makes one slower).
 * A round is JOBS_PER_ROUND jobs' worth of hashes back to back, so the garbage collection that
 * steady hashing causes (every hash allocates) is in it, as it is in a drain.
 */
const ROUNDS = 10;
const JOBS_PER_ROUND = 25;
/** A first guess of the cost, refined by the rounds: µs per hash on a fast machine. */
const FIRST_GUESS_ITERATIONS = 2000;

export interface Calibration {
  /** Chain length that costs about `targetMs`. */
  iterations: number;
  targetMs: number;
  /** The fastest round's cost of one hash, µs. */
  microsPerHash: number;
}

/** µs per hash of the fastest of ROUNDS rounds of `perRound` hashes. */
function fastestMicrosPerHash(perRound: number, rounds: number): number {
  let fastest = Infinity;
  for (let round = 0; round < rounds; round++) {
    const started = performance.now();
    hashChain(perRound);
    fastest = Math.min(fastest, performance.now() - started);
  }
  return (fastest * 1000) / perRound;
}

export function calibrateIterations(targetMs: number): Calibration {
  const guess = fastestMicrosPerHash(FIRST_GUESS_ITERATIONS, 3); // also JIT and OpenSSL warm-up
  const perJob = Math.max(1, Math.round((targetMs * 1000) / guess));
  const microsPerHash = fastestMicrosPerHash(perJob * JOBS_PER_ROUND, ROUNDS);
  return { iterations: Math.max(1, Math.round((targetMs * 1000) / microsPerHash)), targetMs, microsPerHash };
}
