/**
 * A DNAME whose target arrives compressed (RFC 6672 section 2.5: senders must not, RFC 3597
 * section 4: receivers decompress it): the signature covers the uncompressed, lowercased target
 * (RFC 4034 section 6.2), so the answer is as secure as when it came uncompressed, through this
 * backend and through libunbound, behind a proxy that compresses the target; and the DNAME
 * record itself reads as its target, never as RDATA holding a pointer into a packet, through
 * these and the non-validating system backend.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { DnsCore, formatRdata, type DnsResult } from '@dnscore/core';
import { parseMessage } from '@dnscore/core/plugin';
import { SystemResolver } from '@dnscore/resolver-system';
import { UnboundResolver, unboundAvailability } from '@dnscore/resolver-unbound';
import { startDnsProxy, type DnsProxy } from '../../../test/support/dns-proxy.js';
import { compressDnameTarget } from '../../../test/support/dns-tamper.js';
import { ValidatingResolver } from '../src/index.js';
import { startTree, type Tree } from './support/tree.js';

const DNAME = 39;

let tree: Tree;
let proxy: DnsProxy;
const open: DnsCore[] = [];
/** DNAME RDATA lengths the proxy sent. */
const sent: number[] = [];

beforeAll(async () => {
  tree = await startTree();
  proxy = await startDnsProxy(tree.nsd);
  proxy.rewrite = (_query, answer) => {
    if (!parseMessage(answer).answers.some((r) => r.type === DNAME)) return answer;
    const compressed = compressDnameTarget(answer);
    sent.push(parseMessage(compressed).answers.find((r) => r.type === DNAME)!.rdlength);
    return compressed;
  };
}, 60_000);

afterAll(async () => {
  for (const core of open) await core.close();
  await proxy?.close();
  await tree?.stop();
});

function view(result: DnsResult): unknown {
  return {
    rcode: result.rcode,
    status: result.bogus ? 'bogus' : result.secure ? 'secure' : 'insecure',
    records: result.records.map((r) => `${r.name} ${r.type} ${String(r.data)}`),
  };
}

const EXPECTED = { rcode: 0, status: 'secure', records: ['www.other.example A 192.0.2.70'] };
const DNAME_RECORD = ['moved.secure.example DNAME other.example'];

/** The DNAME asked for itself: its record, in presentation format too. */
async function dnameOf(core: DnsCore, status: string): Promise<void> {
  sent.length = 0;
  const result = await core.resolve('moved.secure.example', 'DNAME');
  expect(view(result)).toEqual({ rcode: 0, status, records: DNAME_RECORD });
  expect(formatRdata(result.records[0]!)).toBe('other.example.');
  expect(sent).toEqual([8]);
}

describe('a DNAME with a compressed target', () => {
  it('is secure through the validating backend', async () => {
    const core = new DnsCore([
      new ValidatingResolver({ nameservers: [proxy.endpoint] }, { trustAnchors: [tree.anchor] }),
    ]);
    open.push(core);
    sent.length = 0;
    expect(view(await core.resolve('www.moved.secure.example', 'A'))).toEqual(EXPECTED);
    // "other" and a pointer to "example" in the question: 8 octets, where uncompressed is 15
    expect(sent).toContain(8);
    await dnameOf(core, 'secure');
  });

  it.runIf(unboundAvailability().available)('is secure through libunbound, which says the same', async () => {
    const core = new DnsCore([
      new UnboundResolver({
        nameservers: [proxy.endpoint],
        resolvConf: false,
        hosts: false,
        qnameMinimisation: false,
        trustAnchors: [tree.anchor],
      }),
    ]);
    open.push(core);
    sent.length = 0;
    expect(view(await core.resolve('www.moved.secure.example', 'A'))).toEqual(EXPECTED);
    expect(sent).toContain(8);
    await dnameOf(core, 'secure');
  });

  it('reads as its target through the system backend (no validation)', async () => {
    const core = new DnsCore([new SystemResolver({ nameservers: [proxy.endpoint], resolvConf: '/dev/null' })]);
    open.push(core);
    await dnameOf(core, 'insecure');
  });
});
