// The lease rule: a job a node took into its backup list starts only while the node's last
// acknowledged beat is young enough that no reaper can have declared the node dead.
import { expect } from 'chai';
import { leaseSpanMs, NodeLease } from '../../src/run/lease';

describe('NodeLease', () => {
  let now = 0;
  const lease = (spanMs = 2000) => new NodeLease(spanMs, () => now);

  beforeEach(() => {
    now = 1_000_000;
  });

  it('spans nodeTimeout less one heartbeat, and never less than half of nodeTimeout', () => {
    expect(leaseSpanMs(30, 5)).to.equal(25_000);
    expect(leaseSpanMs(3, 1)).to.equal(2000);
    expect(leaseSpanMs(6, 5)).to.equal(3000);
  });

  it('holds before the first beat: no reaper lists a node that never beat', () => {
    expect(lease().holds()).to.equal(true);
  });

  it('lapses once the last acknowledged beat was sent a span ago, counted from its send', () => {
    const l = lease();
    const sent = l.mark();
    now += 500; // Redis' answer took half a second: the claim still counts from the send
    l.acknowledged(sent, true);
    now += 1499;
    expect(l.holds()).to.equal(true);
    now += 1;
    expect(l.holds()).to.equal(false);
  });

  it('a beat answered late renews nothing it did not earn: a frozen node stays lapsed', () => {
    const l = lease();
    l.acknowledged(l.mark(), true);
    const sentBeforeFreeze = l.mark();
    now += 10_000; // frozen with the answer unread
    l.acknowledged(sentBeforeFreeze, false);
    expect(l.holds()).to.equal(false);
  });

  it('wakes its listener when a beat renews a lapsed claim, and not while it holds', () => {
    const l = lease();
    let woken = 0;
    l.onRegained = () => woken++;
    l.acknowledged(l.mark(), true);
    now += 1000;
    l.acknowledged(l.mark(), false);
    expect(woken).to.equal(0);
    now += 5000;
    l.acknowledged(l.mark(), false);
    expect(woken).to.equal(1);
    expect(l.takeForfeit()).to.equal(false);
  });

  it('a beat Redis had lost after acknowledging one says the node was declared dead, once, and how long it was gone', () => {
    const l = lease();
    let woken = 0;
    l.onRegained = () => woken++;
    expect(l.acknowledged(l.mark(), true)).to.equal(undefined); // a first beat is absent too
    now += 7000;
    expect(l.acknowledged(l.mark(), true)).to.equal(7000);
    expect(woken).to.equal(1);
    expect(l.holds()).to.equal(true);
    expect(l.takeForfeit()).to.equal(true);
    expect(l.takeForfeit()).to.equal(false);
  });
});
