// /proc readings of a process tree: a process's descendants count with it (W6 sums the peak RSS
// of every process a runner starts).
import { spawn } from 'node:child_process';
import { once } from 'node:events';
import { expect } from 'chai';
import { memory, processTree, treePeakRssMb } from '../../bench/proc';

/** A node process that starts a child and says the child's pid. */
const PARENT = `
const { spawn } = require('node:child_process');
const child = spawn(process.execPath, ['-e', 'setInterval(() => {}, 1000)'], { stdio: 'ignore' });
process.stdout.write(child.pid + '\\n');
process.once('SIGTERM', () => { child.kill(); process.exit(0); });
setInterval(() => {}, 1000);
`;

describe('bench /proc readings of a process tree', () => {
  it('lists a process’s children and sums their peak RSS with its own', async () => {
    const parent = spawn(process.execPath, ['-e', PARENT], { stdio: ['ignore', 'pipe', 'inherit'] });
    try {
      const [data] = (await once(parent.stdout, 'data')) as [Buffer];
      const childPid = Number(data.toString().trim());
      expect(processTree(parent.pid!)).to.deep.equal([parent.pid, childPid]);
      const sum = memory(parent.pid!).peakRssMb + memory(childPid).peakRssMb;
      expect(treePeakRssMb(parent.pid!)).to.be.at.least(sum - 1);
    } finally {
      parent.kill('SIGTERM');
      await once(parent, 'exit');
    }
  });
});
