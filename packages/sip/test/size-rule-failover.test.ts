/**
 * The 1300-byte rule inside a walk (RFC 3261 section 18.1.1): a large request for a UDP target
 * goes to the TCP destination at the same address and port. That destination is the one boxed
 * when it fails and the one a large request checks in the box; the dialog stays pinned to the
 * listed server, so its small requests go back to it over UDP.
 */
import { describe, expect, it } from 'vitest';
import { setup } from './support/fixtures.js';

const URI = 'sip:bob@biloxi.example;transport=udp';

describe('the 1300-byte rule and the penalty box', () => {
  it('a large request passes over a UDP target whose TCP destination is boxed', async () => {
    const { locator } = setup();
    const first = locator.cursor(URI, { messageSize: 4000 });
    const failed = await first.next();
    expect(failed).toMatchObject({ switched: true, target: { transport: 'tcp' } });
    first.report(failed!, { type: 'transport-error', error: new Error('ECONNREFUSED') });

    const second = locator.cursor(URI, { messageSize: 4000 });
    const walk: string[] = [];
    for (let a = await second.next(); a; a = await second.next()) {
      const skipped = a.skipped.map((e) => ` skipped ${e.transport} ${e.address}:${e.port} ${e.reason}`).join('');
      walk.push(`${a.target.transport} ${a.target.address}${a.penalized ? ' penalized' : ''}${skipped}`);
      second.report(a, { type: 'response', status: 503 });
    }
    expect(walk).toHaveLength(3);
    expect(walk[2]).toBe(`tcp ${failed!.target.address} penalized`);
    expect(walk.slice(0, 2).join(' ')).toContain(`skipped tcp ${failed!.target.address}:5060 transport-error`);
  });

  it('a small request still goes first to that target over UDP, which did not fail', async () => {
    const { locator } = setup();
    const first = locator.cursor(URI, { messageSize: 4000 });
    const failed = await first.next();
    first.report(failed!, { type: 'transport-error', error: new Error('ECONNREFUSED') });

    const cursor = locator.cursor(URI, { messageSize: 800 });
    const walk: string[] = [];
    for (let a = await cursor.next(); a; a = await cursor.next()) {
      walk.push(`${a.target.transport} ${a.target.address} penalized ${a.penalized} skipped ${a.skipped.length}`);
      cursor.report(a, { type: 'response', status: 503 });
    }
    expect(walk).toHaveLength(3);
    expect(walk).toContain(`udp ${failed!.resolved.address} penalized false skipped 0`);
    expect(walk.every((line) => line.endsWith('penalized false skipped 0'))).toBe(true);
  });

  it('a large request still passes over a UDP target boxed itself (503 with Retry-After)', async () => {
    const { locator } = setup();
    const small = locator.cursor(URI, { messageSize: 600 });
    const failed = await small.next();
    small.report(failed!, { type: 'response', status: 503, retryAfter: 120 });

    const large = locator.cursor(URI, { messageSize: 4000 });
    const walk: string[] = [];
    for (let a = await large.next(); a; a = await large.next()) {
      walk.push(`${a.target.transport} ${a.target.address}${a.penalized ? ' penalized' : ''}`);
      large.report(a, { type: 'response', status: 503 });
    }
    expect(walk).toHaveLength(3);
    expect(walk[2]).toBe(`tcp ${failed!.target.address} penalized`);
  });

  it('when every TCP destination is boxed, a large request still gets one, marked penalized', async () => {
    const { locator } = setup();
    const targets = (await locator.resolve(URI)).targets;
    for (const t of targets) locator.penaltyBox.markFailed({ ...t, transport: 'tcp' });
    const attempt = await locator.cursor(URI, { messageSize: 4000 }).next();
    expect(attempt).toMatchObject({ switched: true, penalized: true, skipped: [], target: { transport: 'tcp' } });
  });
});

describe('the 1300-byte rule and Call-ID affinity', () => {
  it('a dialog whose large INVITE went over TCP keeps its server for a small BYE', async () => {
    for (const seed of [1, 2, 3, 4, 5, 6]) {
      const { locator } = setup({ seed });
      const invite = locator.cursor(URI, { callId: 'c1', method: 'INVITE', messageSize: 4000 });
      const sent = await invite.next();
      expect(sent!.switched).toBe(true);
      expect(invite.report(sent!, { type: 'response', status: 200 })).toBe('success');

      const bye = await locator.cursor(URI, { callId: 'c1', method: 'BYE', messageSize: 600 }).next();
      expect(bye).toMatchObject({ pinned: true, switched: false });
      expect(bye!.target).toEqual(sent!.resolved);
    }
  });

  it('a large request of the dialog goes to its server over TCP again', async () => {
    const { locator } = setup({ seed: 4 });
    const invite = locator.cursor(URI, { callId: 'c2', messageSize: 4000 });
    const sent = await invite.next();
    invite.report(sent!, { type: 'response', status: 200 });
    const reinvite = await locator.cursor(URI, { callId: 'c2', messageSize: 5000 }).next();
    expect(reinvite).toMatchObject({ pinned: true, switched: true, target: sent!.target });
  });
});
