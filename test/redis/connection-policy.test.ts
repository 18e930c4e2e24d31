// One connection policy whatever finds the server: a URL, Sentinel or a cluster's nodes. A client
// that outlived its connection must neither resend a command nor give up reconnecting.
import { spawnSync } from 'node:child_process';
import path from 'node:path';
import { expect } from 'chai';
import { connect, connectCluster, CLUSTER_COMMAND_TIMEOUT_MS, COMMAND_TIMEOUT_MS } from '../../src/redis/connection';

const POLICY = { commandTimeout: COMMAND_TIMEOUT_MS, maxRetriesPerRequest: null, autoResendUnfulfilledCommands: false };

describe('connection policy', () => {
  it('is the same for a URL and for a Sentinel master, and reconnects on READONLY', () => {
    const url = connect('redis://127.0.0.1:1');
    const sentinel = connect({
      sentinels: [{ host: '127.0.0.1', port: 2 }],
      name: 'm',
      password: 'x',
      waitReplicas: 1,
    });
    try {
      for (const client of [url, sentinel]) {
        expect(client.options).to.include(POLICY);
        expect(client.options.retryStrategy!(1000)).to.be.a('number'); // never gives up
        expect(
          client.options.reconnectOnError!(new Error("READONLY You can't write against a read only replica.")),
        ).to.equal(1);
        expect(client.options.reconnectOnError!(new Error('ERR other'))).to.equal(false);
      }
      expect(sentinel.options).to.include({ name: 'm', password: 'x', failoverDetector: true });
      expect(sentinel.options).to.not.have.property('waitReplicas'); // nexq's own fields stay out of ioredis
      expect(sentinel.options.sentinelRetryStrategy!(1000)).to.be.a('number');
    } finally {
      url.disconnect();
      sentinel.disconnect();
    }
  });

  it("is every cluster node's, reading from masters, with a longer command timeout", () => {
    const cluster = connectCluster({ cluster: [{ host: '127.0.0.1', port: 3 }], password: 'x' });
    try {
      expect(cluster.options.redisOptions).to.include({
        ...POLICY,
        commandTimeout: CLUSTER_COMMAND_TIMEOUT_MS,
        password: 'x',
      });
      expect(cluster.options).to.include({ scaleReads: 'master', enableAutoPipelining: false });
      expect(cluster.options.clusterRetryStrategy!(1000)).to.be.a('number');
    } finally {
      cluster.disconnect();
    }
  });

  it('lets a cluster call wait for its whole command timeout through TRYAGAIN, ASK, MOVED and CLUSTERDOWN', () => {
    const cluster = connectCluster({ cluster: [{ host: '127.0.0.1', port: 3 }] });
    try {
      const o = cluster.options;
      expect(CLUSTER_COMMAND_TIMEOUT_MS, 'long enough to ride out a slot open for 10 s').to.be.greaterThan(10_000);
      // Each wait between tries lets through at most three redirections (MOVED, ASK, TRYAGAIN).
      for (const delay of [o.retryDelayOnTryAgain, o.retryDelayOnMoved, o.retryDelayOnClusterDown]) {
        expect(delay).to.be.greaterThan(0);
        expect((o.maxRedirections! / 3) * delay!).to.be.at.least(CLUSTER_COMMAND_TIMEOUT_MS);
      }
    } finally {
      cluster.disconnect();
    }
  });

  it('keeps its command timeout cheap without keeping a process alive', () => {
    // connect() keeps Node's timer list of the command timeout with an idle interval: it must be
    // unref'd, or no process that ever connected could exit by itself.
    const connection = path.resolve(__dirname, '../../src/redis/connection.js');
    const child = spawnSync(
      process.execPath,
      ['-e', `require(${JSON.stringify(connection)}).connect('redis://127.0.0.1:1').disconnect()`],
      { timeout: 10_000 },
    );
    expect(child.error, 'the process did not exit').to.equal(undefined);
    expect(child.status).to.equal(0);
  });
});
