// W6's report: nexq against bee-queue (and BullMQ) spread over as many processes as nexq has
// threads, in jobs/s and summed peak RSS, and against one such process in jobs/s.
import { expect } from 'chai';
import { w6Ratios, w6Report } from '../../bench/w6-report';
import type { W6Result, W6Run } from '../../bench/workloads/w6-cpu-bound';

const run = (runner: W6Run['runner'], processes: number, jobsPerSec: number, peakRssMb: number): W6Run => ({
  runner,
  version: runner === 'nexq' ? 'nexq' : `${runner} 1.0`,
  processes,
  concurrency: 10,
  seconds: 20_000 / jobsPerSec,
  jobsInWindow: 20_000,
  jobsPerSec,
  processCpuSeconds: 44,
  redisCpuSeconds: 2,
  peakRssMb,
  loadAverage: 1.5,
});

const result = (runs: W6Run[]): W6Result => ({
  jobs: 20_000,
  calibration: { iterations: 2000, targetMs: 2, microsPerHash: 1 },
  threads: 2,
  runs,
  skipped: ['sidekiq'],
});

describe('bench W6 report', () => {
  it('divides nexq by bee-queue over as many processes as threads, and by one bee-queue process', () => {
    const ratios = w6Ratios(
      result([run('nexq', 1, 900, 120), run('bee-queue', 1, 450, 90), run('bee-queue', 2, 1000, 200)]),
    );
    expect(ratios).to.deep.equal([
      { against: 'bee-queue × 2 processes', jobsPerSec: 0.9, peakRss: 0.6 },
      { against: 'bee-queue, one process', jobsPerSec: 2 },
    ]);
  });

  it('gives BullMQ’s ratios beside bee-queue’s, and none for a peer that did not run', () => {
    const ratios = w6Ratios(result([run('nexq', 1, 900, 120), run('bullmq', 2, 450, 240)]));
    expect(ratios).to.deep.equal([{ against: 'BullMQ × 2 processes', jobsPerSec: 2, peakRss: 0.5 }]);
    expect(w6Ratios(result([run('bee-queue', 2, 1000, 200)]))).to.deep.equal([]);
  });

  it('prints a row per runner with CPU per job, the ratios, and the peers W6 does not run', () => {
    const report = w6Report(result([run('nexq', 1, 900, 120), run('bee-queue', 2, 1000, 200)]));
    expect(report).to.contain('2000 SHA-256 hashes each');
    expect(report).to.contain('not run in W6: Sidekiq');
    expect(report).to.match(/\| nexq +\| 1 × c10 +\| 900 +\| 120\.0 +\| 2,200 \/ 100 +\| 200 /);
    expect(report).to.contain('- nexq ÷ bee-queue × 2 processes: jobs/s 0.90×');
    expect(report).to.contain('summed peak RSS 0.60×');
  });
});
