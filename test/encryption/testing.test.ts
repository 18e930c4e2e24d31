// nexq/testing runs jobs that ask for encrypted args as any other: a test needs no keys, sees the
// args it enqueued, and the handler gets them.
import { expect } from 'chai';
import path from 'node:path';
import { createTestNexq } from '../../src/testing';
import { repoRoot } from '../support/paths';

const ECHO = path.join(repoRoot, 'test', 'fixtures', 'encrypted-jobs', 'Echo.js');

describe('encrypted args in nexq/testing', () => {
  it('records, drains and performs an `encrypt` module job and an `encrypt: true` job without keys', async () => {
    const nexq = createTestNexq({ jobs: { Echo: ECHO } });
    await nexq.enqueue('default', 'Echo', ['a', 1], { encrypt: true });
    expect(nexq.jobs().map((j) => j.args)).to.deep.equal([['a', 1]]);
    expect(await nexq.drain()).to.equal(1);
    const outcome = await nexq.performJob('Echo', ['b', 2], { keepResult: 60 });
    expect(outcome.ok && outcome.result && JSON.parse(outcome.result.json)).to.deep.equal(['b', 2]);
  });
});
