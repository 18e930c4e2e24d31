// The ceiling: redis-benchmark against the bench's redis-server, one request in flight per
// client (-P 1) and pipelined (-P 50), default 50 clients. Read the other figures against it.
import { execFile } from 'node:child_process';

export interface CeilingResult {
  pipeline: number;
  /** Requests per second by test (LPUSH, RPOP), and the p50 it reports (ms). */
  tests: Record<string, { rps: number; p50Ms: number }>;
}

export const CEILING_REQUESTS = 200_000;

export function runRedisBenchmark(port: number, pipeline: number, requests = CEILING_REQUESTS): Promise<CeilingResult> {
  const args = [
    '-h',
    '127.0.0.1',
    '-p',
    String(port),
    '-q',
    '-n',
    String(requests),
    '-t',
    'lpush,rpop',
    '-P',
    String(pipeline),
  ];
  return new Promise((resolve, reject) => {
    execFile('redis-benchmark', args, { maxBuffer: 16 * 1024 * 1024 }, (err, stdout) => {
      if (err) {
        reject(new Error(`redis-benchmark failed: ${err.message}`));
        return;
      }
      const tests: CeilingResult['tests'] = {};
      // -q rewrites a progress line with \r; the final line of each test has "requests per second".
      for (const line of stdout.split(/[\r\n]+/)) {
        const m = /^(\w+): ([\d.]+) requests per second(?:, p50=([\d.]+) msec)?/.exec(line.trim());
        if (m) tests[m[1]] = { rps: Number(m[2]), p50Ms: Number(m.at(3) ?? NaN) }; // no p50: NaN
      }
      if (Object.keys(tests).length === 0) {
        reject(new Error(`redis-benchmark printed no results: ${stdout.slice(0, 200)}`));
        return;
      }
      resolve({ pipeline, tests });
    });
  });
}
