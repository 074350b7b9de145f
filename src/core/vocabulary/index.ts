// The core's words and rules, free of Node and ioredis: what the webview, src/shared and
// every surface may read without pulling in a connection.
export * from './types';
export * from './flags';
export * from './resource';
export * from './tokens';
export * from './classify';
export * from './actions';
export * from './formats';
export * from './holderToken';
export * from './deadlocks';
export * from './libraries';
export * from './inspectTypes';
export * from './describe';
export * from './lockEvents';
export * from './leases';
export * from './audit';
export * from './lockStats';
export * from './foreignHolders';
export * from './foreignKeys';
export * from './lockShapes';
export * from './liveness';
