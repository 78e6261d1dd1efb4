/**
 * The npm `unbound` binding used directly, as an application without dnscore would: one
 * libunbound context stubbed to the bench's nsd, SRV then A of each target, reading the RDATA
 * the binding hands back.
 */
import { createRequire } from 'node:module';
import type UnboundClass from 'unbound';
import { BENCH_ZONES } from '../rig/zones.js';

const require = createRequire(import.meta.url);
const TYPE_A = 1;
const TYPE_SRV = 33;

export type UnboundContext = InstanceType<typeof UnboundClass>;

export function unboundContext(endpoint: string, anchors: readonly string[] = []): UnboundContext {
  const Unbound = require('unbound') as typeof UnboundClass;
  const [address, port] = endpoint.split(':');
  const ub = new Unbound();
  ub.setOption('do-not-query-localhost', 'no');
  ub.setOption('qname-minimisation', 'no');
  ub.setOption('local-zone', '. refuse');
  for (const zone of BENCH_ZONES) {
    ub.setOption('local-zone', `${zone}. transparent`);
    ub.setStub(`${zone}.`, `${address}@${port}`);
  }
  for (const anchor of anchors) ub.addTrustAnchor(anchor);
  return ub;
}

/** An uncompressed wire name (libunbound hands RDATA names uncompressed) as dotted text. */
function wireName(data: Buffer, offset: number): string {
  const labels: string[] = [];
  for (let i = offset; i < data.length && data[i]! > 0; i += data[i]! + 1)
    labels.push(data.toString('latin1', i + 1, i + 1 + data[i]!));
  return labels.join('.');
}

/** The A records of `name`, dotted. */
export async function unboundAddresses(ub: UnboundContext, name: string): Promise<string[]> {
  return (await ub.resolve(name, TYPE_A)).data.map((a) => a.join('.'));
}

export async function unboundSrvThenA(ub: UnboundContext, owner: string, transport: string): Promise<string[]> {
  const srv = await ub.resolve(owner, TYPE_SRV);
  const records = srv.data.map((rdata) => ({ port: rdata.readUInt16BE(4), target: wireName(rdata, 6) }));
  const addresses = await Promise.all(records.map((r) => ub.resolve(r.target, TYPE_A)));
  return records.flatMap((r, i) => addresses[i]!.data.map((a) => `${transport} ${a.join('.')} ${r.port}`));
}
