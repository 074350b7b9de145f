// Completion scripts: bash is run for real (bash is always there); zsh is checked as text.
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { Command } from 'commander';
import { bashCompletion, completionSpec, zshCompletion } from '../../src/cli/completion';
import { CliContext } from '../../src/cli/context';
import { buildProgram, main } from '../../src/cli/main';
import { memoryIo } from './memoryIo';

async function script(shell: string): Promise<string> {
  const io = memoryIo();
  assert.equal(await main(['completion', shell], io), 0);
  assert.deepEqual(io.stderr, []);
  return io.stdout.join('\n');
}

/** COMPREPLY for the words typed so far (the last one being completed). */
function bashComplete(text: string, typed: string[]): string[] {
  const program = `
eval "$(cat)"
COMP_WORDS=(redlock-inspector "$@")
COMP_CWORD=$(( \${#COMP_WORDS[@]} - 1 ))
_redlock_inspector
printf '%s\\n' "\${COMPREPLY[@]}"`;
  const r = spawnSync('bash', ['-c', program, 'bash', ...typed], { input: text, encoding: 'utf8' });
  assert.equal(r.status, 0, r.stderr);
  return r.stdout.split('\n').filter(Boolean);
}

describe('cli: completion', () => {
  it('bash: commands, per-command options, --fail-on names in a list, shells', async () => {
    const text = await script('bash');
    assert.match(text, /^# bash completion for redlock-inspector/);
    assert.match(text, /complete -F _redlock_inspector redlock-inspector$/);
    assert.deepEqual(bashComplete(text, ['st']), ['status']);
    assert.deepEqual(bashComplete(text, ['']).sort(), ['acquire', 'audit', 'completion', 'discover', 'doctor', 'exporter', 'extend', 'force-release', 'help', 'history', 'mcp', 'release', 'status', 'watch']);
    assert.deepEqual(bashComplete(text, ['exporter', '--l']), ['--listen']);
    assert.deepEqual(bashComplete(text, ['mcp', '--a']), ['--allow-writes']);
    assert.deepEqual(bashComplete(text, ['acquire', 'x', '--tt']), ['--ttl']);
    assert.deepEqual(bashComplete(text, ['status', '--tls-c']).sort(), ['--tls-ca', '--tls-cert']);
    assert.deepEqual(bashComplete(text, ['status', '--fa']), ['--fail-on']);
    assert.deepEqual(bashComplete(text, ['status', '--fail-on', 'split,no']), ['split,no-ttl']);
    assert.deepEqual(bashComplete(text, ['status', '--fail-on', 'pa']), ['partial']);
    assert.deepEqual(bashComplete(text, ['completion', '']), ['bash', 'zsh']);
    assert.deepEqual(bashComplete(text, ['acquire', '--ttl', '']), [], 'a value is free text');
    assert.ok(bashComplete(text, ['force-release', '-']).includes('--yes'));
    assert.ok(!bashComplete(text, ['status', '--']).includes('--ttl'), '--ttl is not an option of status');
    const syntax = spawnSync('bash', ['-n'], { input: text, encoding: 'utf8' });
    assert.equal(syntax.status, 0, syntax.stderr);
  });

  it('zsh: a #compdef function with every command, its options and the shells', async () => {
    const text = await script('zsh');
    assert.match(text, /^#compdef redlock-inspector/);
    assert.match(text, /compdef _redlock_inspector redlock-inspector; fi$/);
    for (const c of ['status', 'watch', 'acquire', 'extend', 'release', 'force-release', 'history', 'completion']) assert.match(text, new RegExp(`^        ${c}\\) _arguments `, 'm'), c);
    assert.match(text, /'\*--node\[a Redis node URL \(repeatable; replaces REDLOCK_NODES\)\]:value: '/);
    assert.match(text, /--fail-on\[[^\]]*\]:names:_sequence compadd - split held unknown partial/);
    assert.match(text, /'1:argument:\(bash zsh\)'/);
    // An apostrophe in a description closes and reopens the quote as '\'' (one backslash).
    assert.match(text, /certificate'\\''s key/);
    assert.doesNotMatch(text, /'\\\\''/);
    // Every single-quoted word is closed: an even count of unescaped quotes.
    assert.equal((text.replace(/'\\''/g, '').match(/'/g) ?? []).length % 2, 0);
  });

  it('a command registered later completes without touching the generator', () => {
    const program: Command = buildProgram(new CliContext(memoryIo()));
    program.command('later').description('check the nodes').option('--deep', 'more checks');
    const spec = completionSpec(program);
    assert.ok(spec.commands.some((c) => c.name === 'later' && c.options.some((o) => o.names.includes('--deep'))));
    assert.deepEqual(bashComplete(bashCompletion(spec), ['later', '--d']), ['--deep']);
    assert.match(zshCompletion(spec), /later\) _arguments '--deep\[more checks\]'/);
  });
});
