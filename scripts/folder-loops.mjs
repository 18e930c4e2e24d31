// Folders import one way: reads dependency-cruiser's JSON (stdin), folds each module into its
// folder (src/<folder>/, or a file of src/ itself, or a top folder: config/, workers/, ...), and
// fails when folders import each other in a loop, type-only imports included. Each file may obey
// the layers of .dependency-cruiser.js while two folders still lean on each other; this catches that.
// Run by `npm run check:imports`.
import { readFileSync } from 'node:fs';

const folderOf = (path) => {
  const parts = path.split('/');
  if (parts[0] === 'src') return parts.length === 2 ? path : `src/${parts[1]}/`;
  return `${parts[0]}/`;
};

const cruise = JSON.parse(readFileSync(0, 'utf8'));
const edges = new Map();
const why = new Map();
for (const module of cruise.modules) {
  if (module.coreModule || module.couldNotResolve || module.source.startsWith('node_modules')) continue;
  const from = folderOf(module.source);
  if (!edges.has(from)) edges.set(from, new Set());
  for (const dependency of module.dependencies) {
    if (dependency.coreModule || dependency.resolved.startsWith('node_modules')) continue;
    const to = folderOf(dependency.resolved);
    if (to === from) continue;
    edges.get(from).add(to);
    if (!why.has(`${from} ${to}`)) why.set(`${from} ${to}`, `${module.source} -> ${dependency.resolved}`);
  }
}

// Tarjan's strongly connected components over the folders.
let index = 0;
const order = new Map();
const low = new Map();
const stack = [];
const loops = [];
const visit = (folder) => {
  order.set(folder, index);
  low.set(folder, index++);
  stack.push(folder);
  for (const next of edges.get(folder) ?? []) {
    if (!order.has(next)) {
      visit(next);
      low.set(folder, Math.min(low.get(folder), low.get(next)));
    } else if (stack.includes(next)) {
      low.set(folder, Math.min(low.get(folder), order.get(next)));
    }
  }
  if (low.get(folder) === order.get(folder)) {
    const component = [];
    let member;
    do {
      member = stack.pop();
      component.push(member);
    } while (member !== folder);
    if (component.length > 1) loops.push(component);
  }
};
for (const folder of edges.keys()) if (!order.has(folder)) visit(folder);

if (loops.length === 0) {
  console.log(`✔ no folder imports loop back (${edges.size} folders)`);
} else {
  for (const loop of loops) {
    console.error(`✘ these folders import each other in a loop: ${loop.join(', ')}`);
    for (const from of loop)
      for (const to of loop) if (why.has(`${from} ${to}`)) console.error(`    ${why.get(`${from} ${to}`)}`);
  }
  process.exitCode = 1;
}
