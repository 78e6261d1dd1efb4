/** CNAME, NS, PTR (RFC 1035 sections 3.3.1, 3.3.11, 3.3.12) and DNAME (RFC 6672): one domain name. */
import type { WireReader } from '../wire/reader.js';

export function decodeNameRdata(reader: WireReader): string {
  return reader.nameText('RDATA name');
}
