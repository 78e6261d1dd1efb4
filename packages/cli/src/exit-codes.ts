/** Exit codes of the dnscore command (ARCHITECTURE.md, decisions). */
export const ExitCode = {
  /** An answer with records, or targets. */
  OK: 0,
  /** `dnscore check`: something at warning level or above was found (as linters do). */
  FINDINGS: 1,
  /** Bad input: an invalid name, type, URI, option or zone file. */
  BAD_INPUT: 2,
  /** NXDOMAIN, NODATA, or no targets. */
  NOT_FOUND: 3,
  /** A bogus DNSSEC answer (or an insecure one where a secure one is required). */
  BOGUS: 4,
  /** No answer obtained: timeout, SERVFAIL, REFUSED, network error, no resolver. */
  NO_ANSWER: 5,
} as const;

export type ExitCode = (typeof ExitCode)[keyof typeof ExitCode];
