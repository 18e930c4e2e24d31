// Key tracking's bookkeeping against a real Redis: one live instance per node (a manager killed
// without its terminate must not keep turning tracking towards its own subscriber), and tracking
// turned on for the client the node uses now.
import { expect } from 'chai';
import Redis from 'ioredis';
import { PushTracking } from '../../src/fetch/push-tracking';
import { sharedRedis } from '../support/global-hooks';
import { waitFor } from '../support/node';

describe('key tracking (PushTracking)', () => {
  const clients: Redis[] = [];
  const client = () => {
    const made = new Redis(sharedRedis().url);
    clients.push(made);
    return made;
  };
  afterEach(() => {
    for (const c of clients.splice(0)) c.disconnect();
  });

  async function subscriberId(): Promise<number> {
    const sub = client();
    const id = Number(await sub.call('CLIENT', 'ID'));
    await sub.subscribe('__redis__:invalidate');
    return id;
  }

  it('turns tracking on for the main client, and a second instance of the same node silences the first', async () => {
    const main = client();
    await main.ping();
    const owner = {};
    let firstOn = 0;
    const first = new PushTracking(
      () => main,
      owner,
      () => firstOn++,
      () => {},
    );
    first.listening(await subscriberId());
    await waitFor(() => Promise.resolve(first.active), 5000, 'tracking on');
    const readyListeners = main.listenerCount('ready');

    const second = new PushTracking(
      () => main,
      owner,
      () => {},
      () => {},
    );
    expect(first.active).to.equal(false);
    expect(main.listenerCount('ready')).to.equal(readyListeners); // the first's listener went, the second's came
    const secondId = await subscriberId();
    second.listening(secondId);
    await waitFor(() => Promise.resolve(second.active), 5000, 'tracking on for the second');
    first.listening(await subscriberId()); // the dead one's subscriber reconnecting: ignored
    await new Promise((resolve) => setTimeout(resolve, 200));
    expect(first.active).to.equal(false);
    expect(firstOn).to.equal(1);
    const info = (await main.call('CLIENT', 'TRACKINGINFO')) as unknown[];
    expect(info[info.indexOf('redirect') + 1]).to.equal(secondId);
    second.close();
  });

  it('moves to the client the node uses now', async () => {
    let main = client();
    const tracking = new PushTracking(
      () => main,
      {},
      () => {},
      () => {},
    );
    tracking.listening(await subscriberId());
    await waitFor(() => Promise.resolve(tracking.active), 5000, 'tracking on');
    const before = main;
    main = client();
    await main.ping();
    expect(tracking.current()).to.equal(main);
    expect(before.listenerCount('end')).to.equal(0);
    await waitFor(() => Promise.resolve(tracking.active), 5000, 'tracking on for the new client');
    const info = (await main.call('CLIENT', 'TRACKINGINFO')) as unknown[];
    expect(info[info.indexOf('flags') + 1]).to.include('on');
    tracking.close();
  });
});
