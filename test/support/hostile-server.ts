/**
 * A fault-injecting DNS server on loopback (UDP and TCP on one port) for tests of resolvers:
 * each query gets a plan, a list of behaviours played in order: the right answer, silence,
 * an error rcode, a truncated answer, the answer from another port or address, a wrong ID or
 * question, garbage, malformed or oversized packets, delays. It records every query it gets,
 * so tests can check IDs, source ports, flags and EDNS, and wait for queries instead of sleeping.
 * Delays use the global setTimeout, so vitest's fake timers drive them.
 */
import { createSocket, type Socket as UdpSocket } from 'node:dgram';
import { createServer, type Server, type Socket } from 'node:net';
import dnsPacket from 'dns-packet';
import { packetFor, type Behaviour, type HostileZone, type Plan, type ReceivedQuery } from './hostile-packets.js';
import { freePort } from './ports.js';

export { packetFor, type Behaviour, type HostileZone, type Plan, type ReceivedQuery };

export interface HostileServerOptions {
  readonly address?: string;
  readonly port?: number;
  readonly zone?: HostileZone;
  /** What UDP queries get (default ['answer']). */
  readonly udp?: Plan;
  /** What TCP queries get (default ['answer']). */
  readonly tcp?: Plan;
}

export interface HostileServer {
  readonly address: string;
  readonly port: number;
  /** "127.0.0.1:5300" or "[::1]:5300" */
  readonly endpoint: string;
  readonly received: readonly ReceivedQuery[];
  /** Replaces the plans from now on. */
  setPlan(plans: { udp?: Plan; tcp?: Plan }): void;
  /** Resolves once `count` queries (of that transport, when given) have arrived. */
  waitForQueries(count: number, transport?: 'udp' | 'tcp'): Promise<void>;
  close(): Promise<void>;
}

export async function startHostileServer(options: HostileServerOptions = {}): Promise<HostileServer> {
  const address = options.address ?? '127.0.0.1';
  const port = options.port ?? (await freePort(address));
  // A large receive buffer, so a burst of 1,000 queries is not lost before it is read.
  const udp = createSocket({ type: address.includes(':') ? 'udp6' : 'udp4', recvBufferSize: 8 << 20 });
  const otherPort = createSocket(address.includes(':') ? 'udp6' : 'udp4');
  const otherAddress = address.includes(':') ? undefined : createSocket('udp4');
  const tcp = createServer();
  await Promise.all([
    bindUdp(udp, port, address),
    bindUdp(otherPort, 0, address),
    otherAddress ? bindUdp(otherAddress, 0, '127.0.0.2') : Promise.resolve(),
    new Promise<void>((resolve, reject) => {
      tcp.once('error', reject);
      tcp.listen(port, address, () => resolve());
    }),
  ]);
  return new Hostile(address, port, options, udp, otherPort, otherAddress, tcp);
}

class Hostile implements HostileServer {
  readonly endpoint: string;
  readonly received: ReceivedQuery[] = [];
  #udpPlan: Plan;
  #tcpPlan: Plan;
  readonly #timers = new Set<ReturnType<typeof setTimeout>>();
  readonly #connections = new Set<Socket>();
  readonly #waiters: { count: number; transport?: 'udp' | 'tcp'; resolve: () => void }[] = [];
  readonly #seen = new Map<string, number>();

  constructor(
    readonly address: string,
    readonly port: number,
    private readonly options: HostileServerOptions,
    private readonly udp: UdpSocket,
    private readonly otherPort: UdpSocket,
    private readonly otherAddress: UdpSocket | undefined,
    private readonly tcp: Server,
  ) {
    this.endpoint = address.includes(':') ? `[${address}]:${port}` : `${address}:${port}`;
    this.#udpPlan = options.udp ?? ['answer'];
    this.#tcpPlan = options.tcp ?? ['answer'];
    udp.on('message', (packet, from) => {
      const query = this.#record(packet, 'udp', from);
      if (!query) return;
      for (const behaviour of planOf(this.#udpPlan, query)) this.#playUdp(behaviour, query, from);
    });
    tcp.on('connection', (socket) => this.#serveTcp(socket));
  }

  setPlan(plans: { udp?: Plan; tcp?: Plan }): void {
    if (plans.udp) this.#udpPlan = plans.udp;
    if (plans.tcp) this.#tcpPlan = plans.tcp;
  }

  waitForQueries(count: number, transport?: 'udp' | 'tcp'): Promise<void> {
    return new Promise((resolve) => {
      this.#waiters.push({ count, ...(transport ? { transport } : {}), resolve });
      this.#wake();
    });
  }

  async close(): Promise<void> {
    for (const timer of this.#timers) clearTimeout(timer);
    for (const socket of this.#connections) socket.destroy();
    await Promise.all([
      new Promise<void>((resolve) => this.udp.close(() => resolve())),
      new Promise<void>((resolve) => this.otherPort.close(() => resolve())),
      this.otherAddress ? new Promise<void>((resolve) => this.otherAddress!.close(() => resolve())) : undefined,
      new Promise<void>((resolve) => this.tcp.close(() => resolve())),
    ]);
  }

  #record(
    packet: Buffer,
    transport: 'udp' | 'tcp',
    from: { address: string; port: number },
  ): ReceivedQuery | undefined {
    let decoded: dnsPacket.Packet;
    try {
      decoded = dnsPacket.decode(packet);
    } catch {
      return undefined;
    }
    const question = decoded.questions?.[0];
    if (!question) return undefined;
    const opt = decoded.additionals?.find((r) => r.type === 'OPT') as dnsPacket.OptAnswer | undefined;
    const flags = decoded.flags ?? 0;
    const key = `${question.name.toLowerCase()}/${question.type}`;
    const nth = (this.#seen.get(key) ?? 0) + 1;
    this.#seen.set(key, nth);
    const query: ReceivedQuery = {
      transport,
      id: decoded.id ?? 0,
      name: question.name,
      type: question.type,
      class: question.class ?? 'IN',
      rd: (flags & dnsPacket.RECURSION_DESIRED) !== 0,
      ad: (flags & dnsPacket.AUTHENTIC_DATA) !== 0,
      udpPayloadSize: opt?.udpPayloadSize,
      from: { address: from.address, port: from.port },
      packet,
      nth,
    };
    this.received.push(query);
    this.#wake();
    return query;
  }

  #wake(): void {
    for (let i = this.#waiters.length - 1; i >= 0; i--) {
      const waiter = this.#waiters[i]!;
      const count = this.received.filter((q) => !waiter.transport || q.transport === waiter.transport).length;
      if (count >= waiter.count) {
        this.#waiters.splice(i, 1);
        waiter.resolve();
      }
    }
  }

  #later(delayMs: number, run: () => void): void {
    const timer = setTimeout(() => {
      this.#timers.delete(timer);
      run();
    }, delayMs);
    this.#timers.add(timer);
  }

  #playUdp(behaviour: Behaviour, query: ReceivedQuery, to: { address: string; port: number }): void {
    if (typeof behaviour === 'object' && 'delayMs' in behaviour) {
      this.#later(behaviour.delayMs, () => this.#playUdp(behaviour.play, query, to));
      return;
    }
    if (behaviour === 'drop' || behaviour === 'close') return;
    let socket = this.udp;
    if (behaviour === 'other-port') socket = this.otherPort;
    if (behaviour === 'other-address') {
      if (!this.otherAddress) throw new Error('other-address needs an IPv4 server');
      socket = this.otherAddress;
    }
    socket.send(packetFor(behaviour, query, this.options.zone), to.port, to.address);
  }

  #serveTcp(socket: Socket): void {
    this.#connections.add(socket);
    socket.on('close', () => this.#connections.delete(socket));
    socket.on('error', () => {});
    let pending = Buffer.alloc(0);
    socket.on('data', (chunk: Buffer) => {
      pending = Buffer.concat([pending, chunk]);
      while (pending.length >= 2 && pending.length >= 2 + pending.readUInt16BE(0)) {
        const packet = pending.subarray(2, 2 + pending.readUInt16BE(0));
        pending = pending.subarray(2 + packet.length);
        const query = this.#record(Buffer.from(packet), 'tcp', {
          address: socket.remoteAddress ?? '',
          port: socket.remotePort ?? 0,
        });
        if (!query) continue;
        for (const behaviour of planOf(this.#tcpPlan, query)) this.#playTcp(behaviour, query, socket);
      }
    });
  }

  #playTcp(behaviour: Behaviour, query: ReceivedQuery, socket: Socket): void {
    if (typeof behaviour === 'object' && 'delayMs' in behaviour) {
      this.#later(behaviour.delayMs, () => this.#playTcp(behaviour.play, query, socket));
      return;
    }
    if (socket.destroyed || behaviour === 'drop') return;
    if (behaviour === 'close') {
      socket.destroy();
      return;
    }
    const packet = packetFor(behaviour, query, this.options.zone);
    const frame = Buffer.alloc(2 + packet.length);
    frame.writeUInt16BE(packet.length, 0);
    frame.set(packet, 2);
    socket.write(frame);
  }
}

function planOf(plan: Plan, query: ReceivedQuery): readonly Behaviour[] {
  return typeof plan === 'function' ? plan(query) : plan;
}

function bindUdp(socket: UdpSocket, port: number, address: string): Promise<void> {
  return new Promise((resolve, reject) => {
    socket.once('error', reject);
    socket.bind(port, address, () => resolve());
  });
}
