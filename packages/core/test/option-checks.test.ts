/** One message shape and one error class for every bad option, in every package. */
import { describe, expect, it } from 'vitest';
import { InvalidArgumentError } from '../src/errors.js';
import {
  checkIntegerInRange,
  checkNonNegativeNumber,
  checkPositiveInteger,
  checkPositiveNumber,
  describeValue,
  optionError,
} from '../src/option-checks.js';

describe('option checks: nominal', () => {
  it('return the value when it is what it must be', () => {
    expect([
      checkIntegerInRange(0, 'a', 0, 15),
      checkIntegerInRange(15, 'a', 0, 15),
      checkPositiveInteger(1, 'b'),
      checkPositiveNumber(0.5, 'c'),
      checkNonNegativeNumber(0, 'd'),
    ]).toEqual([0, 15, 1, 0.5, 0]);
  });

  it('describe values without dumping them', () => {
    expect([describeValue('x'), describeValue([1]), describeValue({ a: 1 }), describeValue(Number.NaN)]).toEqual([
      '"x"',
      'an array',
      'an object',
      'NaN',
    ]);
  });
});

describe('option checks: off-nominal', () => {
  it.each([
    [() => checkIntegerInRange(16, 'config.ndots', 0, 15), 'config.ndots must be an integer in 0..15, not 16'],
    [() => checkIntegerInRange(1.5, 'n', 0, 15), 'n must be an integer in 0..15, not 1.5'],
    [() => checkIntegerInRange('3', 'n', 0, 15), 'n must be an integer in 0..15, not "3"'],
    [() => checkPositiveInteger(0, 'maxTargets'), 'maxTargets must be a positive integer, not 0'],
    [() => checkPositiveInteger(2.5, 'maxTargets'), 'maxTargets must be a positive integer, not 2.5'],
    [
      () => checkPositiveNumber(0, 'floorMs', 'milliseconds'),
      'floorMs must be a positive number of milliseconds, not 0',
    ],
    [() => checkPositiveNumber(Number.POSITIVE_INFINITY, 'x'), 'x must be a positive number, not Infinity'],
    [() => checkNonNegativeNumber(-1, 'penaltyMs'), 'penaltyMs must be a non-negative number, not -1'],
    [() => checkNonNegativeNumber(Number.NaN, 'd', 'ms'), 'd must be a non-negative number of ms, not NaN'],
  ])('%#: a typed error that names the option and the value', (check, message) => {
    expect(check).toThrow(InvalidArgumentError);
    expect(check).toThrow(message);
  });

  it('optionError builds the same error for checks of other kinds', () => {
    const error = optionError('options.trustAd', 'yes', 'true or false');
    expect([error.code, error.message]).toEqual([
      'DNS_ERR_INVALID_ARGUMENT',
      'options.trustAd must be true or false, not "yes"',
    ]);
  });
});
