// Our connections carry the holder's process id in their name (CLIENT SETNAME), so that
// CLIENT LIST on a node tells whether a holder is still connected (docs/liveness.md).
// Sent once a connection is up, never as part of connecting: a server that refuses it
// (an ACL without CLIENT, a renamed command) must not fail or stall the connection.
import Redis, { Cluster } from 'ioredis';

function nameOnReady(client: Redis, name: string): void {
  const send = (): void => void client.client('SETNAME', name).catch(() => undefined);
  client.on('ready', send);
  if (client.status === 'ready') send();
}

/** Names every connection of `client` (a cluster's members as they come) `name`. */
export function nameConnections(client: Redis | Cluster, name: string): void {
  if (client instanceof Cluster) {
    client.on('+node', (member: Redis) => nameOnReady(member, name));
    for (const member of client.nodes()) nameOnReady(member, name);
  } else nameOnReady(client, name);
}
