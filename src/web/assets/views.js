// The dashboard's read-mostly pages: overview, queues (with pause/resume), one queue's jobs, the
// jobs running on every node, and the processes. The set pages and the job page are in jobs.js.
import { el, getJson, post, table, jobLink, queueLink, number, relative, argsText, say, button } from './dom.js';
import { lineGraph } from './graph.js';

const HISTORY_DAYS = 30;

function timeLabel(ms) {
  return new Date(ms).toISOString().slice(11, 19);
}

/** Rates per second between consecutive polls of the counters. */
function liveGraph(samples) {
  const points = samples.slice(1).map((s, i) => {
    const seconds = Math.max(0.001, (s.time - samples[i].time) / 1000);
    return {
      time: s.time,
      processed: Math.max(0, (s.processed - samples[i].processed) / seconds),
      failed: Math.max(0, (s.failed - samples[i].failed) / seconds),
    };
  });
  return lineGraph({
    title: 'Jobs per second, live',
    labels: points.map((p) => timeLabel(p.time)),
    series: [
      { name: 'processed', values: points.map((p) => Math.round(p.processed * 100) / 100) },
      { name: 'failed', values: points.map((p) => Math.round(p.failed * 100) / 100) },
    ],
  });
}

function pausedText(mode) {
  return mode
    ? el('span', { class: `badge paused` }, `paused (${mode})`)
    : el('span', { class: 'badge active' }, 'active');
}

export async function dashboard(_params, _query, env) {
  const [history, queues] = await Promise.all([getJson(`/history?days=${HISTORY_DAYS}`), getJson('/queues')]);
  return el(
    'div',
    {},
    el('h2', {}, 'Live'),
    el('div', { id: 'live-graph' }, liveGraph(env.samples)),
    el('h2', {}, `History, last ${HISTORY_DAYS} days (UTC)`),
    el(
      'div',
      { id: 'history-graph' },
      lineGraph({
        title: `Processed and failed per day, last ${HISTORY_DAYS} days`,
        labels: history.map((d) => d.day),
        series: [
          { name: 'processed', values: history.map((d) => d.processed) },
          { name: 'failed', values: history.map((d) => d.failed) },
        ],
      }),
    ),
    el('h2', {}, 'Queues'),
    table(
      ['Queue', 'Size', 'Latency', 'State'],
      queues.map((q) => [queueLink(q.queue), number(q.size), `${q.latency.toFixed(1)} s`, pausedText(q.paused)]),
      'No queues yet.',
    ),
  );
}

async function act(what, action, rerender) {
  try {
    await action();
    say(what);
  } catch (err) {
    say(`${what} failed: ${err.message}`, true);
  }
  await rerender();
}

function pauseControls(q, rerender) {
  if (q.paused) {
    return button(
      'Resume',
      () => act(`queue ${q.queue} resumed`, () => post(`/queues/${encodeURIComponent(q.queue)}/resume`), rerender),
      { class: 'resume' },
    );
  }
  const mode = el(
    'select',
    { class: 'pause-mode', 'aria-label': `What to pause of ${q.queue}` },
    el('option', { value: 'out' }, 'processing'),
    el('option', { value: 'in' }, 'enqueues'),
    el('option', { value: 'all' }, 'both'),
  );
  const pause = button(
    'Pause',
    () =>
      act(
        `queue ${q.queue} paused (${mode.value})`,
        () => post(`/queues/${encodeURIComponent(q.queue)}/pause`, { mode: mode.value }),
        rerender,
      ),
    { class: 'pause' },
  );
  return el('span', {}, pause, ' ', mode);
}

export async function queuesPage(_params, _query, env) {
  const queues = await getJson('/queues');
  return el(
    'div',
    {},
    el('h2', {}, 'Queues'),
    el(
      'p',
      { class: 'hint' },
      'Pausing processing stops every node fetching from the queue (jobs running finish); pausing enqueues refuses new jobs.',
    ),
    table(
      ['Queue', 'Size', 'Latency', 'State', ''],
      queues.map((q) => ({
        attrs: { 'data-queue': q.queue },
        cells: [
          queueLink(q.queue),
          el('span', { class: 'size' }, number(q.size)),
          `${q.latency.toFixed(1)} s`,
          pausedText(q.paused),
          pauseControls(q, env.rerender),
        ],
      })),
      'No queues yet.',
    ),
  );
}

const PAGE_SIZE = 50;

/** Prev / next links for a list of `size` entries shown PAGE_SIZE at a time. */
export function pager(base, page, size) {
  const pages = Math.max(1, Math.ceil(size / PAGE_SIZE));
  return el(
    'p',
    { class: 'pager' },
    page > 1 ? el('a', { href: `${base}?page=${page - 1}` }, '‹ previous') : '',
    ` page ${page} of ${pages} `,
    page < pages ? el('a', { href: `${base}?page=${page + 1}` }, 'next ›') : '',
  );
}

export function pageOf(query) {
  const page = Number(query.get('page') ?? 1);
  return Number.isInteger(page) && page > 0 ? page : 1;
}

export async function queuePage([queue], query) {
  const page = pageOf(query);
  const data = await getJson(
    `/queues/${encodeURIComponent(queue)}?limit=${PAGE_SIZE}&offset=${(page - 1) * PAGE_SIZE}`,
  );
  return el(
    'div',
    {},
    el('h2', {}, `Queue ${queue} `, el('small', {}, `${number(data.size)} waiting, next to run first`)),
    table(
      ['Jid', 'Class', 'Enqueued', 'Args'],
      data.jobs.map((j) => ({
        attrs: { 'data-jid': j.jid ?? '' },
        cells: [jobLink(j.jid), j.class ?? '?', relative(j.enqueued_at), el('code', {}, argsText(j))],
      })),
      'The queue is empty.',
    ),
    pager(`#/queues/${encodeURIComponent(queue)}`, page, data.size),
  );
}

export async function runningPage() {
  const processes = await getJson('/processes');
  const jobs = processes.flatMap((p) => p.jobs.map((j) => ({ ...j, node: p.info?.node_id ?? p.identity })));
  return el(
    'div',
    {},
    el('h2', {}, 'Running jobs ', el('small', {}, 'as of each node’s last heartbeat')),
    table(
      ['Node', 'Jid', 'Class', 'Queue', 'Started', 'Args'],
      jobs.map((j) => ({
        attrs: { 'data-jid': j.jid ?? '' },
        cells: [
          j.node,
          jobLink(j.jid),
          j.class ?? '?',
          queueLink(j.queue),
          relative(j.run_at),
          el('code', {}, argsText(j)),
        ],
      })),
      'Nothing runs right now.',
    ),
  );
}

export async function processesPage() {
  const processes = await getJson('/processes');
  return el(
    'div',
    {},
    el('h2', {}, 'Processes'),
    table(
      ['Identity', 'Node', 'Host', 'Pid', 'Queues', 'Concurrency', 'Busy', 'Reserved', 'Last beat', 'Started', 'Quiet'],
      processes.map((p) => ({
        attrs: { 'data-identity': p.identity },
        cells: [
          p.identity,
          p.info?.node_id ?? '–',
          p.hostname ?? '–',
          p.pid ?? '–',
          Array.isArray(p.queues) ? p.queues.join(', ') : '–',
          p.concurrency ?? '–',
          number(p.busy),
          number(p.reserved ?? 0),
          relative(p.beat),
          relative(p.started_at),
          p.quiet ? 'yes' : 'no',
        ],
      })),
      'No live processes.',
    ),
  );
}
