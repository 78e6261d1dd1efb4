/** Zones, cores and clocks shared by the tests. */
import { fileURLToPath } from 'node:url';
import { DnsCore, ZoneResolver, seededRandom, type Clock, type ResolverPlugin } from '@dnscore/core';
import { SipLocator, type SipLocatorOptions } from '../../src/locator.js';
import { recording, type RecordingOptions, type RecordingPlugin } from './recording-plugin.js';

export const BILOXI_ZONE = fileURLToPath(new URL('../../../../examples/zones/biloxi.example.zone', import.meta.url));
export const CASES_ZONE = fileURLToPath(new URL('../zones/cases.example.zone', import.meta.url));
export const OTHER_ZONE = fileURLToPath(new URL('../zones/other.example.zone', import.meta.url));
export const ALL_ZONES = [BILOXI_ZONE, CASES_ZONE, OTHER_ZONE];

/** A clock the test moves by hand. */
export class ManualClock implements Clock {
  constructor(public time = 1_700_000_000_000) {}
  now(): number {
    return this.time;
  }
  advance(ms: number): void {
    this.time += ms;
  }
}

export interface Setup {
  readonly core: DnsCore;
  readonly plugin: RecordingPlugin;
  readonly locator: SipLocator;
  readonly clock: ManualClock;
}

/** A locator over a recording zone resolver with every test zone, seeded. */
export function setup(
  options: SipLocatorOptions & {
    readonly seed?: number;
    readonly recording?: RecordingOptions;
    readonly plugins?: ResolverPlugin[];
  } = {},
): Setup {
  const { seed = 1, recording: recordingOptions, plugins, ...locatorOptions } = options;
  const clock = (locatorOptions.clock as ManualClock | undefined) ?? new ManualClock();
  const plugin = recording(new ZoneResolver({ files: ALL_ZONES }), recordingOptions);
  const core = new DnsCore([plugin, ...(plugins ?? [])], { random: seededRandom(seed) });
  const locator = new SipLocator(core, { clock, ...locatorOptions });
  return { core, plugin, locator, clock };
}

/** Targets as "transport address:port host" lines, for exact assertions. */
export function lines(
  targets: readonly { transport: string; address: string; port: number; host: string }[],
): string[] {
  return targets.map(
    (t) => `${t.transport} ${t.address.includes(':') ? `[${t.address}]` : t.address}:${t.port} ${t.host}`,
  );
}
