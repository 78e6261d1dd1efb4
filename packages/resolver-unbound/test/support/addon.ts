/**
 * The libunbound addon as built, for tests that drive it: the install builds it wherever the
 * tests run (CI installs libunbound-dev), so one that did not load fails the test with the reason
 * instead of skipping it.
 */
import { loadUnboundBinding, type UnboundAddon } from '../../src/binding.js';

export function requiredAddon(): UnboundAddon {
  const binding = loadUnboundBinding();
  if (!binding.available) throw new Error(`these tests need the libunbound addon: ${binding.reason}`);
  return binding.addon;
}
