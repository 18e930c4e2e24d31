// docs/grafana/nexq-dashboard.json queries only what the exporter serves: every nexq_ series it
// names is a metric of a node's registry (a histogram's _bucket/_sum/_count of a histogram), and
// every label it groups by is one of that metric's labels (or `le`, a histogram bucket's).
import { expect } from 'chai';
import { readFileSync } from 'node:fs';
import path from 'node:path';
import { repoRoot } from '../support/paths';
import { useNodes } from '../support/node';

interface Panel {
  title: string;
  targets?: Array<{ expr: string }>;
}

const HISTOGRAM_SUFFIX = /_(bucket|sum|count)$/;

describe('the Grafana dashboard in docs/', () => {
  const t = useNodes();

  it('queries only metrics and labels the exporter has', async () => {
    const file = path.join(repoRoot, 'docs/grafana/nexq-dashboard.json');
    const dashboard = JSON.parse(readFileSync(file, 'utf8')) as { panels: Panel[] };
    const node = await t.start({ metrics: true });
    const { registry } = node.metrics;
    const exprs = dashboard.panels.flatMap((p) => (p.targets ?? []).map((target) => ({ title: p.title, ...target })));
    expect(exprs.length).to.be.greaterThan(5);
    for (const { title, expr } of exprs) {
      const names = [...expr.matchAll(/\bnexq_[a-z_]+/g)].map((m) => m[0]);
      expect(names, `${title}: ${expr}`).not.to.be.empty;
      const labels = new Set<string>();
      for (const name of names) {
        const direct = registry.getSingleMetric(name);
        const base = registry.getSingleMetric(name.replace(HISTOGRAM_SUFFIX, ''));
        const metric = direct ?? (HISTOGRAM_SUFFIX.test(name) ? base : undefined);
        expect(metric, `${title}: the exporter has no ${name}`).to.not.equal(undefined);
        if (!direct) {
          expect((await metric!.get()).type, `${name} of a histogram`).to.equal('histogram');
          labels.add('le');
        }
        for (const label of (metric as unknown as { labelNames: string[] }).labelNames) labels.add(label);
      }
      for (const [, list] of expr.matchAll(/\b(?:by|without)\s*\(([^)]*)\)/g))
        for (const label of list.split(',').map((l) => l.trim()))
          expect([...labels], `${title}: label ${label} in ${expr}`).to.include(label);
    }
  });
});
