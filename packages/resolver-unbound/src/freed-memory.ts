/**
 * Gives the OS back the memory libunbound freed, once the process has had no libunbound context
 * for 30 s. glibc gives each resolver thread an arena of its own and keeps its freed pages:
 * after 100,000 questions and close(), RSS stayed 31-34 MB above the process's baseline (3-7 MB
 * above once returned, or below it: malloc_trim returns the whole process's free pages). Not
 * sooner: a context made after the return pays a page fault for each page it touches again.
 * Returned at close(), a cold burst of 1,000 questions on the next context took about 60%
 * longer; returned after a second without a context, the bench's bursts (a fresh resolver each
 * run, other systems in between) took 15-25 ms longer. A process that stopped using libunbound
 * gets the memory back; one that makes a resolver again soon keeps it warm.
 */
import type { UnboundAddon } from './binding.js';

/** How long the process goes without a libunbound context before its freed memory is returned. */
export const RETURN_FREED_AFTER_MS = 30_000;

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
