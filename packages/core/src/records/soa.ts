/** SOA (RFC 1035 section 3.3.13). */
import type { WireReader } from '../wire/reader.js';
import type { SoaData } from './types.js';

export function decodeSoa(reader: WireReader): SoaData {
  return {
    mname: reader.nameText('SOA MNAME'),
    rname: reader.nameText('SOA RNAME'),
    serial: reader.u32('SOA SERIAL'),
    refresh: reader.u32('SOA REFRESH'),
    retry: reader.u32('SOA RETRY'),
    expire: reader.u32('SOA EXPIRE'),
    minimum: reader.u32('SOA MINIMUM'),
  };
}

/** RFC 2308 section 5: a negative answer lives for min(SOA TTL, SOA MINIMUM). */
export function negativeTtl(soaTtl: number, soa: SoaData): number {
  return Math.min(soaTtl, soa.minimum);
}
