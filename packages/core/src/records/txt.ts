/** TXT (RFC 1035 section 3.3.14): one or more character-strings filling the RDATA. */
import type { WireReader } from '../wire/reader.js';
import { RdataError } from './rdata-error.js';

const utf8 = new TextDecoder('utf-8');

export function decodeTxt(reader: WireReader): string[] {
  if (reader.remaining === 0) throw new RdataError('txt-empty', 'TXT RDATA holds no character-string');
  const strings: string[] = [];
  while (reader.remaining > 0) strings.push(utf8.decode(reader.characterString('TXT string')));
  return strings;
}
