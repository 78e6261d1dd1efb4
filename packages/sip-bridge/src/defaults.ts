/** The defaults of @dnscore/sip-bridge, each named and explained once. */

/**
 * What a TLS connection checks the server's certificate against, and sends as SNI: the host of
 * the URI that chose the next hop ("domain", RFC 5922 section 4: the SIP domain, never a name
 * learned from DNS unless DNSSEC vouches for it), or the SRV target's host name ("target").
 * Never the IP address, unless the URI itself is an IP literal.
 */
export const DEFAULT_TLS_SERVER_NAME: 'domain' | 'target' = 'domain';

/**
 * Timer F (64*T1 = 32 s, RFC 3261 section 17.1.2.2) for a non-INVITE request that got a
 * provisional response: `sip` 0.0.6 clears Timer F on a 1xx, so the bridge keeps its own.
 */
export const DEFAULT_NON_INVITE_TIMEOUT_MS = 32_000;

/** An outgoing TCP/TLS connection nobody uses any more closes after this long (as `sip` does). */
export const DEFAULT_STREAM_IDLE_MS = 120_000;

/** RFC 3261 section 19.1.2: the port `sip` listens on when none is given. */
export const DEFAULT_LOCAL_PORT = 5060;

/**
 * Where the bridge listens unless told otherwise: loopback. The `sip` 0.0.6 parser behind it has
 * a quadratic regex on whitespace (issue 21): a 60 KB datagram blocks the event loop for ~1 s.
 */
export const DEFAULT_LOCAL_ADDRESS = '127.0.0.1';

/** The Max-Forwards of the ACKs the `sip` transaction layer builds (RFC 3261 section 8.1.1.6). */
export const DEFAULT_MAX_FORWARDS = 70;

/** RFC 3261 section 8.1.1.7: every branch the bridge makes starts with the magic cookie. */
export const BRANCH_MAGIC_COOKIE = 'z9hG4bK';

// ---- What reaches the `sip` parser (issue 21 item 5; src/message-guard.ts) ------------------

/**
 * A whole SIP message, header section and body: 65,535 bytes, the most a UDP datagram carries
 * (RFC 768), and beyond what RFC 3261 section 18.1.1 lets a UDP sender use (messages near the
 * path MTU go over TCP). The body is never run through `sip`'s regular expressions.
 */
export const DEFAULT_MAX_MESSAGE_BYTES = 65_535;

/**
 * The header section: 8 KiB. Real requests carry 0.5-3 KB of headers (a STIR Identity header,
 * RFC 8224, about 1 KB); the fields `sip` keeps as text cost it one linear pass.
 */
export const DEFAULT_MAX_HEADER_BYTES = 8_192;

/** Header fields per message: a request through a dozen proxies carries 20-40. */
export const DEFAULT_MAX_HEADERS = 128;

/**
 * One start line or header field, folds included: 4 KiB. A field `sip` keeps as text costs it
 * one linear regex; an Identity header (RFC 8224) is about 1 KB.
 */
export const DEFAULT_MAX_LINE_BYTES = 4_096;

/**
 * One field that `sip` parses into parts (Via, To, From, Contact, Route, Record-Route, Path,
 * CSeq, Refer-To, the authentication fields): 1 KiB. Its regexes search the rest of the value
 * at each list element and parameter, so a field of n bytes costs up to about n^2 steps
 * (1.4 ms for 1 KiB, 5.5 ms for 2 KiB); a Digest Authorization is 300-600 bytes, and a long
 * Route set can be split over several fields (RFC 3261 section 7.3.1).
 */
export const DEFAULT_MAX_PARSED_FIELD_BYTES = 1_024;

/**
 * The sum over those fields of each one's length squared: 2^21 (two 1 KiB fields, 32 of 256
 * bytes). `sip`'s cost on a field grows as its square, so this bounds the whole message's parse
 * whatever its shape, to about twice the worst 1 KiB field; a real request (five Vias, To, From,
 * Contact, a Route set, a Digest Authorization) spends 0.5-1 x 2^20.
 */
export const DEFAULT_PARSED_FIELD_BUDGET = 2 ** 21;

/**
 * Consecutive whitespace bytes: 16. RFC 3261 LWS is one or a few spaces (a fold adds CRLF and a
 * tab or a few spaces). `sip`'s `\s*` costs the square of a run (10 s for one of 60,000 bytes)
 * and multiplies the cost of its Route and Contact regexes (a run of 32 doubled the worst field).
 */
export const DEFAULT_MAX_WHITESPACE_RUN = 16;

/**
 * Incoming TCP connections open at once: 256. Each holds at most one message being read
 * (`maxMessageBytes`), so 16 MiB of buffers at worst; a new connection past the limit is
 * closed at once.
 */
export const DEFAULT_MAX_TCP_CONNECTIONS = 256;

/**
 * From the first byte of a message on a TCP connection to its last: 10 s, time for 64 KiB at
 * 52 kbit/s. A slow sender (slowloris) loses its connection instead of holding it.
 */
export const DEFAULT_TCP_MESSAGE_MS = 10_000;

/**
 * An incoming TCP connection that carries nothing for this long, with no transaction waiting to
 * answer on it, is closed: 120 s, what `sip` did. RFC 5626 keep-alives come more often.
 */
export const DEFAULT_TCP_IDLE_MS = 120_000;
