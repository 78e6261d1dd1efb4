/** MX (RFC 1035 section 3.3.9). */
import type { WireReader } from '../wire/reader.js';
import type { MxData } from './types.js';

export function decodeMx(reader: WireReader): MxData {
  return { preference: reader.u16('MX preference'), exchange: reader.nameText('MX exchange') };
}
