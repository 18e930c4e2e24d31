// The bench's command line: W6 is a workload `--only` knows, and `--w6-jobs` sets its size.
import { expect } from 'chai';
import { parseOptions, UsageError, wants } from '../../bench/options';

describe('bench options', () => {
  it('runs W6 alone with --only W6, at the job count --w6-jobs gives', () => {
    const options = parseOptions(['--only', 'w6', '--peers=bee-queue,bullmq', '--w6-jobs', '2000']);
    expect(wants(options, 'W6')).to.equal(true);
    expect(wants(options, 'W2')).to.equal(false);
    expect(options.w6Jobs).to.equal(2000);
    expect(options.peers).to.deep.equal(['bee-queue', 'bullmq']);
  });

  it('runs W6 among everything without --only, at the run’s size', () => {
    const options = parseOptions([]);
    expect(wants(options, 'W6')).to.equal(true);
    expect(options.w6Jobs).to.equal(undefined);
  });

  it('refuses a --w6-jobs that is not a whole number of jobs', () => {
    for (const bad of ['0', '-5', '1.5', 'many']) expect(() => parseOptions(['--w6-jobs', bad])).to.throw(UsageError);
    expect(() => parseOptions(['--w6-jobs'])).to.throw(UsageError);
  });
});
