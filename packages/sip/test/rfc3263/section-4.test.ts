/**
 * RFC 3263 section 4 (Client Usage): TARGET, "exactly once per transaction", and the targets
 * of retransmissions, ACK and CANCEL.
 */
import { describe, expect, it } from 'vitest';
import { lines, setup } from '../support/fixtures.js';

describe('RFC 3263 section 4: TARGET', () => {
  it('"If the URI contains a maddr parameter, TARGET is the maddr value": the host is not asked about', async () => {
    const { locator, plugin } = setup();
    const resolution = await locator.resolve('sip:bob@biloxi.example;maddr=nosrv.cases.example', { stepThrough: true });
    expect(resolution.target).toEqual({ host: 'nosrv.cases.example', kind: 'hostname', from: 'maddr' });
    expect(lines(resolution.targets)).toEqual([
      'udp [2001:db8::20]:5060 nosrv.cases.example',
      'udp 192.0.2.20:5060 nosrv.cases.example',
    ]);
    expect(plugin.asked.filter((q) => q.includes('biloxi'))).toEqual([]);
    expect(resolution.steps).toContainEqual({
      kind: 'note',
      message: 'TARGET is the maddr parameter nosrv.cases.example, not the host biloxi.example (RFC 3263 section 4)',
    });
  });

  it('a numeric maddr is a numeric TARGET: no DNS at all', async () => {
    const { locator, plugin } = setup();
    const resolution = await locator.resolve('sip:bob@biloxi.example;maddr=192.0.2.99', { stepThrough: true });
    expect(lines(resolution.targets)).toEqual(['udp 192.0.2.99:5060 192.0.2.99']);
    expect(resolution.targets[0]!.source).toBe('literal');
    expect(plugin.asked).toEqual([]);
  });

  it('"otherwise, TARGET is the domain of the host": the host is asked about', async () => {
    const { locator, plugin } = setup();
    await locator.resolve('sip:bob@biloxi.example', { stepThrough: true });
    expect(plugin.asked).toContain('biloxi.example NAPTR');
  });
});

describe('RFC 3263 section 4: "The procedures here MUST be done exactly once per transaction"', () => {
  it('a cursor walking the targets after failures asks DNS once', async () => {
    const { locator, plugin } = setup();
    const cursor = locator.cursor('sip:bob@biloxi.example');
    const first = await cursor.next();
    const asked = plugin.asked.length;
    expect(asked).toBe(6);
    cursor.report(first!, { type: 'response', status: 503 });
    const second = await cursor.next();
    cursor.report(second!, { type: 'transport-error' });
    const third = await cursor.next();
    cursor.report(third!, { type: 'timeout' });
    expect(await cursor.next()).toBeUndefined();
    expect(plugin.asked.length).toBe(asked);
    expect(cursor.resolutions).toBe(1);
  });
});

describe('RFC 3263 section 4: retransmissions, ACK of a non-2xx and CANCEL "MUST go to the same server"', () => {
  it('the branch that took a target keeps it for its retransmissions, ACK and CANCEL', async () => {
    const { locator } = setup();
    const cursor = locator.cursor('sip:bob@biloxi.example');
    const failed = await cursor.next();
    locator.transactions.bind('z9hG4bK-1', failed!.target);
    cursor.report(failed!, { type: 'response', status: 503 });
    const taken = await cursor.next();
    locator.transactions.bind('z9hG4bK-2', taken!.target);
    expect(cursor.report(taken!, { type: 'response', status: 486 })).toBe('success');
    // Retransmission, CANCEL and the ACK of the 486 carry branch z9hG4bK-2.
    expect(locator.transactions.lookup('z9hG4bK-2')).toBe(taken!.target);
    expect(locator.transactions.lookup('z9hG4bK-2')).not.toEqual(failed!.target);
  });
});
