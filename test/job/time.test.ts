// Timestamps as the wire format wants them.
import { expect } from 'chai';
import { dateToSeconds, jsonSeconds, nowSeconds, readSeconds } from '../../src/job/time';

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
