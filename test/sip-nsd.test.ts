/**
 * @dnscore/sip through the system resolver against nsd on loopback: the RFC 3263 walk-through
 * zone resolves cold in one round trip, and the first round's six questions really leave
 * together. A recording UDP proxy between the stub and nsd logs every query and response in
 * the order they pass; nsd answers at once, so a question sent after an answer would show.
 */
import { createSocket, type RemoteInfo, type Socket } from 'node:dgram';
import { readFileSync } from 'node:fs';
import dnsPacket from 'dns-packet';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { DnsCore, seededRandom, withCache } from '@dnscore/core';
import { SystemResolver } from '@dnscore/resolver-system';
import { SipLocator, renderStepThrough } from '@dnscore/sip';
import { startNsd, type NsdServer } from './support/nsd.js';

const ZONE = readFileSync(new URL('../examples/zones/biloxi.example.zone', import.meta.url), 'utf8');

interface Proxy {
  readonly endpoint: string;
  /** "> name TYPE" for a query passing to nsd, "< name TYPE" for its answer passing back. */
  readonly events: string[];
  close(): Promise<void>;
}

/** A UDP proxy on 127.0.0.1 that forwards each query to `upstream` on a socket of its own. */
async function startProxy(upstream: NsdServer): Promise<Proxy> {
  const events: string[] = [];
  const front = createSocket('udp4');
  const sockets = new Set<Socket>();
  const describe = (packet: Buffer): string => {
    const question = dnsPacket.decode(packet).questions?.[0];
    // Names go out in random case (0x20, issue 21): the log compares them case-insensitively.
    return question ? `${question.name.toLowerCase()} ${question.type}` : '?';
  };
  front.on('message', (query: Buffer, client: RemoteInfo) => {
    events.push(`> ${describe(query)}`);
    const back = createSocket('udp4');
    sockets.add(back);
    back.on('message', (answer: Buffer) => {
      events.push(`< ${describe(answer)}`);
      front.send(answer, client.port, client.address);
      back.close();
      sockets.delete(back);
    });
    back.send(query, upstream.port, upstream.address);
  });
  await new Promise<void>((resolve) => front.bind(0, '127.0.0.1', resolve));
  return {
    endpoint: `127.0.0.1:${front.address().port}`,
    events,
    close: async () => {
      for (const socket of sockets) socket.close();
      await new Promise<void>((resolve) => front.close(() => resolve()));
    },
  };
}

let nsd: NsdServer;
let proxy: Proxy;
beforeAll(async () => {
  nsd = await startNsd([{ name: 'biloxi.example', text: ZONE }]);
  proxy = await startProxy(nsd);
});
afterAll(async () => {
  await proxy?.close();
  await nsd?.stop();
});

function locator(cache = false): { locator: SipLocator; system: SystemResolver } {
  const system = new SystemResolver(
    { nameservers: [proxy.endpoint], resolvConf: '/nonexistent/resolv.conf' },
    { timeoutMs: 2000, attempts: 1 },
  );
  const core = new DnsCore([cache ? withCache(system) : system], { random: seededRandom(5) });
  return { locator: new SipLocator(core), system };
}

describe('sip:bob@biloxi.example through the system resolver and nsd', () => {
  it('resolves cold in one round trip: six questions leave before the first answer comes back', async () => {
    proxy.events.length = 0;
    const { locator: l, system } = locator();
    const resolution = await l.resolve('sip:bob@biloxi.example');
    await system.close();
    expect(resolution.error).toBeUndefined();
    expect(resolution.rule).toBe('naptr');
    expect(resolution.roundTrips).toBe(1);
    expect(resolution.queries).toBe(6);
    expect(proxy.events.slice(0, 6).sort()).toEqual(
      [
        '> biloxi.example NAPTR',
        '> _sips._tcp.biloxi.example SRV',
        '> _sip._tcp.biloxi.example SRV',
        '> _sip._udp.biloxi.example SRV',
        '> biloxi.example AAAA',
        '> biloxi.example A',
      ].sort(),
    );
    expect(proxy.events).toHaveLength(12);
    expect(proxy.events.slice(6).every((e) => e.startsWith('< '))).toBe(true);
    // nsd's additional section carried every target's address: no A/AAAA question for them.
    expect(proxy.events.filter((e) => /^> (sip1|sip2|backup)\./.test(e))).toEqual([]);
    expect(
      resolution.targets.map((t) => `${t.transport} ${t.address}:${t.port} ${t.priority}/${t.weight}`).sort(),
    ).toEqual(['tls 198.51.100.50:5061 20/0', 'tls 203.0.113.11:5061 10/60', 'tls 203.0.113.12:5061 10/40']);
    expect(resolution.targets[2]!.host).toBe('backup.biloxi.example');
    expect(renderStepThrough(resolution)).toContain('Targets: 3, tls by rule naptr (1 round trip, 6 queries)');
  });

  it('with the core cache, a second resolution sends nothing', async () => {
    const { locator: l, system } = locator(true);
    await l.resolve('sip:bob@biloxi.example');
    proxy.events.length = 0;
    const again = await l.resolve('sip:bob@biloxi.example');
    await system.close();
    expect(proxy.events).toEqual([]);
    expect(again.targets).toHaveLength(3);
  });

  it('a name nsd does not serve gives no targets and says why', async () => {
    const { locator: l, system } = locator();
    const resolution = await l.resolve('sip:bob@atlanta.example', { stepThrough: true });
    await system.close();
    expect(resolution.targets).toEqual([]);
    expect(resolution.error?.code).toBe('SIP_ERR_NO_TARGETS');
    expect(resolution.steps.find((s) => s.kind === 'query')).toMatchObject({
      name: 'atlanta.example',
      type: 'NAPTR',
      rcode: 'REFUSED',
    });
  });
});
