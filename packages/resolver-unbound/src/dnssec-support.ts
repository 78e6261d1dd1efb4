/**
 * Which DNSSEC algorithms and DS digest types the loaded libunbound can validate, found out by
 * trying, not from a list: libunbound is built against a crypto library (Debian's against
 * nettle, without Ed448) and a zone signed only with an algorithm it lacks is insecure to it
 * (RFC 4035 section 5.2), where another validator says secure. For each algorithm a key made
 * here signs its own DNSKEY RRset, served from a loopback UDP socket of this process, with the
 * key as trust anchor: libunbound says secure exactly when it can check that signature. The
 * same for each digest type, with a DS anchor of that type.
 */
import { createSocket, type Socket } from 'node:dgram';
import type { UnboundAddon } from './binding.js';
import { reapplySettingsInForce } from './context.js';
import { PROBED_ALGORITHMS, PROBED_DIGESTS, dnskeyText, dsText, probeKey, type ProbeKey } from './probe-keys.js';
import { applySettingsInForce } from './process-wide.js';
import { UnboundContext } from './unbound-context.js';

export interface DnssecCapability {
  readonly number: number;
  /** The IANA mnemonic: "ECDSAP256SHA256", "SHA-256". */
  readonly name: string;
  /** This libunbound validated a signature (or digest) of this kind. */
  readonly validates: boolean;
}

export interface DnssecSupport {
  readonly algorithms: readonly DnssecCapability[];
  readonly digests: readonly DnssecCapability[];
}

const ZONE = 'dnscore-probe.';
const DNSKEY = 48;

/** Probes a fresh libunbound context; about 0.1 s (RSA key generation most of it). */
export async function probeDnssecSupport(addon: UnboundAddon): Promise<DnssecSupport> {
  const server = await ProbeServer.start();
  try {
    const algorithmKeys = PROBED_ALGORITHMS.map((a) => ({ ...a, key: tryKey(`a${a.number}.${ZONE}`, a.number) }));
    for (const { key } of algorithmKeys) if (key) server.keys.set(key.owner, key);
    const secure = await validated(
      addon,
      server.port,
      algorithmKeys.flatMap(({ key }) => (key ? [{ owner: key.owner, anchor: dnskeyText(key) }] : [])),
    );
    const algorithms = algorithmKeys.map(({ number, name, key }) => ({
      number,
      name,
      validates: key !== undefined && secure.has(key.owner),
    }));
    // Digests are checked over a key of an algorithm that validates, so only the digest can fail.
    const usable = algorithms.find((a) => a.validates);
    const digestKeys = usable
      ? PROBED_DIGESTS.map((d) => ({ digest: d, key: probeKey(`d${d.number}.${ZONE}`, usable.number) }))
      : [];
    for (const { key } of digestKeys) server.keys.set(key.owner, key);
    const digestSecure = await validated(
      addon,
      server.port,
      digestKeys.map(({ digest, key }) => ({ owner: key.owner, anchor: dsText(key, digest) })),
    );
    const digests = PROBED_DIGESTS.map((d) => ({
      number: d.number,
      name: d.name,
      validates: digestSecure.has(`d${d.number}.${ZONE}`),
    }));
    return { algorithms, digests };
  } finally {
    // The probe's contexts logged to /dev/null, and the log is the process's (validated()).
    reapplySettingsInForce(addon);
    await server.close();
  }
}

/** The owners whose DNSKEY RRset libunbound validated as secure from its anchor. */
async function validated(
  addon: UnboundAddon,
  port: number,
  probes: readonly { owner: string; anchor: string }[],
): Promise<Set<string>> {
  if (probes.length === 0) return new Set();
  const context = new UnboundContext(addon);
  try {
    // Finalized with libunbound's defaults, it would reset the live resolvers' process-wide settings.
    applySettingsInForce(addon, context);
    // Anchors of algorithms libunbound lacks are the point here: its warnings about them (on
    // stderr, after each insecure answer of `dnscore resolve`) are not news. The log is the
    // process's, so the settings in force are applied again once the probe is done.
    context.setOption('logfile', '/dev/null');
    context.setOption('use-syslog', 'no');
    context.setOption('do-not-query-localhost', 'no');
    context.setOption('qname-minimisation', 'no');
    context.setStub(ZONE, `127.0.0.1@${port}`, false);
    for (const { anchor } of probes) context.addTrustAnchor(anchor);
    const results = await Promise.all(probes.map((p) => context.resolve(p.owner, DNSKEY, 1).catch(() => undefined)));
    return new Set(probes.filter((_, i) => results[i]?.secure === true).map((p) => p.owner));
  } finally {
    // Its threads joined now, not when the collector finds it.
    context.close();
  }
}

function tryKey(owner: string, algorithm: number): ProbeKey | undefined {
  try {
    return probeKey(owner, algorithm);
  } catch {
    // node:crypto cannot make this key here (an OpenSSL without it): not probed, not claimed.
    return undefined;
  }
}

/** Answers DNSKEY queries for the probe keys (with their RRSIG and an OPT record); anything else is empty. */
class ProbeServer {
  readonly keys = new Map<string, ProbeKey>();

  private constructor(
    private readonly socket: Socket,
    readonly port: number,
  ) {
    socket.on('message', (query, remote) => {
      const reply = this.#answer(query);
      if (reply) socket.send(reply, remote.port, remote.address);
    });
  }

  static async start(): Promise<ProbeServer> {
    const socket = createSocket('udp4');
    await new Promise<void>((resolve, reject) => {
      socket.once('error', reject);
      socket.bind(0, '127.0.0.1', () => resolve());
    });
    return new ProbeServer(socket, socket.address().port);
  }

  close(): Promise<void> {
    return new Promise((resolve) => this.socket.close(() => resolve()));
  }

  #answer(query: Buffer): Buffer | undefined {
    if (query.length < 17) return undefined;
    let end = 12;
    const labels: string[] = [];
    while (end < query.length && query[end]! !== 0) {
      const length = query[end]!;
      if (length > 63 || end + 1 + length > query.length) return undefined;
      labels.push(
        query
          .subarray(end + 1, end + 1 + length)
          .toString('latin1')
          .toLowerCase(),
      );
      end += 1 + length;
    }
    if (end + 5 > query.length) return undefined;
    const question = query.subarray(12, end + 5);
    const type = query.readUInt16BE(end + 1);
    const key = type === DNSKEY ? this.keys.get(`${labels.join('.')}.`) : undefined;
    const answers = key
      ? [record(DNSKEY, key.dnskey), record(46, key.rrsig)] // DNSKEY and its RRSIG
      : [];
    const header = Buffer.alloc(12);
    header.writeUInt16BE(query.readUInt16BE(0), 0);
    header.writeUInt16BE(0x8400 | (query.readUInt16BE(2) & 0x0100), 2); // QR, AA, RD copied
    header.writeUInt16BE(1, 4);
    header.writeUInt16BE(answers.length, 6);
    header.writeUInt16BE(1, 10);
    // OPT (RFC 6891): 1232-octet payload, DO set, so the validator sees an EDNS-capable server.
    const opt = Buffer.from([0, 0, 41, 0x04, 0xd0, 0, 0, 0x80, 0, 0, 0]);
    return Buffer.concat([header, question, ...answers, opt]);
  }
}

/** One answer RR owned by the question name (compression pointer 0xC00C), TTL 3600. */
function record(type: number, rdata: Uint8Array): Buffer {
  const fixed = Buffer.alloc(12);
  fixed.writeUInt16BE(0xc00c, 0);
  fixed.writeUInt16BE(type, 2);
  fixed.writeUInt16BE(1, 4);
  fixed.writeUInt32BE(3600, 6);
  fixed.writeUInt16BE(rdata.length, 10);
  return Buffer.concat([fixed, rdata]);
}
