/**
 * The servers a backend asked for one question, as the `dnscore:query` trace shows them. A
 * backend records them only while someone traces (queryChannel.hasSubscribers): an answer
 * carries them (PluginAnswer.servers), a failure has them attached (withServers). Merged
 * questions share one answer or error, so every caller sees the same tries.
 */

/** One try: a server asked over a transport, and how it ended. */
export interface ServerAttempt {
  /**
   * Who was asked: "192.0.2.53:53", "[2001:db8::53]:53"; "zone file <path>", "hosts file
   * <path>"; for libunbound, which does not say which server it asked, what it was configured
   * to ask ("forwarders ...", "stub zone ...", "recursion").
   */
  readonly server: string;
  /**
   * "udp", "tcp"; "file" for zone and hosts files; "libunbound" (it does not say how it asked);
   * "cache" for a backend's own cache of answers (`server` names it, e.g. "validated-answer cache").
   */
  readonly transport: string;
  readonly outcome: 'answer' | 'timeout' | 'truncated' | 'error';
  /** The answer's rcode. */
  readonly rcode?: number;
  /** What went wrong, when outcome is 'error' (or a timeout with refused messages). */
  readonly error?: string;
}

const attached = new WeakMap<object, readonly ServerAttempt[]>();

/** Attaches the servers asked to the error a backend throws (only while tracing); returns the error. */
export function withServers<E extends object>(error: E, servers: readonly ServerAttempt[] | undefined): E {
  if (servers !== undefined) attached.set(error, servers);
  return error;
}

/** The servers attached to a backend's error, if any. */
export function serversOf(error: unknown): readonly ServerAttempt[] | undefined {
  return typeof error === 'object' && error !== null ? attached.get(error) : undefined;
}
