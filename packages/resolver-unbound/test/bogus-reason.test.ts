/**
 * libunbound's reasons (as its validator writes them, and as seen from real libunbound on
 * loopback in test/dnssec-mitm.test.ts) to RFC 8914 INFO-CODEs.
 */
import { describe, expect, it } from 'vitest';
import { edeOfWhyBogus } from '../src/bogus-reason.js';

describe('edeOfWhyBogus', () => {
  it.each([
    ['validation failure <www.x.example. A IN>: signature expired from 127.0.0.1', 7],
    ['validation failure <www.x.example. A IN>: signature before inception date from 127.0.0.1', 8],
    ['validation failure <www.x.example. A IN>: no signatures from 127.0.0.1', 10],
    [
      'validation failure <www.x.example. A IN>: no DNSSEC records from 127.0.0.1 for DS x.example. while building ' +
        'chain of trust',
      10,
    ],
    ['validation failure <x.example. NSEC IN>: no signatures over NSECs from 127.0.0.1', 12],
    [
      'validation failure <www.sha1.example. A IN>: DS hash mismatches key from 127.0.0.1 for key sha1.example. ' +
        'while building chain of trust',
      9,
    ],
    ['validation failure <www.x.example. A IN>: signatures from unknown keys from 127.0.0.1', 9],
    ['validation failure <www.x.example. A IN>: unsupported algorithm by crypto library', 1],
    ['validation failure <www.x.example. A IN>: dnskey without ZSK flag', 11],
    ['validation failure <www.x.example. A IN>: ECDSA signature verification failed from 127.0.0.1', 6],
    ['validation failure <alias.x.example. A IN>: ECDSA signature verification failed for CNAME from 127.0.0.1', 6],
    ['something libunbound may say one day', 6],
  ])('%s -> %i', (why, code) => {
    expect(edeOfWhyBogus(why)).toBe(code);
  });

  it('no reason at all is still DNSSEC Bogus', () => {
    expect(edeOfWhyBogus(null)).toBe(6);
    expect(edeOfWhyBogus('')).toBe(6);
  });
});
