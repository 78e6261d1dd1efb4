/**
 * A SystemResolver in front of a nameserver that answers wrongly on purpose, end to end through
 * DnsCore: each case is a defect once found, and what the resolver must do instead.
 */
import { describe, expect, it } from 'vitest';
import { DnsCore, MalformedAnswerError } from '@dnscore/core';
import type { HostileServer, ReceivedQuery } from '../../../test/support/hostile-server.js';
import { SystemResolver } from '../src/system-resolver.js';
import { useHostileServer } from './helpers.js';

let server: HostileServer;
useHostileServer({ udp: ['answer'], tcp: ['answer'] }, (started) => {
  server = started;
});

/** The query sent back as a response with `flags` and no OPT record: header and question. */
function headerAndQuestion(query: ReceivedQuery, flags: number): Buffer {
  const packet = Buffer.from(query.packet.subarray(0, query.packet.length - 11)); // the OPT record cut off
  packet.writeUInt16BE(0x8000 | flags, 2);
  packet.writeUInt16BE(0, 10);
  return packet;
}

function resolverAt(endpoint: string): SystemResolver {
  return new SystemResolver({ nameservers: [endpoint], resolvConf: '/dev/null' }, { timeoutMs: 1000, attempts: 1 });
}

describe('a truncated UDP answer whose records were cut without fixing the counts', () => {
  it('is asked again over TCP, not dropped as malformed until the try times out', async () => {
    // TC, RD, RA, ANCOUNT 2 and no records: cut at the size limit, the counts left as they were.
    const cut = (q: ReceivedQuery): Buffer => {
      const packet = headerAndQuestion(q, 0x0380);
      packet.writeUInt16BE(2, 6);
      return packet;
    };
    server.setPlan({ udp: [{ raw: cut }], tcp: ['answer'] });
    const system = resolverAt(server.endpoint);
    const core = new DnsCore([system]);
    try {
      const result = await core.resolve('www.hostile.example', 'A');
      expect(result.rcodeName).toBe('NOERROR');
      expect(result.records.map((r) => r.data)).toEqual(['192.0.2.80']);
      expect(system.stats).toMatchObject({ udpSent: 1, tcpSent: 1, truncated: 1, malformed: 0, timeouts: 0 });
    } finally {
      await core.close();
    }
  });
});

describe('an OPT record in the answer section (RFC 6891 section 6.1.1: only in the additional section)', () => {
  it('is a malformed answer, not an answer whose OPT is taken for a record', async () => {
    // The question, then an OPT record as the one answer record.
    const misplaced = (q: ReceivedQuery): Buffer => {
      const packet = Buffer.from(q.packet);
      packet.writeUInt16BE(0x8180, 2);
      packet.writeUInt16BE(1, 6);
      packet.writeUInt16BE(0, 10);
      return packet;
    };
    server.setPlan({ tcp: [{ raw: misplaced }] });
    const system = new SystemResolver(
      { nameservers: [server.endpoint], resolvConf: '/dev/null' },
      { timeoutMs: 1000, attempts: 1, forceTcp: true },
    );
    const core = new DnsCore([system]);
    try {
      const error = await core.resolve('www.hostile.example', 'A').then(
        () => undefined,
        (e: unknown) => e,
      );
      expect(error).toBeInstanceOf(MalformedAnswerError);
      expect((error as MalformedAnswerError).code).toBe('DNS_ERR_MALFORMED_ANSWER');
      expect((error as Error).message).toMatch(/an OPT record in the answer section/);
      expect(system.stats).toMatchObject({ tcpSent: 1, malformed: 1, answers: 0 });
    } finally {
      await core.close();
    }
  });
});
