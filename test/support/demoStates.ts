// The demo's lock states live in src/dev (the demo and the UI test seed them too).
export * from '../../src/dev/demoStates';
