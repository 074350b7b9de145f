// `audit [RESOURCE | --pattern GLOB] [--since DURATION]`: did exclusion ever break? The
// recorded histories read like `history` (read-only, bounded) and audited in the core.
// Exit 0 clean, 4 findings, 3 (after printing what it has) when fewer than Q nodes answered.
import { Command, Option } from 'commander';
import { DEFAULT_AUDIT_SINCE_MS } from '../../core';
import type { AuditReport, AuditFinding, LockEvent, Redlock } from '../../core';
import { formatDuration } from '../../core/vocabulary';
import type { CliContext } from '../context';
import { escapeText, safeJson } from '../escape';
import { EXIT, ExitCode, UsageError } from '../exit';
import type { Io } from '../io';
import { durationParser, nodeOptions, NodeOptions, parseResource } from '../options';
import { clockTime } from '../render';
import { holderText } from '../../shared/holderText';
import { statusExit, tooFewNodesLine } from './status';

const KIND_WORDS: Record<AuditFinding['kind'], string> = {
  overlap: 'overlap',
  'past-lease': 'worked past its lease',
  'fence-order': 'fence out of order',
  'lost-unnoticed': 'lost without notice',
  'expired-unreleased': 'expired, not released',
};

const who = (h: AuditFinding['holders'][number], atMs: number): string => escapeText(holderText(h.holder, atMs)?.replace(/ for .*$/, '') ?? h.token);

function eventText(e: LockEvent): string {
  const extra = e.held === false ? ' (not held)' : e.operation ? ` (${e.operation})` : '';
  return `${clockTime(e.at!)} ${e.type}${extra} ${escapeText(e.token ?? '')}`;
}

export function renderAudit(report: AuditReport): string {
  const span = `${clockTime(report.from)} to ${clockTime(report.to)}`;
  const head = `Audit of ${report.resources} ${report.resources === 1 ? 'resource' : 'resources'}, ${span}${report.complete ? '' : ' (incomplete: some events may be missing)'}: `;
  if (report.findings.length === 0) return `${head}no findings.`;
  const lines = [`${head}${report.findings.length} ${report.findings.length === 1 ? 'finding' : 'findings'}`];
  for (const f of report.findings) {
    lines.push(`  ${clockTime(f.at)}  ${KIND_WORDS[f.kind]}  ${escapeText(f.resource)}  ${f.holders.map((h) => who(h, f.at)).join(' / ')}`);
    lines.push(`      ${f.detail}`);
    for (const e of f.evidence) lines.push(`      ${eventText(e)}`);
  }
  const expired = report.findings.filter((f) => f.kind === 'expired-unreleased');
  if (expired.length > 0) {
    const holders = [...new Set(expired.map((f) => who(f.holders[0], f.at)))];
    lines.push(`Expired, not released: ${expired.length} (${holders.join(', ')}).`);
  }
  return lines.join('\n');
}

export async function runAudit(redlock: Redlock, cmd: { resource?: Buffer; pattern?: string; sinceMs: number; json: boolean }, io: Io): Promise<ExitCode> {
  const report = await redlock.audit({ resource: cmd.resource, pattern: cmd.pattern, sinceMs: cmd.sinceMs });
  io.out(cmd.json ? safeJson({ findings: report.findings, from: report.from, to: report.to, complete: report.complete }, 2) : renderAudit(report));
  const code = statusExit(report);
  if (code !== EXIT.ok) {
    io.err(tooFewNodesLine(report));
    return code;
  }
  return report.findings.length > 0 ? EXIT.matched : EXIT.ok;
}

export function register(program: Command, ctx: CliContext): void {
  nodeOptions(program.command('audit').description('did exclusion ever break? overlaps, holders past their lease, fences out of order, losses unnoticed, locks left to expire (from recorded events; docs/audit.md)'))
    .argument('[resource]', 'one lock key (hex:<hex> for bytes that are not printable UTF-8); default every lock with recorded events', parseResource)
    .option('--pattern <glob>', 'audit the locks whose names match (Redis glob); default *')
    .addOption(new Option('--since <duration>', `how far back (default ${formatDuration(DEFAULT_AUDIT_SINCE_MS)})`).argParser(durationParser('--since', 1)))
    .action(ctx.action(async (resource: Buffer | undefined, opts: NodeOptions & { pattern?: string; since?: number }, cmd: Command) => {
      if (resource !== undefined && opts.pattern !== undefined) throw new UsageError('give a resource or --pattern, not both');
      if (opts.pattern === '') throw new UsageError('empty --pattern');
      return ctx.withRedlock(cmd, opts, {}, (redlock) => runAudit(redlock, { resource, pattern: opts.pattern, sinceMs: opts.since ?? DEFAULT_AUDIT_SINCE_MS, json: opts.json === true }, ctx.io));
    }));
}
