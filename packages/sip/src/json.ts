/**
 * The JSON of a resolution, exactly the shape `dnscore sip --json` prints: ports and families
 * as numbers, IPv6 in RFC 5952 form without brackets, `expires` in ms since the epoch (null for
 * a literal, which never expires).
 */
import type { DnssecStatus } from '@dnscore/core';
import type { DnssecLink } from './dnssec-links.js';
import type { DrawCounts } from './draws.js';
import type { NaptrRef, NaptrSkip } from './naptr-memory.js';
import type { SipResolution, SipStep, SipWarning, TargetSource } from './resolution.js';
import type { AddressFamily, SipTransport } from './transport.js';

export interface SipTargetJson {
  readonly transport: SipTransport;
  readonly host: string;
  readonly address: string;
  readonly family: AddressFamily;
  readonly port: number;
  readonly priority: number;
  readonly weight: number;
  readonly source: TargetSource;
  readonly expires: number | null;
  readonly dnssec: DnssecStatus;
  readonly links: readonly DnssecLink[];
}

export interface SipResolutionJson {
  readonly uri: string;
  readonly transport: SipTransport | null;
  readonly targets: readonly SipTargetJson[];
  readonly steps: readonly SipStep[];
  readonly warnings: readonly SipWarning[];
  /**
   * Rule 'naptr' only: the NAPTR followed, every usable NAPTR of its order by preference, and
   * those passed over; `expires` is the chosen record's TTL end (ms since the epoch).
   */
  readonly naptr?: SipNaptrJson;
  /** Present (true) only when a stale answer stood in (RFC 8767). */
  readonly stale?: true;
  readonly draws?: DrawCounts;
}

export interface SipNaptrJson {
  readonly chosen: NaptrRef;
  readonly expires: number;
  readonly candidates: readonly NaptrRef[];
  readonly passed: readonly NaptrSkip[];
}

/** A plain object for JSON.stringify; `draws` is added when given. */
export function resolutionToJson(resolution: SipResolution, draws?: DrawCounts): SipResolutionJson {
  return {
    uri: resolution.uri.text,
    transport: resolution.transport ?? null,
    targets: resolution.targets.map((t) => ({
      transport: t.transport,
      host: t.host,
      address: t.address,
      family: t.family,
      port: t.port,
      priority: t.priority,
      weight: t.weight,
      source: t.source,
      expires: Number.isFinite(t.expires) ? t.expires : null,
      dnssec: t.dnssec,
      links: t.links.map((l) => ({ ...l })),
    })),
    steps: resolution.steps.map((s) => ({ ...s })),
    warnings: resolution.warnings.map((w) => ({ ...w })),
    ...(resolution.naptr
      ? {
          naptr: {
            chosen: { ...resolution.naptr.chosen },
            expires: resolution.naptr.expires,
            candidates: resolution.naptr.candidates.map((c) => ({ ...c })),
            passed: resolution.naptr.passed.map((p) => ({ ...p })),
          },
        }
      : {}),
    ...(resolution.stale ? { stale: true as const } : {}),
    ...(draws ? { draws: { n: draws.n, first: { ...draws.first } } } : {}),
  };
}
