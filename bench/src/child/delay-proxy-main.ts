/**
 * A delaying DNS proxy, run in a process of its own so that the code being measured never
 * delays it: each query (UDP, or TCP with its two-byte length) is forwarded to the upstream
 * server at once and its answer handed back `delay` ms after the query arrived, as a server
 * `delay` ms away would answer. UDP goes upstream over one socket, each query under an ID of
 * the proxy's (put back in the answer), and both UDP sockets have large receive buffers: a
 * burst of 1,000 queries at once is relayed in a few milliseconds instead of overflowing the
 * front socket while a socket is made per query. The proxy is cheap per datagram, as every
 * system's burst shares the machine's cores with it: the upstream socket is connected (no
 * address per send), addresses are IP literals handed through without a lookup, and answers
 * wait in one queue under one timer instead of a timer each. Controlled over the fork IPC channel:
 *   { type: 'stats' } -> { type: 'stats', udp, tcp }    queries seen since the last reset
 *   { type: 'reset' } -> { type: 'reset' }
 *   { type: 'delay', ms } -> { type: 'delay', ms }
 *   { type: 'cpu' } -> { type: 'cpu', user, system }     CPU spent (process.cpuUsage, us), the C path's included
 * Given the path of the C UDP path (bench/native/delay-proxy-udp.c), UDP is relayed there instead, on
 * the same port number as TCP: the Node event loop spent 31-45 ms of CPU per burst of 1,000 queries,
 * taken from the system under test on a 2-core machine where a real network delay costs nothing.
 * The ready message says which: { type: 'ready', port, udp: 'native' | 'node', pids }.
 * Usage: node delay-proxy-main.js UPSTREAM_ADDRESS UPSTREAM_PORT DELAY_MS [UDP_BINARY]
 */
import { spawn, type ChildProcessByStdio } from 'node:child_process';
import type { Readable, Writable } from 'node:stream';
import { createSocket, type RemoteInfo } from 'node:dgram';
import { createConnection, createServer, type AddressInfo, type Socket } from 'node:net';
import { createInterface } from 'node:readline';

const [upstreamAddress = '127.0.0.1', upstreamPortText = '53', delayText = '0', udpBinary = ''] = process.argv.slice(2);
const upstreamPort = Number(upstreamPortText);
let delay = Number(delayText);
let udpQueries = 0;
let tcpQueries = 0;

/** Large enough for a burst of thousands of queries (the kernel caps it at net.core.rmem_max). */
const BUFFER_BYTES = 8 * 1024 * 1024;
/** An answer that never comes frees its ID after this long. */
const FORGET_MS = 10_000;

/** Every address the proxy sends to is an IP literal: handed back at once (dgram's default defers a dns.lookup). */
const literal = (
  address: string,
  _options: unknown,
  callback: (error: null, address: string, family: number) => void,
) => callback(null, address, 4);
const udp = (): ReturnType<typeof createSocket> =>
  createSocket({
    type: 'udp4',
    recvBufferSize: BUFFER_BYTES,
    sendBufferSize: BUFFER_BYTES,
    lookup: literal as never,
  });
let front: ReturnType<typeof createSocket> | undefined;

interface Waiting {
  readonly id: number;
  readonly client: RemoteInfo;
  readonly arrived: number;
}

/** Queries relayed upstream and not answered yet, by the proxy's ID. */
const waiting = new Map<number, Waiting>();
let lastId = 0;
const upstream = udp();
upstream.bind(0, '127.0.0.1', () => upstream.connect(upstreamPort, upstreamAddress));
upstream.on('message', (answer: Buffer) => {
  if (answer.length < 12) return;
  const query = waiting.get(answer.readUInt16BE(0));
  if (!query) return;
  waiting.delete(answer.readUInt16BE(0));
  answer.writeUInt16BE(query.id, 0);
  const { port, address } = query.client;
  later(query.arrived, () => front?.send(answer, port, address));
});
setInterval(() => {
  const old = performance.now() - FORGET_MS;
  for (const [id, query] of waiting) if (query.arrived < old) waiting.delete(id);
}, 1000).unref();

function onQuery(query: Buffer, client: RemoteInfo): void {
  udpQueries++;
  if (query.length < 12 || waiting.size >= 0xffff) return;
  const arrived = performance.now();
  do lastId = (lastId + 1) & 0xffff;
  while (waiting.has(lastId));
  waiting.set(lastId, { id: query.readUInt16BE(0), client, arrived });
  const relayed = Buffer.from(query);
  relayed.writeUInt16BE(lastId, 0);
  upstream.send(relayed);
}

/** TCP: each framed query is relayed over its own upstream connection and answered in order of completion. */
const tcp = createServer((client: Socket) => {
  let pending = Buffer.alloc(0);
  client.on('error', () => client.destroy());
  client.on('data', (chunk: Buffer) => {
    pending = Buffer.concat([pending, chunk]);
    while (pending.length >= 2 && pending.length >= 2 + pending.readUInt16BE(0)) {
      const framed = pending.subarray(0, 2 + pending.readUInt16BE(0));
      pending = pending.subarray(framed.length);
      tcpQueries++;
      relayTcp(Buffer.from(framed), client);
    }
  });
});

function relayTcp(framed: Buffer, client: Socket): void {
  const arrived = performance.now();
  const upstream = createConnection(upstreamPort, upstreamAddress);
  let answer = Buffer.alloc(0);
  upstream.on('error', () => upstream.destroy());
  upstream.on('connect', () => upstream.write(framed));
  upstream.on('data', (chunk: Buffer) => {
    answer = Buffer.concat([answer, chunk]);
    if (answer.length >= 2 && answer.length >= 2 + answer.readUInt16BE(0)) {
      const reply = answer;
      upstream.destroy();
      later(arrived, () => {
        if (!client.destroyed) client.write(reply);
      });
    }
  });
}

/** Actions waiting for their moment, in the order they were queued, and the one timer for the first. */
const due: { at: number; action: () => void }[] = [];
let head = 0;
let timer: NodeJS.Timeout | undefined;

/**
 * Runs `action` `delay` ms after `arrived` (at once if that moment has passed). Never earlier:
 * an action queued behind a later one waits for it (answers come back from nsd in the order
 * asked, within microseconds, so only a lowered delay makes one wait longer than its own).
 */
function later(arrived: number, action: () => void): void {
  const at = arrived + delay;
  if (head === due.length && at <= performance.now()) {
    action();
    return;
  }
  due.push({ at, action });
  if (!timer) arm();
}

function arm(): void {
  timer = setTimeout(flush, Math.max(0, due[head]!.at - performance.now()));
}

function flush(): void {
  timer = undefined;
  const now = performance.now();
  while (head < due.length && due[head]!.at <= now) due[head++]!.action();
  if (head === due.length) {
    due.length = 0;
    head = 0;
  } else {
    arm();
  }
}

/** The C UDP path when it runs, and its answers awaited in the order asked (one line each). */
let native: ChildProcessByStdio<Writable, Readable, null> | undefined;
const nativeReplies: ((line: string) => void)[] = [];

function askNative(command: string): Promise<string> {
  return new Promise((resolve) => {
    nativeReplies.push(resolve);
    native!.stdin.write(`${command}\n`);
  });
}

process.on('message', async (message: { type: string; ms?: number }) => {
  if (message.type === 'stats') {
    const udp = native ? Number((await askNative('stats')).split(' ')[1]) : udpQueries;
    process.send?.({ type: 'stats', udp, tcp: tcpQueries });
  } else if (message.type === 'reset') {
    if (native) await askNative('reset');
    udpQueries = 0;
    tcpQueries = 0;
    process.send?.({ type: 'reset' });
  } else if (message.type === 'cpu') {
    const own = process.cpuUsage();
    if (native) {
      const [, user, system] = (await askNative('cpu')).split(' ').map(Number);
      own.user += user!;
      own.system += system!;
    }
    process.send?.({ type: 'cpu', ...own });
  } else if (message.type === 'delay' && typeof message.ms === 'number') {
    if (native) await askNative(`delay ${message.ms}`);
    delay = message.ms;
    process.send?.({ type: 'delay', ms: delay });
  }
});
process.on('disconnect', () => stop());
process.on('SIGTERM', () => stop());

/** Ends the C path first (by its PID), then this process. */
function stop(): void {
  const child = native;
  native = undefined;
  if (!child || child.exitCode !== null || child.signalCode !== null) process.exit(0);
  child.once('exit', () => process.exit(0));
  child.kill('SIGTERM');
}

function fail(message: string): never {
  process.send?.({ type: 'error', message });
  process.exit(1);
}

/** Binds UDP and TCP on one port the OS picks; another try when TCP finds that port taken. */
function listen(attempt: number): void {
  front = udp();
  front.on('message', onQuery);
  front.bind(0, '127.0.0.1', () => {
    const { port } = front!.address();
    tcp.once('error', (error) => {
      if (attempt >= 20) fail(String(error));
      front!.close(() => listen(attempt + 1));
    });
    tcp.listen(port, '127.0.0.1', () => process.send?.({ type: 'ready', port, udp: 'node', pids: [process.pid] }));
  });
}

/** TCP on a port the OS picks, then the C UDP path on the same number; another try when UDP finds it taken. */
function listenNative(attempt: number): void {
  tcp.listen(0, '127.0.0.1', () => {
    const { port } = tcp.address() as AddressInfo;
    const child = spawn(udpBinary, [upstreamAddress, upstreamPortText, String(delay), String(port)], {
      stdio: ['pipe', 'pipe', 'inherit'],
    });
    let ready = false;
    let error = '';
    createInterface({ input: child.stdout }).on('line', (line) => {
      if (!ready && line.startsWith('ready ')) {
        ready = true;
        native = child;
        process.send?.({ type: 'ready', port, udp: 'native', pids: [process.pid, child.pid] });
      } else if (!ready) {
        error = line;
      } else {
        nativeReplies.shift()?.(line);
      }
    });
    child.once('error', (spawnError) => fail(`${udpBinary}: ${String(spawnError)}`));
    child.once('exit', (code, signal) => {
      if (ready) {
        if (native === child) fail(`the UDP path exited (${signal ?? code})`);
        return;
      }
      if (attempt >= 20) fail(`${udpBinary}: ${error || `exited (${signal ?? code})`}`);
      tcp.close(() => listenNative(attempt + 1));
    });
  });
}

if (udpBinary) listenNative(0);
else listen(0);
