import type { Redlock } from '../../core/redlock';
import { EXIT, ExitCode } from '../exit';
import type { Io } from '../io';
export async function runMcp(_r: Redlock, _c: unknown, _io: Io): Promise<ExitCode> {
  return EXIT.ok;
}
