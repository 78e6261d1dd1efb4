/**
 * The gate before any timing: a system is timed only after its answer was checked against
 * what it asks for. A system that answers wrongly is reported as such, never timed.
 */

export class WrongAnswerError extends Error {
  constructor(
    readonly system: string,
    readonly expected: readonly string[],
    readonly got: readonly string[],
  ) {
    super(`${system}: expected [${expected.join(', ')}], got [${got.join(', ')}]`);
    this.name = 'WrongAnswerError';
  }
}

/** `got` must hold exactly the lines of `expected`, in any order and without duplicates. */
export function expectSameSet(system: string, expected: readonly string[], got: readonly string[]): void {
  const want = [...new Set(expected)].sort();
  const have = [...new Set(got)].sort();
  if (have.length !== got.length || want.length !== have.length || want.some((line, i) => line !== have[i])) {
    throw new WrongAnswerError(system, want, got);
  }
}

/** Compares on the addresses only ("transport address port" -> "address"), duplicates allowed. */
export function expectSameAddresses(system: string, expected: readonly string[], got: readonly string[]): void {
  const addresses = [...new Set(got.map((line) => line.split(' ')[1] ?? line))].sort();
  const want = [...new Set(expected)].sort();
  if (want.length !== addresses.length || want.some((a, i) => a !== addresses[i]))
    throw new WrongAnswerError(system, want, addresses);
}
