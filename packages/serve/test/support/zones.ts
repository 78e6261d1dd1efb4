import { readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { DnsCore, silentLogger, ZoneResolver } from '@dnscore/core';

export const EXAMPLE_ZONE_FILE = fileURLToPath(
  new URL('../../../../examples/zones/biloxi.example.zone', import.meta.url),
);
export const zoneFile = (name: string): string => fileURLToPath(new URL(`../zones/${name}.zone`, import.meta.url));
export const zoneText = (name: string): string => readFileSync(zoneFile(name), 'utf8');

/** A core over test zones (and the walk-through zone), nothing else. */
export function zoneCore(...names: string[]): DnsCore {
  return new DnsCore([new ZoneResolver({ files: [EXAMPLE_ZONE_FILE, ...names.map(zoneFile)] })], {
    logger: silentLogger,
  });
}
