/**
 * Gives the OS back the memory libunbound freed, once the process has had no libunbound context
 * for a second. glibc gives each resolver thread an arena of its own and keeps its freed pages:
 * after 100,000 questions and close(), RSS stayed 31-34 MB above the process's baseline (6-7 MB
 * once returned). Not at close() itself: a context made soon after the last one closed (a
 * resolver closed and made again) reuses those pages, and each page returned would cost it a
 * page fault: a burst of 1,000 cold questions on such a context took about 60% longer.
 */
import type { UnboundAddon } from './binding.js';

/** How long the process goes without a libunbound context before its freed memory is returned. */
export const RETURN_FREED_AFTER_MS = 1000;

let pending: ReturnType<typeof setTimeout> | undefined;

/** A context is being made: the memory the last one freed will be used again. */
export function contextMade(): void {
  if (pending === undefined) return;
  clearTimeout(pending);
  pending = undefined;
}

/** A context was closed: once none is left for RETURN_FREED_AFTER_MS, the freed memory goes back. */
export function contextClosed(addon: UnboundAddon): void {
  if (pending !== undefined || addon.openContexts() > 0) return;
  pending = setTimeout(() => {
    pending = undefined;
    if (addon.openContexts() === 0) addon.returnFreedMemory();
  }, RETURN_FREED_AFTER_MS);
  // A pending return never keeps the process alive.
  pending.unref?.();
}
