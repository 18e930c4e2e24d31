// Line graphs drawn as inline SVG: the processed/failed history per day and the live rates.
const NS = 'http://www.w3.org/2000/svg';

function svg(tag, attrs = {}, ...children) {
  const node = document.createElementNS(NS, tag);
  for (const [name, value] of Object.entries(attrs)) node.setAttribute(name, String(value));
  for (const child of children) node.append(child);
  return node;
}

const WIDTH = 800;
const HEIGHT = 220;
const PAD = { left: 50, right: 10, top: 10, bottom: 30 };

/** A round maximum for the y axis, at least 1. */
function niceMax(value) {
  if (value <= 1) return 1;
  const step = 10 ** Math.floor(Math.log10(value));
  return Math.ceil(value / step) * step;
}

/**
 * `labels`: x labels, one per point; `series`: [{ name, values }] of the same length. Each series
 * is a polyline with class `series-<name>`, each point a circle whose title tells its value.
 */
export function lineGraph({ title, labels, series }) {
  const max = niceMax(Math.max(0, ...series.flatMap((s) => s.values)));
  const plotW = WIDTH - PAD.left - PAD.right;
  const plotH = HEIGHT - PAD.top - PAD.bottom;
  const x = (i) => PAD.left + (labels.length < 2 ? plotW / 2 : (i * plotW) / (labels.length - 1));
  const y = (v) => PAD.top + plotH - (v / max) * plotH;
  const root = svg('svg', { viewBox: `0 0 ${WIDTH} ${HEIGHT}`, class: 'graph', role: 'img', 'aria-label': title });
  root.append(svg('title', {}, title));
  for (const fraction of [0, 0.5, 1]) {
    const value = max * fraction;
    root.append(svg('line', { x1: PAD.left, x2: WIDTH - PAD.right, y1: y(value), y2: y(value), class: 'grid' }));
    root.append(
      svg(
        'text',
        { x: PAD.left - 6, y: y(value) + 4, 'text-anchor': 'end', class: 'axis' },
        String(Math.round(value * 100) / 100),
      ),
    );
  }
  if (labels.length > 0) {
    root.append(
      svg(
        'text',
        { x: x(0), y: HEIGHT - 8, 'text-anchor': labels.length > 1 ? 'start' : 'middle', class: 'axis' },
        labels[0],
      ),
    );
    if (labels.length > 1)
      root.append(
        svg(
          'text',
          { x: x(labels.length - 1), y: HEIGHT - 8, 'text-anchor': 'end', class: 'axis' },
          labels[labels.length - 1],
        ),
      );
  }
  for (const { name, values } of series) {
    const group = svg('g', { class: `series series-${name}`, 'data-series': name });
    group.append(svg('polyline', { points: values.map((v, i) => `${x(i)},${y(v)}`).join(' ') }));
    values.forEach((v, i) =>
      group.append(
        svg('circle', { cx: x(i), cy: y(v), r: 3, 'data-value': v }, svg('title', {}, `${labels[i]}: ${v} ${name}`)),
      ),
    );
    root.append(group);
  }
  const legend = svg('g', { class: 'legend' });
  series.forEach(({ name }, i) => {
    const lx = PAD.left + 10 + i * 110;
    legend.append(svg('rect', { x: lx, y: PAD.top + 2, width: 12, height: 12, class: `swatch series-${name}` }));
    legend.append(svg('text', { x: lx + 18, y: PAD.top + 12, class: 'axis' }, name));
  });
  root.append(legend);
  return root;
}
