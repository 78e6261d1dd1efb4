/**
 * Which NAPTR records a client may follow (RFC 3263 section 4.1, RFC 3403 section 4): terminal
 * "s" records with a replacement, whose service is one the client supports (SIPS services only
 * for a SIPS URI), and among those only the lowest order, by ascending preference.
 */
import { formatRdata, type TypedRecord } from '@dnscore/core';
import type { NaptrStep } from './resolution.js';
import { SIP_SERVICES, isSipService, serviceTransport, type SipScheme, type SipTransport } from './transport.js';

export type NaptrRecord = TypedRecord<'NAPTR'>;

export interface NaptrCandidate {
  readonly record: NaptrRecord;
  /** Presentation form of the RDATA. */
  readonly text: string;
  readonly transport: SipTransport;
  /** The SRV owner the record points to. */
  readonly srv: string;
}

/** One record and what became of it: a candidate, or the step saying why it is ignored. */
export type NaptrVerdict =
  | { readonly candidate: NaptrCandidate; readonly ignored?: undefined }
  | { readonly candidate?: undefined; readonly ignored: NaptrStep };

export interface NaptrSelection {
  /** Every record, in the core's order/preference order. */
  readonly verdicts: readonly NaptrVerdict[];
  /** Usable records of the lowest usable order, by preference: tried one after the other. */
  readonly candidates: readonly NaptrCandidate[];
  /** The SIP services of the three that the set does not offer at all (for the "incomplete" warning). */
  readonly missingServices: readonly string[];
  /** True when the set holds at least one SIP or SIPS service. */
  readonly hasSipService: boolean;
}

/** `records` must be in RFC 3403 order (the core's order). */
export function selectNaptr(
  records: readonly NaptrRecord[],
  scheme: SipScheme,
  transports: ReadonlySet<SipTransport>,
): NaptrSelection {
  const first: { record: NaptrRecord; text: string; transport?: SipTransport; reason?: string }[] = records.map(
    (record) => {
      const text = formatRdata(record);
      const reason = refusal(record, scheme, transports);
      return reason ? { record, text, reason } : { record, text, transport: serviceTransport(record.data.services)! };
    },
  );
  const usable = first.filter((v) => v.transport !== undefined);
  const lowest = usable.length > 0 ? Math.min(...usable.map((v) => v.record.data.order)) : undefined;
  const verdicts: NaptrVerdict[] = first.map((v) => {
    if (v.transport === undefined) return { ignored: ignored(v.text, v.reason!) };
    if (v.record.data.order !== lowest) {
      return {
        ignored: ignored(
          v.text,
          `order ${v.record.data.order} is not the lowest usable order ${lowest} (RFC 3403: once a record of an ` +
            `order applies, other orders are not considered)`,
          v.transport,
        ),
      };
    }
    return { candidate: { record: v.record, text: v.text, transport: v.transport, srv: v.record.data.replacement } };
  });
  const offered = new Set(
    records
      .filter((r) => r.data.flags.toLowerCase() === 's' && r.data.replacement !== '.')
      .map((r) => r.data.services.toUpperCase()),
  );
  return {
    verdicts,
    candidates: verdicts.flatMap((v) => (v.candidate ? [v.candidate] : [])),
    missingServices: SIP_SERVICES.filter((s) => !offered.has(s)),
    hasSipService: records.some((r) => isSipService(r.data.services)),
  };
}

/** Why a record cannot be used by this client, or undefined when it can. */
function refusal(record: NaptrRecord, scheme: SipScheme, transports: ReadonlySet<SipTransport>): string | undefined {
  const { flags, services, regexp, replacement } = record.data;
  if (flags.toLowerCase() !== 's') {
    return `flags "${flags}" are not "s": RFC 3263 follows terminal records that point to SRV`;
  }
  if (regexp !== '' || replacement === '.') return 'it has no replacement (a regexp record does not name an SRV owner)';
  const transport = serviceTransport(services);
  if (!transport) {
    return isSipService(services)
      ? `service "${services}" uses a transport this client does not implement (only ${SIP_SERVICES.join(', ')})`
      : `service "${services}" is not a SIP service`;
  }
  if (scheme === 'sips' && transport !== 'tls') {
    return `a SIPS URI keeps only SIPS services (RFC 3263 section 4.1: MUST discard "${services}")`;
  }
  if (!transports.has(transport)) {
    return transport === 'tls'
      ? 'the client does not support TLS, so SIPS services are discarded (RFC 3263 section 4.1)'
      : `the client does not support ${transport.toUpperCase()} (RFC 3263 section 4.1: MUST discard services of ` +
          `unsupported transports)`;
  }
  return undefined;
}

function ignored(record: string, reason: string, transport?: SipTransport): NaptrStep {
  return { kind: 'naptr', record, outcome: 'ignored', ...(transport ? { transport } : {}), reason };
}
