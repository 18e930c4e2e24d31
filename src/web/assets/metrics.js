// The Metrics page, as Sidekiq 7's: per job class over the last hours, jobs processed and failed,
// total and average run time, p50 and p95, and a graph of one class (or all) per minute.
import { el, getJson, table, number } from './dom.js';
import { lineGraph } from './graph.js';

const PERIODS = [
  [60, '1 hour'],
  [180, '3 hours'],
  [480, '8 hours'],
];

function ms(value) {
  if (value === null) return '–';
  return value >= 10_000 ? `${number(Math.round(value / 1000))} s` : `${number(value)} ms`;
}

function href(minutes, className) {
  const query = new URLSearchParams({ minutes: String(minutes) });
  if (className) query.set('class', className);
  return `#/metrics?${query}`;
}

/** The minutes' sum over `rows`, per series. */
function sumPerMinute(rows, length) {
  const sum = { processed: new Array(length).fill(0), failed: new Array(length).fill(0) };
  for (const row of rows)
    for (let i = 0; i < length; i++) {
      sum.processed[i] += row.perMinute.processed[i];
      sum.failed[i] += row.perMinute.failed[i];
    }
  return sum;
}

export async function metricsPage(_params, query) {
  const minutes = Number(query.get('minutes')) || PERIODS[0][0];
  const chosen = query.get('class');
  const data = await getJson(`/metrics?minutes=${minutes}`);
  const rows = chosen ? data.classes.filter((c) => c.class === chosen) : data.classes;
  const perMinute = sumPerMinute(rows, data.minutes.length);
  return el(
    'div',
    {},
    el('h2', {}, `Metrics, last ${PERIODS.find(([m]) => m === minutes)?.[1] ?? `${minutes} minutes`} (UTC)`),
    el(
      'p',
      { class: 'periods' },
      PERIODS.map(([m, label]) => [
        el('a', { href: href(m, chosen), class: m === minutes ? 'current' : '' }, label),
        ' ',
      ]),
    ),
    el(
      'div',
      { id: 'metrics-graph' },
      lineGraph({
        title: `${chosen ?? 'All classes'}: jobs per minute`,
        labels: data.minutes.map((m) => m.slice(11)),
        series: [
          { name: 'processed', values: perMinute.processed },
          { name: 'failed', values: perMinute.failed },
        ],
      }),
    ),
    chosen ? el('p', {}, el('a', { href: href(minutes) }, 'All classes')) : '',
    table(
      ['Class', 'Processed', 'Failed', 'Total time', 'Average', 'p50', 'p95'],
      data.classes.map((c) => ({
        cells: [
          el('a', { href: href(minutes, c.class) }, c.class),
          number(c.processed),
          number(c.failed),
          ms(c.totalMs),
          ms(c.avgMs),
          ms(c.p50Ms),
          ms(c.p95Ms),
        ],
        attrs: { 'data-class': c.class },
      })),
      'No jobs finished in this period.',
    ),
  );
}
