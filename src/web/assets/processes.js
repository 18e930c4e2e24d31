// The running jobs (with Cancel) and the processes (memory, threads, version, live busy, Quiet and
// Stop, and each node's supervision tree with its actors' states and restarts in the last hour).
import { el, getJson, post, table, jobLink, queueLink, number, relative, argsText, button } from './dom.js';
import { cancelButton } from './jobs.js';
import { act } from './views.js';

export async function runningPage(_params, _query, env) {
  const processes = await getJson('/processes');
  const jobs = processes.flatMap((p) => p.jobs.map((j) => ({ ...j, node: p.info?.node_id ?? p.identity })));
  return el(
    'div',
    {},
    el('h2', {}, 'Running jobs ', el('small', {}, 'written by each node as jobs start and end')),
    table(
      ['Node', 'Jid', 'Class', 'Queue', 'Started', 'Progress', 'Args', ''],
      jobs.map((j) => ({
        attrs: { 'data-jid': j.jid ?? '' },
        cells: [
          j.node,
          jobLink(j.jid),
          j.class ?? '?',
          queueLink(j.queue),
          relative(j.run_at),
          // What its handler last reported with this.progress(value), as of the node's last write.
          el('span', { class: 'progress' }, progressText(j.progress)),
          el('code', {}, argsText(j)),
          j.jid ? cancelButton(j.jid, env.rerender) : '',
        ],
      })),
      'Nothing runs right now.',
    ),
  );
}

function progressText(value) {
  if (value === undefined || value === null) return '';
  return typeof value === 'number' || typeof value === 'string' ? String(value) : JSON.stringify(value);
}

function signalButton(p, what, rerender) {
  const [text, path, confirmText] =
    what === 'quiet'
      ? ['Quiet', 'quiet', 'fetch no more jobs (those running finish)']
      : ['Stop', 'stop', 'stop (running jobs get the shutdown timeout)'];
  const send = () => {
    if (!window.confirm(`${p.identity}: ${confirmText}?`)) return;
    const done = `${text} sent to ${p.identity}; it acts on it at its next beat`;
    return act(done, () => post(`/processes/${encodeURIComponent(p.identity)}/${path}`), rerender);
  };
  return button(text, send, { class: what, disabled: what === 'quiet' && p.quiet });
}

function megabytes(kb) {
  return typeof kb === 'number' ? `${(kb / 1024).toFixed(0)} MB` : '–';
}

/** One actor of the tree as a list item, its children nested. */
function actorItem(a) {
  const restarts =
    a.restarts > 0 ? el('span', { class: 'restarts' }, ` ${a.restarts} restart(s) in the last hour`) : '';
  const last = a.lastExit ? el('span', { class: 'last-exit', title: a.lastExit }, ` last exit: ${a.lastExit}`) : '';
  const extra = a.strategy ? ` (${a.strategy}${a.running !== undefined ? `, ${a.running} running` : ''})` : '';
  return el(
    'li',
    { 'data-actor': a.id, 'data-state': a.state },
    el('strong', {}, a.id),
    extra,
    ' ',
    el('span', { class: `badge state-${a.state}` }, a.state),
    restarts,
    last,
    a.children ? el('ul', {}, a.children.map(actorItem)) : '',
  );
}

function treeOf(p) {
  if (!p.tree) return el('p', { class: 'empty' }, 'No tree published (not a nexq node, or not yet).');
  return el('ul', { class: 'tree' }, actorItem(p.tree));
}

export async function processesPage(_params, _query, env) {
  const processes = await getJson('/processes');
  return el(
    'div',
    {},
    el('h2', {}, 'Processes'),
    table(
      [
        'Identity',
        'Node',
        'Host',
        'Pid',
        'Version',
        'Queues',
        'Concurrency',
        'Busy',
        'Reserved',
        'Threads',
        'RSS',
        'Last beat',
        'Started',
        'Quiet',
        '',
      ],
      processes.map((p) => ({
        attrs: { 'data-identity': p.identity },
        cells: [
          p.identity,
          p.info?.node_id ?? '–',
          p.hostname ?? '–',
          p.pid ?? '–',
          p.version ?? '–',
          Array.isArray(p.queues) ? p.queues.join(', ') : '–',
          p.concurrency ?? '–',
          el('span', { class: 'busy' }, number(p.busy)),
          number(p.reserved ?? 0),
          p.threads ?? '–',
          megabytes(p.rss_kb),
          relative(p.beat),
          relative(p.started_at),
          p.quiet ? 'yes' : 'no',
          el('span', {}, signalButton(p, 'quiet', env.rerender), ' ', signalButton(p, 'stop', env.rerender)),
        ],
      })),
      'No live processes.',
    ),
    el('h2', {}, 'Supervision trees'),
    processes.map((p) =>
      el(
        'section',
        { class: 'node-tree', 'data-identity': p.identity },
        el('h3', {}, p.info?.node_id ?? p.identity),
        treeOf(p),
      ),
    ),
  );
}
