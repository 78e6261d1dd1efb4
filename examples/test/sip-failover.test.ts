/** examples/sip-failover runs and prints the story of a failover. */
import { describe, expect, it } from 'vitest';
import { main } from '../sip-failover/main.js';

describe('examples/sip-failover', () => {
  it('prints the targets, the failover, Call-ID affinity and the penalty box at work', async () => {
    const lines: string[] = [];
    await main((line) => lines.push(line));
    expect(lines).toEqual([
      'sip:bob@biloxi.example -> TLS by rule naptr, 1 round trip(s)',
      '  sip2.biloxi.example 203.0.113.12:5061 priority 10 weight 40',
      '  sip1.biloxi.example 203.0.113.11:5061 priority 10 weight 60',
      '  backup.biloxi.example 198.51.100.50:5061 priority 20 weight 0',
      '',
      'INVITE, Call-ID call-1:',
      '  try 1: sip1.biloxi.example -> no response within 6000 ms -> failover',
      '  try 2: sip2.biloxi.example -> 503 Retry-After 120 -> failover',
      '  try 3: backup.biloxi.example -> 200 -> success',
      '  penalty box: tls 203.0.113.11:5061 for 60 s more (timeout: no response to INVITE within 6000 ms)',
      '  penalty box: tls 203.0.113.12:5061 for 120 s more (retry-after: 503 Service Unavailable, Retry-After 120 s)',
      '',
      // Both priority-10 servers are boxed: a new request starts with the backup.
      'OPTIONS, Call-ID call-2, at once: first try backup.biloxi.example',
      'BYE, Call-ID call-1, at once: first try backup.biloxi.example (Call-ID affinity)',
      '',
      '61 s later:',
      '  penalty box: tls 203.0.113.12:5061 for 59 s more (retry-after: 503 Service Unavailable, Retry-After 120 s)',
      'OPTIONS, Call-ID call-3: first try sip1.biloxi.example',
      '',
      '121 s later:',
      '  penalty box: empty',
      'OPTIONS, Call-ID call-4: first try sip1.biloxi.example',
    ]);
  });
});
