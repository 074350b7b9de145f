// Exit codes of the command-line contract, and the one error type commands throw to
// end with a given code and one line on stderr.

export const EXIT = {
  /** Done. */
  ok: 0,
  /** Refused by the nodes that answered: held by another token, token mismatch, a copy changed hands. */
  refused: 1,
  /** Bad usage or input, a read-only refusal, force-release without --yes off a terminal. */
  usage: 2,
  /** Fewer than a quorum of nodes answered. */
  noQuorum: 3,
  /** A monitoring check matched: the doctor found an error-level problem. */
  findings: 4,
} as const;

export type ExitCode = (typeof EXIT)[keyof typeof EXIT];

export class CliError extends Error {
  override name = 'CliError';
  constructor(message: string, readonly code: ExitCode) {
    super(message);
  }
}
