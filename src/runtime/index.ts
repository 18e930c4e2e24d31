export * from './actor';
export * from './errors';
export * from './registry';
export * from './ticking-actor';
export * from './tree-snapshot';
