// `completion bash|zsh`: prints a completion script for the shell, built from the
// commands registered at that moment.
import { Argument, Command } from 'commander';
import { bashCompletion, completionSpec, zshCompletion } from '../completion';
import type { CliContext } from '../context';
import { EXIT } from '../exit';

export function register(program: Command, ctx: CliContext): void {
  program
    .command('completion')
    .description('print shell completion (bash or zsh); see docs/cli-reference.md for the install line')
    .addArgument(new Argument('<shell>', 'bash or zsh').choices(['bash', 'zsh']))
    .action(ctx.action(async (shell: 'bash' | 'zsh') => {
      const spec = completionSpec(program);
      ctx.io.out(shell === 'bash' ? bashCompletion(spec) : zshCompletion(spec));
      return EXIT.ok;
    }));
}
