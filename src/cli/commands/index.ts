// Every command of the CLI, in help order. A command is one file in this folder that
// exports `register(program, ctx)`; adding one is that file plus one line here.
import type { Command } from 'commander';
import type { CliContext } from '../context';
import { register as completion } from './completion';
import { register as audit } from './audit';
import { register as discover } from './discover';
import { register as doctor } from './doctor';
import { register as exporter } from './exporter';
import { register as forceRelease } from './forceRelease';
import { register as history } from './history';
import { register as locks } from './locks';
import { register as mcp } from './mcp';
import { register as status } from './status';
import { register as watch } from './watch';

export type Register = (program: Command, ctx: CliContext) => void;

export const COMMANDS: readonly Register[] = [status, watch, locks, forceRelease, history, audit, discover, doctor, exporter, mcp, completion];
