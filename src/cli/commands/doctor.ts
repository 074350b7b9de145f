// `doctor`: is this Redlock deployment safe? The core's findings, grouped by severity
// with a one-line fix each, or `{ "findings": [...] }` with --json. Exit 4 when an
// error-level finding exists, 3 when fewer than a quorum of nodes answered (3 wins), else 0.
import { Command, Option } from 'commander';
import type { DoctorReport, Finding, Severity } from '../../core';
import type { Redlock } from '../../core';
import type { CliContext } from '../context';
import { escapeText, safeJson } from '../escape';
import { EXIT, ExitCode } from '../exit';
import type { Io } from '../io';
import { DEFAULT_PATTERN_TEXT, defaultPatterns, listParser, nodeOptions, NodeOptions } from '../options';
import { PLAIN, Style, styleFor } from '../style';

export function register(program: Command, ctx: CliContext): void {
  nodeOptions(program.command('doctor').description('check that the deployment is safe for Redlock: replicas, eviction, persistence, clocks, permissions (reads only)'))
    .addOption(new Option('--pattern <glob>', `SCAN MATCH glob of the lock keys, for the longest live TTL (repeatable; default ${DEFAULT_PATTERN_TEXT})`).argParser(listParser('--pattern')))
    .action(ctx.action(async (opts: NodeOptions & { pattern?: string[] }, cmd: Command) =>
      ctx.withRedlock(cmd, opts, {}, (redlock) => runDoctor(redlock, { json: opts.json === true, patterns: opts.pattern ?? ctx.connectionPatterns(cmd) ?? defaultPatterns() }, ctx.io))));
}

export interface DoctorArgs {
  json: boolean;
  patterns: string[];
}

const HEADINGS: Record<Severity, string> = { error: 'Errors', warning: 'Warnings', info: 'Info' };

export function doctorExit(report: DoctorReport): ExitCode {
  if (report.answered < report.quorum) return EXIT.noQuorum;
  return report.findings.some((f) => f.severity === 'error') ? EXIT.matched : EXIT.ok;
}

function mark(severity: Severity, style: Style): string {
  return severity === 'error' ? style.red('✖') : severity === 'warning' ? style.yellow('▲') : style.cyan('ℹ');
}

export function renderDoctor(report: DoctorReport, nodes: number, style: Style = PLAIN): string {
  const lines: string[] = [];
  const count = (s: Severity): number => report.findings.filter((f) => f.severity === s).length;
  lines.push(style.bold(`Deployment doctor: ${nodes} node${nodes === 1 ? '' : 's'}, ${report.answered} answered, quorum ${report.quorum}`));
  if (report.findings.length === 0) {
    lines.push(style.green('No findings: nothing unsafe was found.'));
    return lines.join('\n');
  }
  for (const severity of ['error', 'warning', 'info'] as const) {
    const group: Finding[] = report.findings.filter((f) => f.severity === severity);
    if (group.length === 0) continue;
    lines.push('', style.bold(`${HEADINGS[severity]} (${group.length})`));
    for (const f of group) {
      // Messages name their node first; the bracket is only for those that do not.
      const where = f.node === null || f.message.startsWith(f.node) ? '' : ` ${style.dim(`[${escapeText(f.node)}]`)}`;
      lines.push(`  ${mark(severity, style)} ${f.code}${where}: ${escapeText(f.message)}`);
      lines.push(`      ${style.dim('fix:')} ${escapeText(f.fix)}`);
    }
  }
  lines.push('', `${count('error')} error${count('error') === 1 ? '' : 's'}, ${count('warning')} warning${count('warning') === 1 ? '' : 's'}, ${count('info')} info`);
  return lines.join('\n');
}

export async function runDoctor(redlock: Redlock, cmd: DoctorArgs, io: Io): Promise<ExitCode> {
  const report = await redlock.doctor({ patterns: cmd.patterns });
  io.out(cmd.json ? safeJson({ findings: report.findings }, 2) : renderDoctor(report, redlock.nodes.length, styleFor(io.colour)));
  const code = doctorExit(report);
  if (code === EXIT.noQuorum) io.err(`redlock-inspector: only ${report.answered} of ${redlock.nodes.length} nodes answered (quorum ${report.quorum}): see the unreachable findings`);
  return code;
}
