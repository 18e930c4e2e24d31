// The dashboard page: a hash router over the views, and the live counters, polled every 2 s.
import { el, getJson, number } from './dom.js';
import { dashboard, queuesPage, queuePage } from './views.js';
import { runningPage, processesPage } from './processes.js';
import { setPage, jobPage } from './jobs.js';
import { metricsPage } from './metrics.js';
import { batchesPage, batchPage } from './batches.js';
import { schedulesPage } from './schedules.js';
import { groupsPage } from './groups.js';

const POLL_MS = 2000;
const MAX_SAMPLES = 60;

// [pattern over the hash path, view, live: re-rendered at every poll]
const ROUTES = [
  [/^$/, dashboard, true],
  [/^queues$/, queuesPage, false],
  [/^queues\/([^/]+)\/groups$/, groupsPage, false],
  [/^queues\/(.+)$/, queuePage, false],
  [/^running$/, runningPage, true],
  [/^scheduled$/, setPage('schedule'), false],
  [/^retries$/, setPage('retry'), false],
  [/^dead$/, setPage('dead'), false],
  [/^processes$/, processesPage, true],
  [/^jobs\/(.+)$/, jobPage, false],
  [/^metrics$/, metricsPage, false],
  [/^batches$/, batchesPage, false],
  [/^batches\/(.+)$/, batchPage, false],
  [/^schedules$/, schedulesPage, false],
];

const env = { samples: [], rerender: () => render() };
let current = { live: false };
let renderSeq = 0;

function parseHash() {
  const text = location.hash.replace(/^#\/?/, '');
  const [path, search = ''] = text.split('?');
  return { path, query: new URLSearchParams(search) };
}

/** Shows the page the hash names; a newer navigation wins over a slower older one. */
async function render() {
  const seq = ++renderSeq;
  const { path, query } = parseHash();
  const main = document.getElementById('main');
  const route = ROUTES.find(([pattern]) => pattern.test(path));
  for (const link of document.querySelectorAll('nav a'))
    link.classList.toggle('current', link.getAttribute('href') === `#/${path.split('/')[0]}`);
  if (!route) {
    current = { live: false };
    main.replaceChildren(el('h2', {}, 'Not found'), el('p', {}, el('a', { href: '#/' }, 'Back to the dashboard')));
    return;
  }
  const [pattern, view, live] = route;
  const params = pattern
    .exec(path)
    .slice(1)
    .map((p) => decodeURIComponent(p));
  current = { live };
  let content;
  try {
    content = await view(params, query, env);
  } catch (err) {
    content = el('p', { class: 'error' }, `Could not load this page: ${err.message}`);
  }
  if (seq !== renderSeq) return;
  main.replaceChildren(content);
  main.dataset.page = path.split('/')[0] || 'dashboard';
  main.dataset.rendered = String(seq);
}

const COUNTERS = ['processed', 'failed', 'busy', 'enqueued', 'scheduled', 'retries', 'dead', 'processes'];

async function poll() {
  const status = document.getElementById('status');
  try {
    const stats = await getJson('/stats');
    for (const name of COUNTERS) document.getElementById(`count-${name}`).textContent = number(stats[name]);
    env.samples.push({ time: Date.parse(stats.time), processed: stats.processed, failed: stats.failed });
    if (env.samples.length > MAX_SAMPLES) env.samples.shift();
    status.textContent = `updated ${new Date(stats.time).toLocaleTimeString()}`;
    status.className = '';
    if (current.live) await render();
  } catch (err) {
    status.textContent = `cannot reach the node: ${err.message}`;
    status.className = 'error';
  } finally {
    setTimeout(poll, POLL_MS);
  }
}

document.getElementById('find-job').addEventListener('submit', (event) => {
  event.preventDefault();
  const jid = document.getElementById('find-jid').value.trim();
  if (jid) location.hash = `#/jobs/${encodeURIComponent(jid)}`;
});

window.addEventListener('hashchange', () => {
  document.getElementById('message').hidden = true;
  render();
});

render();
poll();
