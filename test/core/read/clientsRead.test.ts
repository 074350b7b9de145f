// CLIENT LIST for the liveness verdict, on a real node: our connections carry our name, a
// node with too many clients is not listed (the list would be slow), and lines parse.
import assert from 'node:assert/strict';
import { connect, type Socket } from 'node:net';
import { CONNECTION_NAME } from '../../../src/core/bookkeeping/holderIdentity';
import { MAX_CLIENTS, namedClients, readClients } from '../../../src/core/read/clientsRead';
import { useNodes } from '../../support/nodesFixture';
import { waitFor } from '../../support/wait';
import type { InspectContext, NodeScan } from '../../../src/core/read/context';

describe('clientsRead', function () {
  this.timeout(30_000);
  const fx = useNodes(1, { commandTimeoutMs: 1000 });
  const sockets: Socket[] = [];
  afterEach(() => sockets.splice(0).forEach((s) => s.destroy()));

  const ctxOf = (): { ctx: InspectContext; scans: NodeScan[] } => ({
    ctx: { nodes: fx.rl.nodes, driftFactor: 0.01, commandTimeoutMs: 1000 },
    scans: fx.rl.nodes.map((n) => ({ status: { node: n.id, reachable: true, latencyMs: 0, error: null, outcome: 'ok' } }) as unknown as NodeScan),
  });

  it('namedClients: name and the least idle per name; unnamed connections left out', () => {
    const list = 'id=3 addr=127.0.0.1:1 laddr=x fd=8 name=redlock-inspector:0011223344556677 age=9 idle=4 flags=N\n'
      + 'id=4 addr=127.0.0.1:2 laddr=x fd=9 name=redlock-inspector:0011223344556677 age=9 idle=1 flags=N\n'
      + 'id=5 addr=127.0.0.1:3 laddr=x fd=10 name= age=1 idle=0 flags=N\n';
    assert.deepEqual([...namedClients(list)], [['redlock-inspector:0011223344556677', 1000]]);
  });

  it('our Redlock names its connections with the process id its tokens carry', async () => {
    const { ctx, scans } = ctxOf();
    await fx.rl.inspect();
    const [node] = await waitFor(async () => {
      const r = await readClients(ctx, scans);
      return r[0].names?.has(CONNECTION_NAME) ? r : undefined;
    }, 5000, 'our named connection');
    assert.equal(node.reason, null);
  });

  it(`past ${MAX_CLIENTS} clients the list is skipped, with the count as the reason`, async () => {
    const port = Number(new URL(fx.servers[0].url).port);
    await fx.rl.inspect();
    for (let i = 0; i <= MAX_CLIENTS; i++) {
      const s = connect(port, '127.0.0.1');
      s.on('error', () => undefined);
      sockets.push(s);
    }
    const { ctx, scans } = ctxOf();
    const [node] = await waitFor(async () => {
      const r = await readClients(ctx, scans);
      return r[0].reason?.startsWith('CLIENT LIST skipped') ? r : undefined;
    }, 10_000, 'the list skipped');
    assert.match(node.reason!, new RegExp(`^CLIENT LIST skipped on ${fx.rl.nodes[0].id}: \\d+ clients would make it slow$`));
  });
});
