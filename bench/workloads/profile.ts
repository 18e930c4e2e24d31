// --profile: W2 at concurrency 50 with the node child under `node --cpu-prof`. V8 writes one
// .cpuprofile per thread (main and each worker thread) when the child exits; this sums their
// self time per function over the measured window (ready → last ack) and keeps the top 15.
import { mkdtempSync, readdirSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { BenchContext } from '../context';
import { ProfileSummary, summarize } from '../cpu-profile';
import { runW2, W2Result } from './w2-processing';

export const PROFILE_TOP = 15;
const CONCURRENCY = 50;

export interface ProfileResult {
  dir: string;
  run: W2Result;
  /** The main thread's profile, then each worker thread's. */
  mainThread?: ProfileSummary;
  workerThreads: ProfileSummary[];
}

export async function runProfile(ctx: BenchContext): Promise<ProfileResult> {
  const dir = mkdtempSync(path.join(os.tmpdir(), 'nexq-bench-prof-'));
  const run = await runW2(ctx, CONCURRENCY, ['--cpu-prof', `--cpu-prof-dir=${dir}`]);
  // Names are CPU.<date>.<time>.<pid>.<thread id>.<seq>.cpuprofile; thread id 0 is the main thread.
  const files = readdirSync(dir)
    .filter((f) => f.endsWith('.cpuprofile'))
    .sort();
  const window: [number, number] = [run.ready.mono, run.done.mono];
  let mainThread: ProfileSummary | undefined;
  const workerThreads: ProfileSummary[] = [];
  for (const file of files) {
    const summary = summarize(path.join(dir, file), PROFILE_TOP, window);
    if (file.split('.')[4] === '0') mainThread = summary;
    else workerThreads.push(summary);
  }
  if (!mainThread)
    ctx.problems.push(`--profile: no main-thread .cpuprofile in ${dir} (files: ${files.join(', ') || 'none'})`);
  return { dir, run, mainThread, workerThreads };
}
