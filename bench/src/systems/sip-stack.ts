/**
 * The npm `sip` stack (0.0.6), loaded so that its resolver asks the bench's servers. sip.js
 * captures dns.resolveSrv, resolve4 and resolve6 when it loads; the bench hands it functions
 * that ask a private `dns.Resolver` (swapped per run, so a cold run starts with an empty
 * c-ares cache), then puts node:dns back as it was. The process-wide default resolver is never
 * touched. Its strategy is unchanged: SRV for tcp, udp and tls in parallel, then A and AAAA of
 * each target one after the other.
 */
import dns from 'node:dns';
import { createRequire } from 'node:module';
import type * as SipModule from 'sip';

type Callback<T> = (error: NodeJS.ErrnoException | null, value: T) => void;

let current: dns.Resolver | undefined;
let loaded: typeof SipModule | undefined;

/** The stack's resolver asks `resolver` from now on (a new Resolver per cold run). */
export function useResolverForSipStack(resolver: dns.Resolver): void {
  current = resolver;
}

function resolverNow(): dns.Resolver {
  if (!current) throw new Error('the npm sip stack has no resolver: call useResolverForSipStack() first');
  return current;
}

/** The npm `sip` module, loaded once with its DNS calls routed as described above. */
export function sipStack(): typeof SipModule {
  if (loaded) return loaded;
  const saved = { resolveSrv: dns.resolveSrv, resolve4: dns.resolve4, resolve6: dns.resolve6 };
  const mutable = dns as unknown as Record<string, unknown>;
  mutable.resolveSrv = (name: string, cb: Callback<dns.SrvRecord[]>) => resolverNow().resolveSrv(name, cb);
  mutable.resolve4 = (name: string, cb: Callback<string[]>) => resolverNow().resolve4(name, cb);
  mutable.resolve6 = (name: string, cb: Callback<string[]>) => resolverNow().resolve6(name, cb);
  try {
    loaded = createRequire(import.meta.url)('sip') as typeof SipModule;
  } finally {
    Object.assign(mutable, saved);
  }
  return loaded;
}

/** The stack's own resolve(): the targets it would try, in its order, as "transport address port". */
export function sipStackResolve(uri: string): Promise<string[]> {
  const sip = sipStack();
  return new Promise((resolve) => {
    sip.resolve(sip.parseUri(uri), (addresses) =>
      resolve(addresses.map((a) => `${a.protocol.toLowerCase()} ${a.address} ${a.port}`)),
    );
  });
}
