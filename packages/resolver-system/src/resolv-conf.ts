/**
 * resolv.conf(5) as glibc reads it: `nameserver` (at most 3), `search` / `domain` (the last
 * one wins), `options ndots:N timeout:N attempts:N rotate use-vc`. Unknown keywords and
 * options are ignored, as glibc does; lines that cannot be used are reported in `skipped`.
 * `options trust-ad` is deliberately not honoured: trusting the AD bit is the application's
 * decision (the `trustAd` option), never a file's.
 */
import { readFileSync } from 'node:fs';
import { formatName, parseName } from '@dnscore/core/plugin';
import {
  DEFAULT_ATTEMPTS,
  DEFAULT_NDOTS,
  DEFAULT_TIMEOUT_MS,
  MAX_NDOTS,
  MAX_RESOLV_CONF_ATTEMPTS,
  MAX_RESOLV_CONF_NAMESERVERS,
  MAX_RESOLV_CONF_TIMEOUT_S,
} from './defaults.js';
import { ConfigFileError } from './errors.js';
import { parseServerAddress, type ServerAddress } from './server-address.js';

export interface ResolvConf {
  readonly nameservers: readonly ServerAddress[];
  /** Search domains, in order, without the trailing dot. */
  readonly search: readonly string[];
  readonly ndots: number;
  readonly timeoutMs: number;
  readonly attempts: number;
  readonly rotate: boolean;
  /** `options use-vc`: every query over TCP. */
  readonly useVc: boolean;
  /** Lines that were not used, with the reason ("line 3: ..."). */
  readonly skipped: readonly string[];
}

/**
 * Parses resolv.conf text. `hostname` gives the default search domain (the part after its
 * first dot) when the file has neither `search` nor `domain`, as glibc does.
 */
export function parseResolvConf(text: string, hostname = ''): ResolvConf {
  const nameservers: ServerAddress[] = [];
  const skipped: string[] = [];
  let search: string[] | undefined;
  let ndots = DEFAULT_NDOTS;
  let timeoutMs = DEFAULT_TIMEOUT_MS;
  let attempts = DEFAULT_ATTEMPTS;
  let rotate = false;
  let useVc = false;
  for (const [index, raw] of text.split(/\r?\n/).entries()) {
    const line = raw.replace(/[#;].*$/, '').trim();
    if (line === '') continue;
    const [keyword, ...args] = line.split(/\s+/) as [string, ...string[]];
    const where = `line ${index + 1}`;
    switch (keyword) {
      case 'nameserver': {
        if (nameservers.length >= MAX_RESOLV_CONF_NAMESERVERS) {
          skipped.push(`${where}: only the first ${MAX_RESOLV_CONF_NAMESERVERS} nameservers are used`);
          break;
        }
        try {
          // resolv.conf gives an address alone: the port is always 53.
          const server = parseServerAddress(args[0] ?? '');
          if (server.port !== 53 || args[0]!.startsWith('['))
            throw new Error('resolv.conf takes an address without a port');
          nameservers.push(server);
        } catch (error) {
          skipped.push(`${where}: ${(error as Error).message}`);
        }
        break;
      }
      case 'domain':
      case 'search':
        search = validDomains(keyword === 'domain' ? args.slice(0, 1) : args, where, skipped);
        break;
      case 'options':
        for (const option of args) {
          const [name, value] = option.split(':', 2) as [string, string | undefined];
          if (name === 'ndots') ndots = clamp(value, 0, MAX_NDOTS) ?? ndots;
          else if (name === 'timeout')
            timeoutMs = (clamp(value, 1, MAX_RESOLV_CONF_TIMEOUT_S) ?? timeoutMs / 1000) * 1000;
          else if (name === 'attempts') attempts = clamp(value, 1, MAX_RESOLV_CONF_ATTEMPTS) ?? attempts;
          else if (name === 'rotate') rotate = true;
          else if (name === 'use-vc') useVc = true;
        }
        break;
      default:
        break; // sortlist and unknown keywords: glibc ignores them too
    }
  }
  if (search === undefined) {
    const dot = hostname.indexOf('.');
    search = dot > 0 ? validDomains([hostname.slice(dot + 1)], 'hostname', skipped) : [];
  }
  return Object.freeze({ nameservers, search, ndots, timeoutMs, attempts, rotate, useVc, skipped });
}

/** Reads and parses a resolv.conf file; a missing file is an empty one (glibc's rule). */
export function readResolvConf(file: string, hostname = ''): ResolvConf {
  return parseResolvConf(readOptionalFile(file), hostname);
}

/** A file's text; "" when it does not exist; ConfigFileError when it cannot be read. */
export function readOptionalFile(file: string): string {
  try {
    return readFileSync(file, 'utf8');
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === 'ENOENT') return '';
    throw new ConfigFileError(file, (error as Error).message, { cause: error });
  }
}

function validDomains(domains: readonly string[], where: string, skipped: string[]): string[] {
  const out: string[] = [];
  for (const domain of domains) {
    try {
      const labels = parseName(domain);
      if (labels.length > 0) out.push(formatName(labels));
    } catch (error) {
      skipped.push(`${where}: search domain "${domain}": ${(error as Error).message}`);
    }
  }
  return out;
}

/** An integer option value clamped to [min, max]; undefined when it is not a number. */
function clamp(value: string | undefined, min: number, max: number): number | undefined {
  if (value === undefined || !/^\d+$/.test(value)) return undefined;
  return Math.min(max, Math.max(min, Number(value)));
}
