/**
 * A consumer that uses the addresses of a pjsip_ext_resolver the way PJSIP's sip_util.c does:
 * pjsip_get_dest_info() on the URI, one resolve call, then the entries in order, one try each.
 * A request of 1300 bytes or more whose first entry is UDP gets TCP copies of the entries put
 * in front (sip_util.c's TCP switch). A failed entry (transport error, 503, no answer within
 * the per-entry timer) is reported with setServerFailed() and the next entry is tried.
 * The SIP work is done by the `sip` stack's pieces (SipEndpoint), not by the bridge.
 */
import {
  PjStatus,
  PjsipTransportType,
  hostInfoFromUri,
  transportOfType,
  type PjsipServerAddresses,
  type PjsipAdapter,
} from '@dnscore/pjsip-adapter';
import type { SipEndpoint, SipRequest, SipResponse } from '@dnscore/sip-bridge';

export interface PjsipTry {
  readonly type: number;
  readonly address: string;
  readonly port: number;
  readonly outcome: 'response' | '503' | 'timeout' | 'transport-error';
  readonly status: number | null;
}

export interface PjsipSend {
  /** The status the resolver callback gave. */
  readonly resolveStatus: number;
  /** The entries of the callback, in order. */
  readonly entries: PjsipServerAddresses['entry'];
  readonly tries: readonly PjsipTry[];
  readonly answeredBy: PjsipTry | undefined;
}

/** PJSIP_UDP_SIZE_THRESHOLD. */
const UDP_SIZE_THRESHOLD = 1300;

/** One resolve call; `settleMs` later it reports how often the callback ran (a second call must never come). */
export function resolveOnce(
  adapter: PjsipAdapter,
  uri: string,
  settleMs = 0,
): Promise<{ status: number; addresses: PjsipServerAddresses | null; calls: number }> {
  return new Promise((resolve) => {
    let calls = 0;
    adapter.resolve(null, null, hostInfoFromUri(uri), 'token', (status, _token, addresses) => {
      calls++;
      if (calls === 1) setTimeout(() => resolve({ status, addresses, calls }), settleMs);
    });
  });
}

export async function pjsipSend(
  adapter: PjsipAdapter,
  endpoint: SipEndpoint,
  request: SipRequest,
  options: { readonly timeoutMs: number; readonly failedForMs: number },
): Promise<PjsipSend> {
  const uri = String(request.uri);
  const info = hostInfoFromUri(uri);
  const { status, addresses } = await resolveOnce(adapter, uri);
  if (status !== PjStatus.PJ_SUCCESS || !addresses)
    return { resolveStatus: status, entries: [], tries: [], answeredBy: undefined };
  let entries = [...addresses.entry];
  const size = Buffer.byteLength(
    endpoint.stack.stringify({
      ...request,
      headers: {
        ...request.headers,
        via: [
          {
            host: endpoint.viaHost,
            port: endpoint.port,
            protocol: 'UDP',
            params: { branch: 'z9hG4bK0000000', rport: null },
          },
        ],
      },
    }),
    'binary',
  );
  if (size >= UDP_SIZE_THRESHOLD && (entries[0]!.type & ~PjsipTransportType.IPV6) === PjsipTransportType.UDP) {
    entries = [
      ...entries.map((e) => ({ ...e, type: (e.type & PjsipTransportType.IPV6) | PjsipTransportType.TCP })),
      ...entries,
    ];
  }
  const tries: PjsipTry[] = [];
  // PJSIP checks a TLS server against the host of the destination, the domain of the URI.
  const serverName = /[a-z]/i.test(info.addr.host) && !info.addr.host.includes(':') ? info.addr.host : undefined;
  for (const entry of entries) {
    const transport = transportOfType(entry.type);
    if (!transport) continue;
    const target = {
      transport,
      address: entry.addr.address,
      port: entry.addr.port,
      ...(serverName ? { serverName } : {}),
    };
    const result = await tryOnce(
      endpoint,
      { ...request, headers: { ...request.headers, via: [{ params: {} }] } },
      target,
      options.timeoutMs,
    );
    const tried: PjsipTry = { type: entry.type, address: entry.addr.address, port: entry.addr.port, ...result };
    tries.push(tried);
    if (result.outcome === 'response')
      return { resolveStatus: status, entries: addresses.entry, tries, answeredBy: tried };
    adapter.setServerFailed(
      { address: entry.addr.address, port: entry.addr.port, type: entry.type },
      options.failedForMs,
    );
  }
  return { resolveStatus: status, entries: addresses.entry, tries, answeredBy: undefined };
}

function tryOnce(
  endpoint: SipEndpoint,
  request: SipRequest,
  target: Parameters<SipEndpoint['attempt']>[1],
  timeoutMs: number,
): Promise<Pick<PjsipTry, 'outcome' | 'status'>> {
  return new Promise((resolve) => {
    let done = false;
    const finish = (outcome: PjsipTry['outcome'], status: number | null): void => {
      if (done) return;
      done = true;
      clearTimeout(timer);
      handle.stop();
      resolve({ outcome, status });
    };
    const timer = setTimeout(() => finish('timeout', null), timeoutMs);
    const handle = endpoint.attempt(request, target, (event) => {
      if (event.type === 'transport-error') return finish('transport-error', null);
      const response: SipResponse = event.response;
      if (response.status >= 200) finish(response.status === 503 ? '503' : 'response', response.status);
    });
  });
}
