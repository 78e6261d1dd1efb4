/** DNS that changes what a real one answers: DNSSEC flags per name, or no answer at all. */
import { TimeoutError, type DnsApi, type DnsResult } from '@dnscore/core';

type Dnssec = 'secure' | 'bogus' | undefined;

/** Results of `inner` with `secure`/`bogus` set by `state(name, type)` (undefined: as answered). */
export function withDnssec(inner: DnsApi, state: (name: string, type: string) => Dnssec): DnsApi {
  return {
    async resolve(name: string, type?: number | string, options?: object): Promise<DnsResult> {
      const result = await inner.resolve(name, type as string, options);
      const s = state(name, String(type));
      if (!s) return result;
      return Object.create(result, {
        secure: { value: s === 'secure' },
        bogus: { value: s === 'bogus' },
        whyBogus: { value: s === 'bogus' ? 'signature expired' : undefined },
        records: { value: s === 'bogus' ? [] : result.records },
      }) as DnsResult;
    },
  } as DnsApi;
}

/** Every question times out. */
export const silentDns: DnsApi = {
  async resolve(name: string): Promise<DnsResult> {
    throw new TimeoutError(`no answer for ${name} within 100 ms`);
  },
} as DnsApi;
