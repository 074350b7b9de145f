// The redis-server harness lives in src/dev (the demo and the benches use it too).
export * from '../../src/dev/redisServer';
