/**
 * Part 2: warm resolution throughput, every answer already cached. dnscore's cache is in the
 * process; node:dns has none (c-ares's cache is off in Node 20: every call reaches the
 * resolver), so its users put a caching resolver on localhost, here the unbound daemon; the
 * `unbound` binding answers from libunbound's cache through libuv's thread pool.
 */
import dns from 'node:dns';
import { compose, systemPlugin, targetLines, unboundPlugin } from '../systems/dnscore.js';
import { nodeResolver, parallelWalk, srvThenA } from '../systems/node-dns.js';
import { sipStackResolve, useResolverForSipStack } from '../systems/sip-stack.js';
import { unboundAddresses, unboundContext, unboundSrvThenA } from '../systems/unbound-binding.js';
import { EXPECTED, WARM_DOMAINS, warmDomain } from '../rig/zones.js';
import { runsFor, type BenchContext, type Section } from './section.js';
import { throughputTable, type ThroughputSystem } from './throughput-table.js';

const uri = (loop: number): string => `sip:bob@${warmDomain(loop)}`;
const owner = (loop: number): string => `_sip._udp.${warmDomain(loop)}`;
const UDP_TARGETS = EXPECTED.srvOnly.filter((line) => line.startsWith('udp '));
const UDP_V4 = { transports: ['udp'] as const, ipv6: false };

function srvAndASystems(ctx: BenchContext): ThroughputSystem[] {
  const { nsd, daemon } = ctx.rig;
  const viaSystem = compose(systemPlugin(nsd.endpoint), true, UDP_V4);
  const viaUnbound = compose(unboundPlugin(nsd.endpoint), true, UDP_V4);
  const unboundNoCoreCache = compose(unboundPlugin(nsd.endpoint), false, UDP_V4);
  const toDaemon = nodeResolver(daemon.endpoint);
  const ub = unboundContext(nsd.endpoint);
  return [
    {
      name: 'dnscore + core cache (system backend)',
      expected: UDP_TARGETS,
      run: async (loop) => targetLines(await viaSystem.locator.resolve(uri(loop))),
      close: () => viaSystem.close(),
    },
    {
      name: 'dnscore + core cache (libunbound backend)',
      expected: UDP_TARGETS,
      run: async (loop) => targetLines(await viaUnbound.locator.resolve(uri(loop))),
      close: () => viaUnbound.close(),
    },
    {
      name: "dnscore over libunbound, no core cache (libunbound's cache)",
      expected: UDP_TARGETS,
      run: async (loop) => targetLines(await unboundNoCoreCache.locator.resolve(uri(loop))),
      close: () => unboundNoCoreCache.close(),
    },
    {
      name: 'node:dns resolveSrv + resolve4 -> unbound daemon',
      expected: UDP_TARGETS,
      run: (loop) => srvThenA(toDaemon, owner(loop), 'udp'),
      close: () => toDaemon.cancel(),
    },
    {
      name: '`unbound` binding, its own cache (SRV, then A)',
      expected: UDP_TARGETS,
      run: (loop) => unboundSrvThenA(ub, owner(loop), 'udp'),
    },
  ];
}

function fullClientSystems(ctx: BenchContext): ThroughputSystem[] {
  const { nsd, daemon } = ctx.rig;
  const dnscore = compose(systemPlugin(nsd.endpoint), true);
  const toDaemon = nodeResolver(daemon.endpoint);
  const forSipStack = new dns.Resolver({ timeout: 2000, tries: 1 });
  forSipStack.setServers([daemon.endpoint]);
  return [
    {
      name: 'dnscore + core cache, default client',
      expected: EXPECTED.srvOnly,
      run: async (loop) => targetLines(await dnscore.locator.resolve(uri(loop))),
      close: () => dnscore.close(),
    },
    {
      name: 'npm `sip` stack resolve() -> unbound daemon',
      expected: EXPECTED.srvOnly,
      run: (loop) => {
        useResolverForSipStack(forSipStack);
        return sipStackResolve(uri(loop));
      },
      close: () => forSipStack.cancel(),
    },
    {
      name: 'node:dns parallel walk -> unbound daemon',
      expected: EXPECTED.srvOnly,
      run: (loop) => parallelWalk(toDaemon, warmDomain(loop)),
      close: () => toDaemon.cancel(),
    },
  ];
}

const hitName = (loop: number): string => `sip1.${warmDomain(loop)}`;

/** One A question answered from a cache: what a DnsCore.resolve() hit costs against the alternatives. */
function cacheHitSystems(ctx: BenchContext): ThroughputSystem[] {
  const { nsd, daemon } = ctx.rig;
  const viaSystem = compose(systemPlugin(nsd.endpoint), true, UDP_V4);
  const toDaemon = nodeResolver(daemon.endpoint);
  const ub = unboundContext(nsd.endpoint);
  return [
    {
      name: 'dnscore `DnsCore.resolve()`, core cache hit',
      expected: ['203.0.113.21'],
      run: async (loop) => (await viaSystem.core.resolve(hitName(loop), 'A')).records.map((r) => r.data),
      close: () => viaSystem.close(),
    },
    {
      name: 'node:dns `resolve4` -> unbound daemon',
      expected: ['203.0.113.21'],
      run: (loop) => toDaemon.resolve4(hitName(loop)),
      close: () => toDaemon.cancel(),
    },
    {
      name: '`unbound` binding, its own cache',
      expected: ['203.0.113.21'],
      run: (loop) => unboundAddresses(ub, hitName(loop)),
    },
  ];
}

export async function warmThroughput(ctx: BenchContext): Promise<Section> {
  const notes: string[] = [];
  const windowMs = ctx.quick ? 250 : 1000;
  const runs = runsFor(ctx, 5, 3);
  const concurrency = WARM_DOMAINS;
  const srvAndA = await throughputTable(
    { caption: `SRV + A: \`sip:bob@sN.chicago.example\` for a UDP-only IPv4 client`, windowMs, runs, concurrency },
    srvAndASystems(ctx),
    notes,
  );
  ctx.log('  warm SRV + A: done');
  const full = await throughputTable(
    {
      caption: `Full RFC 3263 client: \`sip:bob@sN.chicago.example\` over UDP, TCP and TLS, IPv4 and IPv6`,
      windowMs,
      runs,
      concurrency,
    },
    fullClientSystems(ctx),
    notes,
  );
  ctx.log('  warm full client: done');
  const hits = await throughputTable(
    {
      caption: 'One A question answered from a cache: `sip1.sN.chicago.example`',
      windowMs,
      runs,
      concurrency,
      unit: 'answers',
    },
    cacheHitSystems(ctx),
    notes,
  );
  ctx.log('  warm cache hit: done');
  return {
    id: 'warm',
    title: '2. Warm resolution throughput',
    method:
      `SIP target resolutions per second on one core (one Node.js thread; the unbound daemon, nsd and libunbound's ` +
      `threads run on the other core), with every answer cached. A resolution turns \`sip:bob@sN.chicago.example\` ` +
      `into its list of targets; ` +
      `each of the ${WARM_DOMAINS} loops in flight asks its own domain sN (same records), so no system merges ` +
      `identical ` +
      `questions in flight. ` +
      `In the first table the work is what the issue names, "resolveSrv + resolve4": the SRV of _sip._udp, then A of ` +
      `each target (dnscore's locator, restricted to UDP and IPv4, also asks NAPTR and the A of the domain in its ` +
      `first round, all from its cache). In the second, each system does what its default client does. node:dns ` +
      `has no cache of its own in Node 20, so it asks the unbound daemon on loopback (caching, \`num-threads: 1\`) ` +
      `every time. The binding answers from libunbound's cache, but each lookup is a job on libuv's thread pool ` +
      `(UV_THREADPOOL_SIZE=16). The third table is one A question answered from a cache: \`DnsCore.resolve()\` of ` +
      `a name its cache holds (the result an application gets, records and flags), against node:dns asking the ` +
      `daemon and the binding.`,
    tables: [srvAndA, full, hits],
    notes,
  };
}
