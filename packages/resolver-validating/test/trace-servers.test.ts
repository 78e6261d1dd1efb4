/**
 * The servers the validating backend says it asked, in the `dnscore:query` trace, for a
 * question it had not validated yet: each try of its transport (server, transport, outcome,
 * rcode) for the question, then for each link of a CNAME chain the upstream did not follow;
 * the tries of a question that got no answer (a port nobody serves) attached to its error. nsd serves zones signed
 * here by ldns, behind a proxy that can truncate; nothing is recorded while nobody traces.
 */
import * as dnsPacket from 'dns-packet';
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { DnsCore, TimeoutError, makeQuery } from '@dnscore/core';
import type { QueryAttempt } from '@dnscore/core/diagnostics';
import { serversOf } from '@dnscore/core/plugin';
import { startDnsProxy, type DnsProxy } from '../../../test/support/dns-proxy.js';
import { signZone, type SignedZone } from '../../../test/support/dnssec.js';
import { startNsd, type NsdServer } from '../../../test/support/nsd.js';
import { freePort } from '../../../test/support/ports.js';
import { recordQueryTraces } from '../../../test/support/query-trace.js';
import { ValidatingResolver } from '../src/index.js';

const TRACE_ZONE = `$ORIGIN trace.example.
$TTL 3600
@ IN SOA ns1.trace.example. hostmaster.trace.example. 1 7200 900 1209600 300
  IN NS ns1.trace.example.
ns1 IN A 127.0.0.1
www IN A 192.0.2.1
alias IN CNAME www.other.example.
`;
const OTHER_ZONE = `$ORIGIN other.example.
$TTL 3600
@ IN SOA ns1.trace.example. hostmaster.other.example. 1 7200 900 1209600 300
  IN NS ns1.trace.example.
www IN A 192.0.2.2
`;

const A = 1;

let trace: SignedZone;
let other: SignedZone;
let nsd: NsdServer;
let proxy: DnsProxy;
const open: { close(): unknown }[] = [];

beforeAll(async () => {
  [trace, other] = await Promise.all([signZone('trace.example', TRACE_ZONE), signZone('other.example', OTHER_ZONE)]);
  nsd = await startNsd([
    { name: trace.name, text: trace.text },
    { name: other.name, text: other.text },
  ]);
  proxy = await startDnsProxy(nsd);
}, 60_000);
afterAll(async () => {
  for (const item of open) await item.close();
  await proxy?.close();
  await nsd?.stop();
});
beforeEach(() => {
  proxy.rewrite = (_q, answer) => answer;
});

function validating(nameservers: readonly string[], probe = true, timeoutMs = 2000): ValidatingResolver {
  const resolver = new ValidatingResolver(
    { nameservers, resolvConf: '/nonexistent/resolv.conf' },
    { trustAnchors: [trace.ds, other.ds], timeoutMs, attempts: 1, probe },
  );
  open.push(resolver);
  return resolver;
}

function core(resolver: ValidatingResolver): DnsCore {
  const dns = new DnsCore([resolver]);
  open.push(dns);
  return dns;
}

const servers = (attempts: readonly QueryAttempt[]) => attempts.map((a) => [a.backend, a.servers]);

describe('the servers in the query trace of a validated miss', () => {
  it('lists the server that answered the question, with transport and rcode', async () => {
    const dns = core(validating([proxy.endpoint]));
    const ended = recordQueryTraces();
    const result = await dns.resolve('www.trace.example', 'A');
    expect(result.secure).toBe(true);
    await dns.resolve('nx.trace.example', 'A');
    expect(ended.map((ctx) => servers(ctx.attempts))).toEqual([
      [['validating', [{ server: proxy.endpoint, transport: 'udp', outcome: 'answer', rcode: 0 }]]],
      [['validating', [{ server: proxy.endpoint, transport: 'udp', outcome: 'answer', rcode: 3 }]]],
    ]);
  });

  it('lists a truncated UDP try and the TCP try after it', async () => {
    proxy.rewrite = (query, answer) => {
      if (query.transport !== 'udp' || query.name !== 'www.trace.example') return answer;
      const packet = dnsPacket.decode(Buffer.from(answer));
      return dnsPacket.encode({ ...packet, flags: (packet.flags ?? 0) | dnsPacket.TRUNCATED_RESPONSE, answers: [] });
    };
    const dns = core(validating([proxy.endpoint]));
    const ended = recordQueryTraces();
    expect((await dns.resolve('www.trace.example', 'A')).secure).toBe(true);
    expect(servers(ended[0]!.attempts)).toEqual([
      [
        'validating',
        [
          { server: proxy.endpoint, transport: 'udp', outcome: 'truncated' },
          { server: proxy.endpoint, transport: 'tcp', outcome: 'answer', rcode: 0 },
        ],
      ],
    ]);
  });

  it('lists the question, then the end of a CNAME chain the upstream did not follow', async () => {
    // nsd serves both zones and follows the CNAME: the proxy cuts the answer after it (names in 0x20 case).
    proxy.rewrite = (query, answer) => {
      if (query.name !== 'alias.trace.example' || query.type !== A) return answer;
      const packet = dnsPacket.decode(Buffer.from(answer));
      return dnsPacket.encode({
        ...packet,
        answers: packet.answers?.filter((r) => r.name.toLowerCase() === query.name),
      });
    };
    const dns = core(validating([proxy.endpoint]));
    const ended = recordQueryTraces();
    const result = await dns.resolve('alias.trace.example', 'A');
    // The proxy writes the CNAME target out in full from nsd's pointer into our random-case question: the
    // transport restores that suffix too, so the names are as asked.
    const records = result.records.map((r) => `${r.name} ${r.type} ${String(r.data)}`);
    expect([result.secure, records]).toEqual([true, ['www.other.example A 192.0.2.2']]);
    const answered = { server: proxy.endpoint, transport: 'udp', outcome: 'answer', rcode: 0 };
    expect(servers(ended[0]!.attempts)).toEqual([['validating', [answered, answered]]]);
  });

  it('attaches the tries of a question that got no answer to its error', async () => {
    const dead = `127.0.0.1:${await freePort()}`;
    const dns = core(validating([dead], false, 300));
    const ended = recordQueryTraces();
    await expect(dns.resolve('www.trace.example', 'A')).rejects.toBeInstanceOf(TimeoutError);
    const [attempt] = ended[0]!.attempts;
    expect(attempt!.servers).toEqual([{ server: dead, transport: 'udp', outcome: 'timeout' }]);
    expect(serversOf(attempt!.error)).toEqual(attempt!.servers);
  });

  it('attaches the tries of the question and of its failed follow-up to the error of a chain cut short', async () => {
    proxy.rewrite = (query, answer) => {
      if (query.type !== A) return answer;
      if (query.name === 'www.other.example') return answer.slice(0, 5); // malformed: refused, then a timeout
      const packet = dnsPacket.decode(Buffer.from(answer));
      return dnsPacket.encode({
        ...packet,
        answers: packet.answers?.filter((r) => r.name.toLowerCase() === query.name),
      });
    };
    const dns = core(validating([proxy.endpoint], true, 300));
    const ended = recordQueryTraces();
    await expect(dns.resolve('alias.trace.example', 'A')).rejects.toBeInstanceOf(TimeoutError);
    const [attempt] = ended[0]!.attempts;
    const expected = [
      { server: proxy.endpoint, transport: 'udp', outcome: 'answer', rcode: 0 },
      { server: proxy.endpoint, transport: 'udp', outcome: 'timeout', error: '1 message(s) refused' },
    ];
    expect(attempt!.servers).toEqual(expected);
    expect(serversOf(attempt!.error)).toEqual(expected);
  });

  it('records nothing while nobody traces', async () => {
    const answer = await validating([proxy.endpoint]).resolve(
      makeQuery('www.trace.example', 'A'),
      new AbortController().signal,
    );
    expect([answer.rcode, answer.secure, 'servers' in answer]).toEqual([0, true, false]);
  });
});
