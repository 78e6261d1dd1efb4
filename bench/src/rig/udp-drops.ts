/**
 * Datagrams the kernel dropped because a UDP socket's receive buffer was full (Linux's
 * RcvbufErrors in /proc/net/snmp, for the whole machine), or undefined where it cannot be read.
 * A system that keeps every question on one socket (c-ares) loses answers this way when a burst
 * of them comes back within a few milliseconds; the bench says so beside its failure.
 */
import { readFileSync } from 'node:fs';

export function udpReceiveBufferDrops(): number | undefined {
  try {
    const lines = readFileSync('/proc/net/snmp', 'utf8')
      .split('\n')
      .filter((line) => line.startsWith('Udp:'));
    const names = lines[0]?.split(/\s+/) ?? [];
    const values = lines[1]?.split(/\s+/) ?? [];
    const at = names.indexOf('RcvbufErrors');
    const value = at > 0 ? Number(values[at]) : Number.NaN;
    return Number.isFinite(value) ? value : undefined;
  } catch {
    return undefined;
  }
}
