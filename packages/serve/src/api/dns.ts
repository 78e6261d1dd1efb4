/**
 * Which DNS answers an API question: the server's backend (what `dnscore serve` was
 * started with), or a zone text from the page. A zone text is answered by a zone resolver
 * alone: it cannot include a file ($INCLUDE is refused before anything is read) and a name
 * outside it is never asked of any server.
 */
import {
  DnsCore,
  parseZone,
  seededRandom,
  silentLogger,
  withCache,
  ZoneFileError,
  ZoneResolver,
  type DnsApi,
} from '@dnscore/core';
import { MAX_ZONE_RECORDS } from '../defaults.js';
import { ZoneTextError } from '../errors.js';

const ZONE_TEXT_NAME = 'zone';

function refuseInclude(): never {
  throw new Error('a zone text from the page cannot include files');
}

/** A DnsCore over the zone text alone; ZoneTextError (with its line) when it does not parse. */
export function zoneTextCore(text: string, seed: number | undefined): DnsCore {
  try {
    const records = parseZone(text, { file: ZONE_TEXT_NAME, readFile: refuseInclude });
    if (records.length > MAX_ZONE_RECORDS)
      throw new ZoneTextError(records[MAX_ZONE_RECORDS]!.line, `more than ${MAX_ZONE_RECORDS} records`);
    // Cached: the share chart resolves the same names a thousand times.
    const zone = withCache(new ZoneResolver({ zones: [{ text, file: ZONE_TEXT_NAME }] }));
    return new DnsCore([zone], {
      logger: silentLogger,
      ...(seed !== undefined ? { random: seededRandom(seed) } : {}),
    });
  } catch (error) {
    if (error instanceof ZoneFileError) throw new ZoneTextError(error.line, error.reason);
    throw error;
  }
}

/**
 * The server's backend; with a seed, a core over the same plugins (and their caches) whose SRV
 * draw starts from that seed, as `dnscore sip --seed` does. It is not closed: the plugins are the
 * server's.
 */
export function backendCore(backend: DnsCore, seed: number | undefined): DnsApi {
  if (seed === undefined) return backend;
  return new DnsCore(backend.registry.plugins, { logger: silentLogger, random: seededRandom(seed) });
}
