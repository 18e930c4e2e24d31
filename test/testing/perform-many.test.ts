// nexq/testing runs performMany handlers: a chunk through `performMany`, one job through
// `performJob` (a chunk of one), as a node would.
import { expect } from 'chai';
import path from 'node:path';
import { createTestNexq, TestNexq } from '../../src/testing';
import { repoRoot } from '../support/paths';

const Digest = path.join(repoRoot, 'test', 'fixtures', 'many-jobs', 'Digest.js');

describe('nexq/testing performMany', () => {
  let nexq: TestNexq;
  beforeEach(() => {
    nexq = createTestNexq({ jobs: { Digest } });
  });

  it('runs a chunk in one call and answers each job its own outcome, an Error failing that job alone', async () => {
    const outcomes = await nexq.performMany('Digest', [[1, 2], [-1], [3]]);
    expect(outcomes).to.have.length(3);
    expect(outcomes[0]).to.deep.equal({ ok: true });
    expect(outcomes[1]).to.deep.include({ ok: false });
    expect(!outcomes[1].ok && outcomes[1].error).to.include({ class: 'RangeError', message: '-1 is negative' });
    expect(outcomes[2]).to.deep.equal({ ok: true });
  });

  it('fails every job of the chunk when the handler throws', async () => {
    const outcomes = await nexq.performMany('Digest', [[1], ['throw']]);
    for (const outcome of outcomes)
      expect(!outcome.ok && outcome.error).to.include({ class: 'Error', message: 'digest failed' });
  });

  it('keeps each job its own result when asked, and runs a lone job through performJob as a chunk of one', async () => {
    const [kept] = await nexq.performMany('Digest', [[2, 3]], { keepResult: 10 });
    expect(kept.ok && kept.result).to.deep.include({ ttl: 10 });
    expect(JSON.parse((kept.ok && kept.result?.json) || 'null')).to.include({ sum: 5 });
    expect(await nexq.performJob('Digest', [-4])).to.deep.include({ ok: false });
    expect(await nexq.performJob('Digest', [4])).to.deep.equal({ ok: true });
  });
});
