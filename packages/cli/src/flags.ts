/** Flag values shared by the subcommands: numbers and transport lists, checked once, here. */
import { isSipTransport, type SipTransport } from '@dnscore/sip';
import { UsageError } from './usage-error.js';

/** "udp,tcp,tls" -> the transports, each once; anything else is a UsageError. */
export function parseTransports(text: string): SipTransport[] {
  const list = text.split(',').map((t) => t.trim().toLowerCase());
  const bad = list.find((t) => !isSipTransport(t));
  if (bad !== undefined || list.length === 0)
    throw new UsageError(`--transports takes a list of udp, tcp, tls, not "${text}"`);
  return [...new Set(list)] as SipTransport[];
}

/** "500,503" -> final response codes (300..699), each once, for --failover-on; anything else is a UsageError. */
export function parseStatusCodes(text: string, flag: string): number[] {
  const list = text.split(',').map((t) => t.trim());
  if (list.some((t) => !/^[3-6]\d\d$/.test(t)))
    throw new UsageError(`${flag} takes a list of final SIP status codes 300..699 (e.g. 500,503), not "${text}"`);
  return [...new Set(list.map(Number))];
}

/** A whole number in [min, max], or a UsageError naming the flag. */
export function integer(text: string, flag: string, min: number, max: number): number {
  if (!/^-?\d+$/.test(text) || Number(text) < min || Number(text) > max)
    throw new UsageError(`${flag} takes a whole number in ${min}..${max}, not "${text}"`);
  return Number(text);
}
