/** TLSA (RFC 6698 section 2.1): usage, selector, matching type, association data. */
import type { WireReader } from '../wire/reader.js';
import { RdataError } from './rdata-error.js';
import type { TlsaData } from './types.js';

export function decodeTlsa(reader: WireReader): TlsaData {
  const usage = reader.u8('TLSA usage');
  const selector = reader.u8('TLSA selector');
  const matchingType = reader.u8('TLSA matching type');
  if (reader.remaining === 0) throw new RdataError('tlsa-data', 'TLSA record has no certificate association data');
  return { usage, selector, matchingType, certificate: reader.bytes(reader.remaining, 'TLSA data') };
}
