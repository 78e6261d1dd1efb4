/**
 * The checks every package runs on its options: one message shape ("NAME must be EXPECTED, not
 * VALUE"), one error class (InvalidArgumentError), so a bad option reads the same everywhere.
 */
import { InvalidArgumentError } from './errors.js';

/** A value as a message shows it: strings quoted, objects and arrays named, not dumped. */
export function describeValue(value: unknown): string {
  if (typeof value === 'string') return JSON.stringify(value);
  if (typeof value === 'object' && value !== null) return Array.isArray(value) ? 'an array' : 'an object';
  return String(value);
}

/** The error for an option `name` that is not `expected`. */
export function optionError(name: string, value: unknown, expected: string): InvalidArgumentError {
  return new InvalidArgumentError(`${name} must be ${expected}, not ${describeValue(value)}`);
}

/** An integer in min..max (both included). */
export function checkIntegerInRange(value: unknown, name: string, min: number, max: number): number {
  if (typeof value !== 'number' || !Number.isInteger(value) || value < min || value > max)
    throw optionError(name, value, `an integer in ${min}..${max}`);
  return value;
}

/** An integer of 1 or more. */
export function checkPositiveInteger(value: unknown, name: string): number {
  if (typeof value !== 'number' || !Number.isInteger(value) || value < 1)
    throw optionError(name, value, 'a positive integer');
  return value;
}

/** A finite number above 0; `unit` ("ms") goes in the message. */
export function checkPositiveNumber(value: unknown, name: string, unit?: string): number {
  if (typeof value !== 'number' || !Number.isFinite(value) || value <= 0)
    throw optionError(name, value, `a positive number${unit ? ` of ${unit}` : ''}`);
  return value;
}

/** A finite number of 0 or more; `unit` ("ms") goes in the message. */
export function checkNonNegativeNumber(value: unknown, name: string, unit?: string): number {
  if (typeof value !== 'number' || !Number.isFinite(value) || value < 0)
    throw optionError(name, value, `a non-negative number${unit ? ` of ${unit}` : ''}`);
  return value;
}
