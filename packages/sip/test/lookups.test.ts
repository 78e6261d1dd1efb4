/** Lookups: each question once, rounds, steps in the order asked, errors and cancel. */
import { describe, expect, it } from 'vitest';
import { AbortError, DnsCore, TimeoutError, ZoneResolver } from '@dnscore/core';
import { Lookups, queryStep } from '../src/lookups.js';
import { recording } from './support/recording-plugin.js';
import { ALL_ZONES } from './support/fixtures.js';

function make(options: Parameters<typeof recording>[1] = {}, signal?: AbortSignal) {
  const plugin = recording(new ZoneResolver({ files: ALL_ZONES }), options);
  return { plugin, lookups: new Lookups(new DnsCore([plugin]), signal) };
}

describe('Lookups: nominal', () => {
  it('asks a question once, whatever its spelling', async () => {
    const { plugin, lookups } = make();
    const a = lookups.ask('biloxi.example', 'NAPTR', 0);
    const b = lookups.ask('BILOXI.example.', 'NAPTR', 3);
    expect(b).toBe(a);
    expect((await b).round).toBe(1);
    expect(plugin.asked).toEqual(['biloxi.example NAPTR']);
    expect(lookups.count).toBe(1);
  });

  it('a question asked after an answer of round n is of round n + 1', async () => {
    const { lookups } = make();
    const first = await lookups.ask('_sip._udp.biloxi.example', 'SRV', 0);
    const second = await lookups.ask('sip1.biloxi.example', 'A', first.round);
    expect(second.round).toBe(2);
    expect(lookups.rounds).toBe(2);
  });

  it('drain() gives each answer once, as a query step, in the order asked', async () => {
    const { lookups } = make();
    await Promise.all([lookups.ask('_sip._udp.biloxi.example', 'SRV', 0), lookups.ask('biloxi.example', 'AAAA', 0)]);
    const steps = lookups.drain();
    expect(steps).toEqual([
      {
        kind: 'query',
        round: 1,
        name: '_sip._udp.biloxi.example',
        type: 'SRV',
        rcode: 'NOERROR',
        records: expect.arrayContaining([
          '10 60 5060 sip1.biloxi.example.',
          '10 40 5060 sip2.biloxi.example.',
          '20 0 5060 backup.biloxi.example.',
        ]),
        additional: [
          'sip1.biloxi.example A 203.0.113.11',
          'sip2.biloxi.example A 203.0.113.12',
          'backup.biloxi.example A 198.51.100.50',
        ],
        ttl: 3600,
        secure: false,
        bogus: false,
      },
      {
        kind: 'query',
        round: 1,
        name: 'biloxi.example',
        type: 'AAAA',
        rcode: 'NOERROR',
        records: [],
        additional: [],
        ttl: 300,
        secure: false,
        bogus: false,
      },
    ]);
    expect(lookups.drain()).toEqual([]);
  });
});

describe('Lookups: off-nominal', () => {
  it('a failed question is an answer with an error, and a step that says so', async () => {
    const { lookups } = make({ fail: { 'biloxi.example NAPTR': new TimeoutError('nobody answered') } });
    const answer = await lookups.ask('biloxi.example', 'NAPTR', 0);
    expect(answer.error).toBeInstanceOf(TimeoutError);
    expect(queryStep(answer)).toEqual({
      kind: 'query',
      round: 1,
      name: 'biloxi.example',
      type: 'NAPTR',
      records: [],
      additional: [],
      ttl: 0,
      secure: false,
      bogus: false,
      error: { code: 'DNS_ERR_TIMEOUT', message: 'nobody answered' },
    });
  });

  it('an error without a code is reported as ERR', () => {
    expect(queryStep({ name: 'x.example', type: 'A', round: 1, error: new Error('boom') }).error).toEqual({
      code: 'ERR',
      message: 'boom',
    });
  });

  it('a bogus answer is a step marked bogus, with no records', async () => {
    const { lookups } = make({ bogus: ['biloxi.example NAPTR'] });
    const step = queryStep(await lookups.ask('biloxi.example', 'NAPTR', 0));
    expect(step).toMatchObject({ bogus: true, whyBogus: 'signature over biloxi.example NAPTR expired', records: [] });
  });

  it('cancel rejects with AbortError', async () => {
    const { lookups } = make({}, AbortSignal.abort());
    await expect(lookups.ask('biloxi.example', 'NAPTR', 0)).rejects.toBeInstanceOf(AbortError);
  });
});
