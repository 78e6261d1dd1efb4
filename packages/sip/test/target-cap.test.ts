/**
 * The cap on targets (maxTargets) bounds work, not reach: open targets past it take the places
 * of boxed ones among the first, so a walk never ends on dead servers while live ones were cut.
 */
import { describe, expect, it } from 'vitest';
import { DnsCore, ZoneResolver, seededRandom, withCache } from '@dnscore/core';
import { SipLocator } from '../src/locator.js';
import type { SipTarget } from '../src/resolution.js';
import { capTargets } from '../src/target-cap.js';
import { ALL_ZONES, ManualClock, setup } from './support/fixtures.js';

const URI = 'sip:bob@big.cases.example';
const address = (i: number): string => `192.0.2.${150 + i}`;

describe('capTargets', () => {
  const list = [1, 2, 3, 4, 5, 6].map((n) => ({ address: `a${n}` }) as SipTarget);
  const names = (targets: readonly SipTarget[]): string[] => targets.map((t) => t.address);

  it('under the cap: every target, in order', () => {
    expect(capTargets(list.slice(0, 3), 3, () => true)).toEqual({ targets: list.slice(0, 3), replaced: 0 });
  });

  it('over the cap with nothing boxed: the first ones', () => {
    expect(names(capTargets(list, 3, () => false).targets)).toEqual(['a1', 'a2', 'a3']);
  });

  it('boxed ones among the first give way to open ones past the cap, order kept', () => {
    const boxed = new Set(['a1', 'a3']);
    expect(capTargets(list, 3, (t) => boxed.has(t.address))).toEqual({
      targets: [list[1], list[3], list[4]],
      replaced: 2,
    });
  });

  it('the box is read only up to the last open target kept', () => {
    const read: string[] = [];
    const capped = capTargets(list, 3, (t) => {
      read.push(t.address);
      return t.address === 'a2';
    });
    expect(names(capped.targets)).toEqual(['a1', 'a3', 'a4']);
    expect(read).toEqual(['a1', 'a2', 'a3', 'a4']);
  });

  it('too few open ones: the boxed ones fill the cap, first ones first', () => {
    const open = new Set(['a6']);
    const capped = capTargets(list, 3, (t) => !open.has(t.address));
    expect(names(capped.targets)).toEqual(['a1', 'a2', 'a6']);
    expect(capped.replaced).toBe(1);
  });
});

describe('the locator: 40 addresses, the first 32 boxed', () => {
  it('the resolution keeps the 8 open ones and 24 boxed ones, and says why', async () => {
    const { locator } = setup();
    for (let i = 0; i < 32; i++) locator.penaltyBox.markFailed({ transport: 'udp', address: address(i), port: 5060 });
    const resolution = await locator.resolve(URI);
    expect(resolution.targets).toHaveLength(32);
    expect(resolution.targets.map((t) => t.address)).toEqual([
      ...Array.from({ length: 24 }, (_, i) => address(i)),
      ...Array.from({ length: 8 }, (_, i) => address(32 + i)),
    ]);
    expect(resolution.warnings).toContainEqual({
      code: 'targets-capped',
      message: '40 targets found; 32 kept: 8 past the cap in place of as many in the penalty box',
    });
  });

  it('a cursor tries the open ones past the cap first', async () => {
    const { locator } = setup();
    for (let i = 0; i < 32; i++) locator.penaltyBox.markFailed({ transport: 'udp', address: address(i), port: 5060 });
    const cursor = locator.cursor(URI);
    const first = await cursor.next();
    expect(first).toMatchObject({ penalized: false, target: { address: address(32) } });
    expect(first!.skipped).toHaveLength(24);
  });

  it('a planned resolution (warm cache) caps the same way', async () => {
    const clock = new ManualClock();
    const core = new DnsCore([withCache(new ZoneResolver({ files: ALL_ZONES }), { clock })], {
      random: seededRandom(1),
    });
    const locator = new SipLocator(core, { clock });
    await locator.resolve(URI);
    let asked = 0;
    core.resolve = ((...args: Parameters<DnsCore['resolve']>) => {
      asked++;
      return DnsCore.prototype.resolve.apply(core, args);
    }) as DnsCore['resolve'];
    for (let i = 0; i < 32; i++) locator.penaltyBox.markFailed({ transport: 'udp', address: address(i), port: 5060 });
    const again = await locator.resolve(URI);
    expect(again.targets.slice(24).map((t) => t.address)).toEqual(Array.from({ length: 8 }, (_, i) => address(32 + i)));
    expect(asked).toBe(0);
    expect(again.warnings).toContainEqual({
      code: 'targets-capped',
      message: '40 targets found; 32 kept: 8 past the cap in place of as many in the penalty box',
    });
    locator.penaltyBox.clearAll();
    const cleared = await locator.resolve(URI);
    expect(cleared.targets.map((t) => t.address)).toEqual(Array.from({ length: 32 }, (_, i) => address(i)));
    expect(cleared.warnings).toContainEqual({
      code: 'targets-capped',
      message: '40 targets found; only the first 32 are kept',
    });
    expect(asked).toBe(0);
  });
});
