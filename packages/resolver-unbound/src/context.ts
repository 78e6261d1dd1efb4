/**
 * Builds a libunbound context from a plan and finalizes it at once, so a bad option is an
 * error at construction (naming the option) instead of at the first query. libunbound checks
 * some options only when it finalizes (trust anchors, local data, module-config) and then
 * says only "initialization failure": the culprit is found by replaying the steps.
 */
import type { UnboundAddon } from './binding.js';
import { FINALIZE_PROBE_ZONE } from './defaults.js';
import { UnboundOptionError } from './errors.js';
import type { ContextStep } from './options.js';
import { applySettingsInForce, settingsInForce } from './process-wide.js';
import { UnboundContext } from './unbound-context.js';

/**
 * Contexts whose setup failed are kept for the life of the process and never closed:
 * libunbound 1.17's ub_ctx_delete crashes the process (SIGSEGV, seen with a bad module-config)
 * on a context whose finalize failed (the addon marks such a context and never deletes it).
 * At most two are kept per failed construction.
 */
const quarantined: UnboundContext[] = [];

/** How many failed contexts are held (for tests). */
export function quarantinedContexts(): number {
  return quarantined.length;
}

/**
 * A finalized context with every step applied; throws UnboundOptionError naming the step that
 * failed. libunbound's worker is made at once in the background (UnboundContext.warm), and
 * the DNSKEY of each zone in `prime` (the trust anchors') is asked at once (UnboundContext.prime).
 */
export function createContext(
  addon: UnboundAddon,
  steps: readonly ContextStep[],
  prime: readonly string[] = [],
): UnboundContext {
  const context = new UnboundContext(addon);
  for (const step of steps) {
    try {
      step.apply(context);
    } catch (error) {
      quarantined.push(context);
      throw optionError(step.option, error);
    }
  }
  try {
    finalize(context);
  } catch (error) {
    quarantined.push(context);
    throw diagnose(addon, steps, error);
  }
  context.warm();
  context.prime(prime);
  return context;
}

/**
 * Finalizes a throwaway context with the process-wide settings in force (process-wide.ts):
 * after a context with other settings was finalized and failed, the live resolvers get theirs back.
 */
export function reapplySettingsInForce(addon: UnboundAddon): void {
  if (!settingsInForce(addon)) return;
  const context = new UnboundContext(addon);
  applySettingsInForce(addon, context);
  finalize(context);
  context.close();
}

/** libunbound finalizes on the first zone change; removing a zone that does not exist changes nothing. */
function finalize(context: UnboundContext): void {
  context.removeZone(FINALIZE_PROBE_ZONE);
}

/** Replays the steps on fresh contexts until finalizing fails: the last step applied is the culprit. */
function diagnose(addon: UnboundAddon, steps: readonly ContextStep[], original: unknown): UnboundOptionError {
  for (let last = 0; last < steps.length; last++) {
    const probe = new UnboundContext(addon);
    try {
      for (const step of steps.slice(0, last + 1)) step.apply(probe);
      finalize(probe);
    } catch (error) {
      quarantined.push(probe);
      return optionError(steps[last]!.option, error);
    }
    probe.close();
  }
  return optionError('(configuration as a whole)', original);
}

function optionError(option: string, error: unknown): UnboundOptionError {
  const message = error instanceof Error ? error.message : String(error);
  if ((error as { code?: unknown }).code !== 'ERR_UNBOUND') return new UnboundOptionError(option, message);
  return new UnboundOptionError(option, reasonFor(message), message);
}

/** libunbound's few error numbers say little; say what they usually mean for an option. */
function reasonFor(message: string): string {
  if (message.includes('(-3)')) return 'libunbound refused it (unknown option or bad value)';
  if (message.includes('(-7)')) return 'libunbound could not apply it (bad record, anchor or module list)';
  if (message.includes('(-9)')) return 'the file cannot be read';
  if (message.includes('(-6)')) return 'it came after the configuration was finalized';
  return 'libunbound refused it';
}
