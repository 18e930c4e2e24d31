// The --peers report: which peer is the best for a figure, and how nexq's figure reads beside it.
import { expect } from 'chai';
import { bestPeer, comparisonTable, Figure, figures, ratioCell } from '../../bench/comparison';
import type { BenchResults } from '../../bench/report';
import type { PeerResult } from '../../bench/workloads/peers';

const throughput = (nexq: number | undefined, peers: [string, number | undefined][]): Figure => ({
  workload: 'W2 c10',
  metric: 'jobs/s',
  unit: 'jobs/s',
  better: 'higher',
  digits: 0,
  nexq,
  peers: peers.map(([name, value]) => ({ name, value })),
});

describe('bench comparison with the peers', () => {
  it('takes the fastest peer for a throughput and prints nexq as a ratio to it', () => {
    const figure = throughput(9800, [
      ['BullMQ', 17600],
      ['bee-queue', 24000],
      ['Sidekiq', 18000],
    ]);
    expect(bestPeer(figure)).to.deep.equal({ name: 'bee-queue', value: 24000 });
    expect(ratioCell(figure)).to.equal('nexq 9,800 jobs/s = 0.41× bee-queue 24,000');
  });

  it('takes the cheapest peer for a cost (CPU, memory, latency)', () => {
    const figure: Figure = {
      ...throughput(0.62, [
        ['bee-queue', 0.4],
        ['Sidekiq', 0.33],
        ['BullMQ', 0.78],
      ]),
      metric: 'p50',
      unit: 'ms',
      better: 'lower',
      digits: 2,
    };
    expect(ratioCell(figure)).to.equal('nexq 0.62 ms = 1.88× Sidekiq 0.33');
  });

  it('passes over a peer that did not measure the figure, and prints a dash when none did or nexq did not', () => {
    expect(
      bestPeer(
        throughput(1, [
          ['BullMQ threads', undefined],
          ['BullMQ', 5],
        ]),
      )?.name,
    ).to.equal('BullMQ');
    expect(ratioCell(throughput(1, [['BullMQ threads', undefined]]))).to.equal('—');
    expect(ratioCell(throughput(undefined, [['BullMQ', 5]]))).to.equal('—');
  });

  it('computes CPU per job from the process and redis-server together, over the jobs in the window', () => {
    const nexq = {
      w2: [
        {
          concurrency: 10,
          jobsPerSec: 10000,
          nodeCpuSeconds: 1.5,
          redisCpuSeconds: 0.5,
          jobsInWindow: 20000,
          nodePeakRssMb: 100,
        },
      ],
    } as unknown as BenchResults;
    const peer = {
      peer: 'sidekiq',
      version: 'Sidekiq 6.4.1',
      w2: [
        {
          concurrency: 10,
          jobsPerSec: 18000,
          processCpuSeconds: 0.8,
          redisCpuSeconds: 0.2,
          jobsInWindow: 20000,
          peakRssMb: 60,
        },
      ],
    } as unknown as PeerResult;
    const cpu = figures(nexq, [peer]).find((f) => f.metric.startsWith('CPU'));
    expect(cpu?.nexq).to.equal(100);
    expect(cpu?.peers).to.deep.equal([{ name: 'Sidekiq', value: 50 }]);
    const table = comparisonTable(nexq, [peer]);
    expect(table).to.contain('Sidekiq 6.4.1');
    expect(table).to.contain('nexq 10,000 jobs/s = 0.56× Sidekiq 18,000');
    expect(table).to.contain('nexq 100 µs = 2.00× Sidekiq 50');
  });
});
