/** examples/pjsip-adapter runs and prints what a PJSIP consumer gets from the callback. */
import { describe, expect, it } from 'vitest';
import { main } from '../pjsip-adapter/main.js';

describe('examples/pjsip-adapter', () => {
  it('resolves host infos as PJSIP hands them over, and lists a failed server last', async () => {
    const lines: string[] = [];
    await main((line) => lines.push(line));
    expect(lines).toEqual([
      'sip:bob@biloxi.example -> pjsip_host_info { type 0, flag 0, host biloxi.example, port 0 }',
      '  status 0 (PJ_SUCCESS), count 3',
      // NAPTR chose SIPS+D2T; priority and weight are filled (Asterisk leaves them 0).
      '  entry TLS 203.0.113.12:5061 sip2.biloxi.example priority 10 weight 40',
      '  entry TLS 203.0.113.11:5061 sip1.biloxi.example priority 10 weight 60',
      '  entry TLS 198.51.100.50:5061 backup.biloxi.example priority 20 weight 0',
      'set failed: sip2.biloxi.example for 60 s',
      'sip:bob@biloxi.example -> pjsip_host_info { type 0, flag 0, host biloxi.example, port 0 }',
      '  status 0 (PJ_SUCCESS), count 3',
      '  entry TLS 203.0.113.11:5061 sip1.biloxi.example priority 10 weight 60',
      '  entry TLS 198.51.100.50:5061 backup.biloxi.example priority 20 weight 0',
      '  entry TLS 203.0.113.12:5061 sip2.biloxi.example priority 10 weight 40',
      'sip:bob@biloxi.example;transport=udp -> pjsip_host_info { type 1, flag 4, host biloxi.example, port 0 }',
      '  status 0 (PJ_SUCCESS), count 3',
      '  entry UDP 203.0.113.12:5060 sip2.biloxi.example priority 10 weight 40',
      '  entry UDP 203.0.113.11:5060 sip1.biloxi.example priority 10 weight 60',
      '  entry UDP 198.51.100.50:5060 backup.biloxi.example priority 20 weight 0',
      'sip:bob@nowhere.biloxi.example -> pjsip_host_info { type 0, flag 0, host nowhere.biloxi.example, port 0 }',
      '  status 320047 (PJLIB_UTIL_EDNSNOANSWERREC), count 0',
    ]);
  });
});
