// Shell completion scripts, generated from the registered commander program so that a
// command added later completes without touching this file. Pure: a program in, script
// text out. Install lines are in docs/cli-reference.md.
import type { Command, Option } from 'commander';
import { FAIL_ON_NAMES } from './failOn';

interface OptionSpec {
  names: string[];
  description: string;
  takesValue: boolean;
  repeatable: boolean;
  /** Values to offer after the option; a comma-separated list when `list`. */
  values?: readonly string[];
  list?: boolean;
}

interface CommandSpec {
  name: string;
  description: string;
  options: OptionSpec[];
  /** Choices of the first argument, when it has any; otherwise arguments are free text. */
  argChoices?: readonly string[];
  variadic: boolean;
}

export interface CompletionSpec {
  bin: string;
  globalOptions: OptionSpec[];
  commands: CommandSpec[];
}

// Values commander cannot validate as choices (a comma-separated list) but a shell can offer.
const VALUE_HINTS: Record<string, { values: readonly string[]; list: boolean }> = {
  '--fail-on': { values: FAIL_ON_NAMES, list: true },
};

function optionSpec(o: Option): OptionSpec {
  const names = [o.short, o.long].filter((n): n is string => typeof n === 'string');
  const hint = o.long ? VALUE_HINTS[o.long] : undefined;
  return {
    names,
    description: o.description,
    takesValue: o.required || o.optional,
    repeatable: o.variadic || /repeatable/.test(o.description),
    values: o.argChoices ?? hint?.values,
    list: hint?.list,
  };
}

export function completionSpec(program: Command): CompletionSpec {
  const help = program.createHelp();
  return {
    bin: program.name(),
    globalOptions: help.visibleOptions(program).map(optionSpec),
    commands: [
      ...program.commands.map((c) => ({
        name: c.name(),
        description: c.description(),
        options: help.visibleOptions(c).map(optionSpec),
        argChoices: c.registeredArguments[0]?.argChoices,
        variadic: c.registeredArguments.some((a) => a.variadic),
      })),
      { name: 'help', description: 'show help for a command', options: [], argChoices: program.commands.map((c) => c.name()), variadic: false },
    ],
  };
}

const fnName = (bin: string): string => '_' + bin.replace(/[^A-Za-z0-9]/g, '_');
const words = (list: readonly string[]): string => list.join(' ');

export function bashCompletion(spec: CompletionSpec): string {
  const fn = fnName(spec.bin);
  const valueOptions = new Set<string>();
  const hinted = new Map<string, OptionSpec>();
  for (const o of [...spec.globalOptions, ...spec.commands.flatMap((c) => c.options)]) {
    if (!o.takesValue) continue;
    for (const n of o.names) {
      if (o.values) hinted.set(n, o);
      else valueOptions.add(n);
    }
  }
  const globals = spec.globalOptions.flatMap((o) => o.names);
  // Global options that mean something after a command too (--version and --help do not).
  const ANYWHERE = ['--read-only', '--connection', '--allow-writes'];
  const lines = [
    `# bash completion for ${spec.bin}`,
    `# Install: echo 'source <(${spec.bin} completion bash)' >> ~/.bashrc`,
    `${fn}() {`,
    '  local cur="${COMP_WORDS[COMP_CWORD]}" prev="${COMP_WORDS[COMP_CWORD-1]}" cmd="" i',
    '  for ((i = 1; i < COMP_CWORD; i++)); do',
    '    case "${COMP_WORDS[i]}" in',
    '      -*) ;;',
    '      *) cmd="${COMP_WORDS[i]}"; break ;;',
    '    esac',
    '  done',
    '  case "$prev" in',
  ];
  for (const [name, o] of hinted) {
    if (o.list) {
      lines.push(`    ${name}) local head=""; [[ "$cur" == *,* ]] && head="\${cur%,*},"; COMPREPLY=( $(compgen -P "$head" -W "${words(o.values!)}" -- "\${cur##*,}") ); return 0 ;;`);
    } else {
      lines.push(`    ${name}) COMPREPLY=( $(compgen -W "${words(o.values!)}" -- "$cur") ); return 0 ;;`);
    }
  }
  if (valueOptions.size) lines.push(`    ${[...valueOptions].join('|')}) return 0 ;;`);
  lines.push('  esac', '  local opts="" args=""', '  case "$cmd" in');
  lines.push(`    "") opts="${words(globals)}"; args="${words(spec.commands.map((c) => c.name))}" ;;`);
  for (const c of spec.commands) {
    lines.push(`    ${c.name}) opts="${words([...c.options.flatMap((o) => o.names), ...globals.filter((g) => ANYWHERE.includes(g))])}"; args="${words(c.argChoices ?? [])}" ;;`);
  }
  lines.push(
    '  esac',
    '  if [[ "$cur" == -* ]]; then',
    '    COMPREPLY=( $(compgen -W "$opts" -- "$cur") )',
    '  else',
    '    COMPREPLY=( $(compgen -W "$args" -- "$cur") )',
    '  fi',
    '}',
    `complete -F ${fn} ${spec.bin}`,
  );
  return lines.join('\n');
}

/** Text inside a single-quoted `_arguments` spec: no quote, bracket or colon left raw. */
function zq(text: string): string {
  // The spec's own escapes first, the shell's quote last: the other way round doubled the
  // backslash of `'\''` and left the quote open.
  return text.replace(/([[\]:\\])/g, '\\$1').replace(/'/g, `'\\''`);
}

function zshOption(o: OptionSpec): string[] {
  const value = o.takesValue ? (o.values ? `:${o.list ? 'names' : 'value'}:${o.list ? `_sequence compadd - ${words(o.values)}` : `(${words(o.values)})`}` : ':value: ') : '';
  const repeat = o.repeatable ? '*' : '';
  const exclusive = o.names.length > 1 ? `(${o.names.join(' ')})` : '';
  return o.names.map((n) => `'${exclusive}${repeat}${n}[${zq(o.description)}]${value}'`);
}

export function zshCompletion(spec: CompletionSpec): string {
  const fn = fnName(spec.bin);
  const lines = [
    `#compdef ${spec.bin}`,
    `# zsh completion for ${spec.bin}`,
    `# Install: echo 'source <(${spec.bin} completion zsh)' >> ~/.zshrc   (after compinit)`,
    `${fn}() {`,
    '  local curcontext="$curcontext" state line',
    '  typeset -A opt_args',
    `  _arguments -C ${spec.globalOptions.flatMap(zshOption).join(' ')} '1: :->command' '*:: :->args'`,
    '  case $state in',
    '    command)',
    `      local -a cmds=(${spec.commands.map((c) => `'${zq(c.name)}:${zq(c.description)}'`).join(' ')})`,
    `      _describe -t commands '${spec.bin} command' cmds ;;`,
    '    args)',
    '      case $line[1] in',
  ];
  for (const c of spec.commands) {
    const args = c.argChoices ? `'1:argument:(${words(c.argChoices)})'` : c.variadic ? `'*:resource: '` : `'1:resource: '`;
    lines.push(`        ${c.name}) _arguments ${[...c.options.flatMap(zshOption), "'--read-only[refuse every write command]'", args].join(' ')} ;;`);
  }
  lines.push(
    '      esac ;;',
    '  esac',
    '}',
    `if [ "$funcstack[1]" = "${fn}" ]; then ${fn} "$@"; else compdef ${fn} ${spec.bin}; fi`,
  );
  return lines.join('\n');
}
