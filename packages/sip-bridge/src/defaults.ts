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
