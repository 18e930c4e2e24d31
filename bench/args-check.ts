// Micro-benchmark of the JSON-safety check of enqueue's args (issue 18): builds 100,000 payloads of
// typical args with encodeNewJob (which checks them), and times the check alone on the same args.
// No Redis. Run once after a build: node dist/bench/args-check.js
import { performance } from 'node:perf_hooks';
import { encodeNewJob } from '../src/job/job';
import { isJsonSafe } from '../src/job/json-safety';

const N = 100_000;
const ROUNDS = 5;
const args = [
  12345,
  'user@example.com',
  { plan: 'pro', items: [1, 2, 3], meta: { source: 'web', trial: false, coupon: null } },
];

function time(what: () => void): number {
  const start = performance.now();
  for (let i = 0; i < N; i++) what();
  return performance.now() - start;
}

let sink = 0;
const encode = () => void (sink += encodeNewJob('default', 'Mailer::Welcome', args).json.length);
const stringify = () => void (sink += JSON.stringify(args).length);
const check = () => void (sink += isJsonSafe(args) ? 1 : 0);
for (const warm of [encode, stringify, check]) time(warm);

const best = (f: () => void) => Math.min(...Array.from({ length: ROUNDS }, () => time(f)));
const encodeMs = best(encode);
const stringifyMs = best(stringify);
const checkMs = best(check);
const us = (ms: number) => ((ms * 1000) / N).toFixed(3);
console.log(`${N} payloads, best of ${ROUNDS} rounds`);
console.log(`encodeNewJob (with the check): ${encodeMs.toFixed(1)} ms, ${us(encodeMs)} µs each`);
console.log(
  `the check alone (isJsonSafe):  ${checkMs.toFixed(1)} ms, ${us(checkMs)} µs each (${((100 * checkMs) / encodeMs).toFixed(1)}% of encodeNewJob)`,
);
console.log(`JSON.stringify of the args:    ${stringifyMs.toFixed(1)} ms, ${us(stringifyMs)} µs each`);
if (sink === 0) console.log('');
