// Timestamps as the wire format wants them.
import { expect } from 'chai';
import { performance } from 'node:perf_hooks';
import { Clock, dateToSeconds, jsonSeconds, nowSeconds, readSeconds } from '../../src/job/time';

describe('wire timestamps', () => {
  it('writes whole seconds with a fraction, so no reader takes them for milliseconds', () => {
    expect(jsonSeconds(1700000000)).to.equal('1700000000.0');
    expect(jsonSeconds(0)).to.equal('0.0');
  });

  it('writes fractional seconds as they are', () => {
    expect(jsonSeconds(1700000000.25)).to.equal('1700000000.25');
    expect(jsonSeconds(1700000000.123456)).to.equal('1700000000.123456');
  });

  it('always gives a number with a fraction for now', () => {
    for (let i = 0; i < 20; i++) expect(jsonSeconds(nowSeconds())).to.match(/^\d+\.\d+$/);
  });

  it('gives now in epoch seconds, agreeing with Date', () => {
    const before = Date.now() / 1000;
    const now = nowSeconds();
    expect(now).to.be.within(before - 1, Date.now() / 1000 + 1);
  });

  it('converts a Date to epoch seconds', () => {
    expect(dateToSeconds(new Date('2023-11-14T22:13:20.500Z'))).to.equal(1700000000.5);
  });

  it('reads float seconds as seconds and integer milliseconds as seconds', () => {
    expect(readSeconds(1700000000.5)).to.equal(1700000000.5);
    expect(readSeconds(1700000000500)).to.equal(1700000000.5);
    expect(readSeconds('1700000000')).to.equal(undefined);
    expect(readSeconds(Number.NaN)).to.equal(undefined);
  });
});

describe("Clock: now by Redis' time", () => {
  it('reads the wall clock until its first sample', () => {
    const clock = new Clock();
    expect(clock.synced).to.equal(false);
    expect(clock.now()).to.be.within(Date.now() / 1000 - 1, Date.now() / 1000 + 1);
  });

  it("reads the sampled time plus the monotonic time since, whatever this machine's wall clock says", () => {
    const clock = new Clock();
    const at = performance.now();
    // Redis said 1,000 s past the epoch halfway through a 2 ms round trip; the wall clock said 45 s later.
    const offset = clock.sample(1000, at - 1, at + 1, 1045);
    expect(offset).to.equal(-45);
    expect(clock.offsetSeconds).to.equal(-45);
    expect(clock.uncertaintySeconds).to.be.within(0.001, 0.0011);
    const elapsed = (performance.now() - at) / 1000;
    expect(clock.now()).to.be.within(1000 + elapsed - 0.001, 1000 + (performance.now() - at) / 1000 + 0.001);
  });

  it('takes a new sample as its anchor when it is as sure as the anchor it has', () => {
    const clock = new Clock();
    const at = performance.now();
    clock.sample(1000, at, at, 1000);
    clock.sample(5000, at, at, 4990);
    expect(clock.offsetSeconds).to.equal(10);
    expect(clock.now()).to.be.within(5000, 5001);
  });

  it('keeps its anchor over a sample whose reply came late, which may be off by half its round trip', () => {
    const clock = new Clock();
    const at = performance.now();
    clock.sample(1000, at - 1, at + 1, 1000);
    // 30 s later a process frozen for 20 s in the middle of its sample: Redis answered at its start.
    const sent = at + 30_000;
    const offset = clock.sample(1030, sent, sent + 20_000, 1040);
    expect(clock.now()).to.be.within(
      1000 + (performance.now() - at) / 1000 - 0.001,
      1000 + (performance.now() - at) / 1000 + 0.001,
    );
    // The offset by the anchor kept: at the sample's middle (40 s after the anchor) Redis read 1040.
    expect(offset).to.be.closeTo(0, 1e-6);
    // A sample as quick as the anchor's, later, replaces it.
    clock.sample(1100, sent + 60_000, sent + 60_001, 1100);
    expect(clock.now()).to.be.within(
      1100 - 90 + (performance.now() - at) / 1000 - 0.01,
      1100 - 90 + (performance.now() - at) / 1000 + 0.01,
    );
  });
});
