/** Counters of what the resolver did and what it refused; tests read them to see hostile packets counted. */
export interface SystemResolverStats {
  /** resolve() and resolveName() calls taken (hosts answers included). */
  queries: number;
  /** Calls that joined an identical question already in flight instead of asking again. */
  deduplicated: number;
  /** Questions answered from the hosts file. */
  hostsAnswers: number;
  /** Queries sent over UDP and over TCP. */
  udpSent: number;
  tcpSent: number;
  /** Answers accepted. */
  answers: number;
  /** Datagrams from another address or port than the one queried: dropped. */
  wrongSource: number;
  /** Messages with another ID: dropped. */
  wrongId: number;
  /** Messages with our ID but another question (or none): dropped. */
  wrongQuestion: number;
  /** Messages with our ID and question in another case than sent (0x20): dropped. */
  caseMismatch: number;
  /** Servers asked again without 0x20 because they did not echo case. */
  caseFallbacks: number;
  /** Messages that are no DNS response at all: dropped. */
  garbage: number;
  /** Messages with our ID that cannot be parsed (cut records, compression loops): dropped on UDP, an error on TCP. */
  malformed: number;
  /** UDP answers larger than the payload size we advertised: not used, the question goes to TCP. */
  oversized: number;
  /** UDP answers with TC set: the question went to TCP. */
  truncated: number;
  /** Questions sent straight to TCP because their answer recently did not fit in UDP. */
  tcpRemembered: number;
  /** FORMERR without OPT: asked again without EDNS (RFC 6891 section 7). */
  ednsFallbacks: number;
  /** Tries (one server, one transport) that got no answer in time. */
  timeouts: number;
  /** Tries that failed on a socket error or a closed connection. */
  networkErrors: number;
  /** Gauges: queries asking nameservers now, and queries waiting for a slot. */
  inFlight: number;
  queued: number;
  /** Highest `inFlight` seen. */
  peakInFlight: number;
}

export function emptyStats(): SystemResolverStats {
  return {
    queries: 0,
    deduplicated: 0,
    hostsAnswers: 0,
    udpSent: 0,
    tcpSent: 0,
    answers: 0,
    wrongSource: 0,
    wrongId: 0,
    wrongQuestion: 0,
    garbage: 0,
    malformed: 0,
    oversized: 0,
    truncated: 0,
    tcpRemembered: 0,
    ednsFallbacks: 0,
    timeouts: 0,
    networkErrors: 0,
    caseMismatch: 0,
    caseFallbacks: 0,
    inFlight: 0,
    queued: 0,
    peakInFlight: 0,
  };
}

/** Counts a dropped message by its verdict. */
export function countDropped(
  stats: SystemResolverStats,
  kind: 'garbage' | 'wrong-id' | 'wrong-question' | 'case-mismatch' | 'malformed',
): void {
  if (kind === 'garbage') stats.garbage++;
  else if (kind === 'case-mismatch') stats.caseMismatch++;
  else if (kind === 'wrong-id') stats.wrongId++;
  else if (kind === 'wrong-question') stats.wrongQuestion++;
  else stats.malformed++;
}
