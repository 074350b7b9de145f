// `discover`: a bounded walk of the whole keyspace that finds lock-shaped keys whatever
// their names and prints them grouped into patterns to pass as --pattern (the core's
// discoverNodes; docs/formats.md, "Discovery"). Reads only. Exit 0, or 3 when fewer than
// a quorum of nodes answered (what was found is printed either way).
import { Option, type Command } from 'commander';
import type { Discovery, Redlock } from '../../core';
import type { CliContext } from '../context';
import { escapeText, safeJson } from '../escape';
import { EXIT, type ExitCode } from '../exit';
import type { Io } from '../io';
import { integerParser, nodeOptions, type NodeOptions } from '../options';
import { statusExit, tooFewNodesLine } from './status';

export function renderDiscovery(d: Pick<Discovery, 'scanned' | 'keyspace' | 'complete' | 'patterns'>): string {
  const seen = d.complete ? `the whole keyspace (${d.scanned} keys)` : `${d.scanned} of ${d.keyspace} keys (the budget stopped the walk; --budget reads further)`;
  if (d.patterns.length === 0) return `No lock-shaped keys in ${seen}.`;
  const lines = [`Lock-shaped keys in ${seen}:`];
  const width = Math.max(...d.patterns.map((p) => escapeText(p.pattern).length));
  for (const p of d.patterns) lines.push(`  ${escapeText(p.pattern).padEnd(width)}  ${String(p.count).padStart(5)}  ${escapeText(p.library)}  e.g. ${p.examples.map(escapeText).join(', ')}`);
  lines.push(`Read them with: status ${d.patterns.map((p) => `--pattern '${escapeText(p.pattern).replace(/'/g, "'\\''")}'`).join(' ')}`);
  return lines.join('\n');
}

export async function runDiscover(redlock: Redlock, cmd: { budget: number | undefined; json: boolean }, io: Io): Promise<ExitCode> {
  const d = await redlock.discover({ budgetKeys: cmd.budget, onProgress: (scanned, keyspace) => io.progress(`discover: ${scanned} of ${keyspace} keys read`) });
  io.progress(null);
  const quorum = Math.floor(d.nodes.length / 2) + 1;
  io.out(cmd.json ? safeJson({ scanned: d.scanned, keyspace: d.keyspace, complete: d.complete, patterns: d.patterns }, 2) : renderDiscovery(d));
  const code = statusExit({ nodes: d.nodes, quorum });
  if (code !== EXIT.ok) io.err(tooFewNodesLine({ nodes: d.nodes, quorum }));
  return code;
}

export function register(program: Command, ctx: CliContext): void {
  nodeOptions(program.command('discover').description('find lock-shaped keys whatever their names (a bounded walk of the whole keyspace) and print them as patterns'))
    .addOption(new Option('--budget <keys>', 'keys read per node at most (default 100000)').argParser(integerParser('--budget', 1, 10_000_000, 'keys')))
    .action(ctx.action(async (opts: NodeOptions & { budget?: number }, cmd: Command) =>
      ctx.withRedlock(cmd, opts, {}, (redlock) => runDiscover(redlock, { budget: opts.budget, json: opts.json === true }, ctx.io))));
}
