/**
 * Does the upstream hand back DNSSEC records? Asked once at start (and again after no answer
 * or SERVFAIL): the DNSKEY RRset of a trust anchor's zone, which a DNSSEC-aware
 * recursive server returns with its RRSIG when DO is set. Without them nothing can be
 * validated, so the backend is unavailable with that reason (never "insecure" answers).
 */
import { rcodeName, Rcode, type Labels } from '@dnscore/core/plugin';
import { rrsetOf } from './chain-of-trust.js';
import { fqdn } from './names.js';
import type { Upstream } from './upstream.js';
import { DnssecType } from './validate/index.js';

export type ProbeOutcome =
  | { readonly kind: 'dnssec' }
  /** The upstream answers but strips or lacks the DNSSEC records: the backend cannot validate. */
  | { readonly kind: 'unusable'; readonly reason: string }
  /** No usable answer (timeout, SERVFAIL): asked again with the next question. */
  | { readonly kind: 'unknown'; readonly reason: string };

export async function probeUpstream(upstream: Upstream, zone: Labels, signal: AbortSignal): Promise<ProbeOutcome> {
  let fetched: Awaited<ReturnType<Upstream['chain']>>;
  try {
    fetched = await upstream.chain(zone, DnssecType.DNSKEY, signal);
  } catch (error) {
    return { kind: 'unknown', reason: `DNSKEY of ${fqdn(zone)}: ${(error as Error).message}` };
  }
  if (fetched.rcode === Rcode.SERVFAIL) {
    return { kind: 'unknown', reason: `the upstream answered SERVFAIL to DNSKEY ${fqdn(zone)}` };
  }
  if (fetched.rcode !== Rcode.NOERROR) {
    return {
      kind: 'unusable',
      reason:
        `the upstream nameservers answered ${rcodeName(fetched.rcode)} to DNSKEY ${fqdn(zone)} ` +
        '(they cannot be used to validate)',
    };
  }
  const dnskeys = rrsetOf(fetched, zone, DnssecType.DNSKEY);
  if (dnskeys.records.length === 0) {
    return {
      kind: 'unusable',
      reason: `the upstream nameservers return no DNSKEY for ${fqdn(zone)} (they cannot be used to validate)`,
    };
  }
  if (dnskeys.rrsigs.length === 0) {
    return {
      kind: 'unusable',
      reason: `the upstream nameservers strip DNSSEC records (DNSKEY of ${fqdn(zone)} came back without RRSIG)`,
    };
  }
  return { kind: 'dnssec' };
}
