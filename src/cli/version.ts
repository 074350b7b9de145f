// The package version, for --version and the MCP server's handshake.
import { readFileSync } from 'node:fs';
import { join } from 'node:path';

export function packageVersion(): string {
  // dist/cli.js sits next to the package root; elsewhere (tests) the version is unknown.
  try {
    return (JSON.parse(readFileSync(join(__dirname, '..', 'package.json'), 'utf8')) as { version?: string }).version ?? 'unknown';
  } catch {
    return 'unknown';
  }
}
