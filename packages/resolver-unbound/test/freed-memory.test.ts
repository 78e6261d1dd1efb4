/**
 * When the memory libunbound freed goes back to the OS: once the process has had no libunbound
 * context for RETURN_FREED_AFTER_MS, never while one is open, never twice for one idle spell,
 * and not when a context is made again meanwhile (fake clock, an addon that counts). The real
 * addon's returnFreedMemory() is called once too: it returns nothing and breaks nothing.
 */
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { loadUnboundBinding, type UnboundAddon } from '../src/binding.js';
import { RETURN_FREED_AFTER_MS, contextClosed, contextMade } from '../src/freed-memory.js';

function countingAddon(): { addon: UnboundAddon; open: { count: number }; returned: () => number } {
  const open = { count: 0 };
  let returned = 0;
  const addon = {
    openContexts: () => open.count,
    returnFreedMemory: () => {
      returned++;
    },
  } as unknown as UnboundAddon;
  return { addon, open, returned: () => returned };
}

beforeEach(() => {
  vi.useFakeTimers();
  contextMade(); // no return left pending by an earlier test
});
afterEach(() => vi.useRealTimers());

describe('returning freed memory', () => {
  it('once, RETURN_FREED_AFTER_MS after the last context closed', () => {
    const { addon, returned } = countingAddon();
    contextClosed(addon);
    vi.advanceTimersByTime(RETURN_FREED_AFTER_MS - 1);
    expect(returned()).toBe(0);
    vi.advanceTimersByTime(1);
    expect(returned()).toBe(1);
    vi.advanceTimersByTime(10 * RETURN_FREED_AFTER_MS);
    expect(returned()).toBe(1);
  });

  it('not while another context is open', () => {
    const { addon, open, returned } = countingAddon();
    open.count = 1;
    contextClosed(addon);
    vi.advanceTimersByTime(10 * RETURN_FREED_AFTER_MS);
    expect(returned()).toBe(0);
  });

  it('not when a context is made before the idle spell ends (it reuses the pages)', () => {
    const { addon, returned } = countingAddon();
    contextClosed(addon);
    vi.advanceTimersByTime(RETURN_FREED_AFTER_MS / 2);
    contextMade();
    vi.advanceTimersByTime(10 * RETURN_FREED_AFTER_MS);
    expect(returned()).toBe(0);
  });

  it('not when a context opened meanwhile without going through contextMade (a collected one closing)', () => {
    const { addon, open, returned } = countingAddon();
    contextClosed(addon);
    open.count = 1;
    vi.advanceTimersByTime(RETURN_FREED_AFTER_MS);
    expect(returned()).toBe(0);
  });

  it('closes in a row make one return, timed from the first', () => {
    const { addon, returned } = countingAddon();
    contextClosed(addon);
    vi.advanceTimersByTime(RETURN_FREED_AFTER_MS / 2);
    contextClosed(addon);
    vi.advanceTimersByTime(RETURN_FREED_AFTER_MS / 2);
    expect(returned()).toBe(1);
  });

  it('the pending return does not keep the process alive', () => {
    const { addon } = countingAddon();
    const spy = vi.spyOn(globalThis, 'setTimeout');
    contextClosed(addon);
    const timer = spy.mock.results[0]!.value as { hasRef(): boolean };
    expect(timer.hasRef()).toBe(false);
    spy.mockRestore();
  });

  it("the real addon's returnFreedMemory() runs", () => {
    vi.useRealTimers();
    const binding = loadUnboundBinding();
    if (!binding.available) throw new Error(binding.reason);
    expect(binding.addon.returnFreedMemory()).toBeUndefined();
  });
});
