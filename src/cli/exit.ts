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
  /** `status --fail-on`: a lock matched one of the given verdicts or flags; `doctor`: an error-level finding. */
  matched: 4,
} as const;

export type ExitCode = (typeof EXIT)[keyof typeof EXIT];

export class CliError extends Error {
  override name = 'CliError';
  constructor(message: string, readonly code: ExitCode) {
    super(message);
  }
}

/** Bad usage or input found by our own checks (exit 2), reported as one line. */
export class UsageError extends Error {
  override name = 'UsageError';
}
