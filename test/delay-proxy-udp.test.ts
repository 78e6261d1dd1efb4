/**
 * The bench's delaying proxy, UDP path in C (bench/native/delay-proxy-udp.c), built with `cc` as
 * the bench builds it and run on loopback in front of an echoing upstream: no answer before the
 * delay, each of many concurrent clients gets its own answers although their query IDs collide,
 * query counts are exact, a delay change takes effect, the delay runs from the kernel's arrival
 * (not from when the proxy got the CPU to read it), and SIGTERM or the end of its command pipe
 * stops it. The delay is a lower bound the proxy guarantees, so a loaded machine only makes
 * answers later.
 */
import { execFileSync, spawn, type ChildProcessByStdio } from 'node:child_process';
import { createSocket, type Socket } from 'node:dgram';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { createInterface, type Interface } from 'node:readline';
import type { Readable, Writable } from 'node:stream';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';

const SOURCE = new URL('../bench/native/delay-proxy-udp.c', import.meta.url).pathname;
const DELAY_MS = 40;

let dir: string;
let binary: string;

beforeAll(() => {
  dir = mkdtempSync(join(tmpdir(), 'dnscore-delay-proxy-'));
  binary = join(dir, 'delay-proxy-udp');
  execFileSync('cc', ['-O2', '-Wall', '-o', binary, SOURCE]);
});
afterAll(() => rmSync(dir, { recursive: true, force: true }));

/**
 * An upstream that answers each query with the query itself, QR set; it records the IDs it saw.
 * Its receive buffer holds a whole burst: the proxy relays faster than the default's ~256 datagrams drain.
 */
async function echoServer(): Promise<{ socket: Socket; port: number; ids: number[] }> {
  const socket = createSocket({ type: 'udp4', recvBufferSize: 4 * 1024 * 1024 });
  const ids: number[] = [];
  socket.on('message', (query, from) => {
    ids.push(query.readUInt16BE(0));
    const answer = Buffer.from(query);
    answer[2]! |= 0x80;
    socket.send(answer, from.port, from.address);
  });
  await new Promise<void>((resolve) => socket.bind(0, '127.0.0.1', resolve));
  return { socket, port: socket.address().port, ids };
}

interface Proxy {
  readonly child: ChildProcessByStdio<Writable, Readable, null>;
  readonly port: number;
  ask(command: string): Promise<string>;
}

async function startProxy(upstreamPort: number, delayMs: number): Promise<Proxy> {
  const child = spawn(binary, ['127.0.0.1', String(upstreamPort), String(delayMs), '0'], {
    stdio: ['pipe', 'pipe', 'inherit'],
  });
  running.push(child);
  const lines: Interface = createInterface({ input: child.stdout });
  const waiting: ((line: string) => void)[] = [];
  lines.on('line', (line) => waiting.shift()?.(line));
  const next = (): Promise<string> => new Promise((resolve) => waiting.push(resolve));
  const ready = await next();
  expect(ready).toMatch(/^ready \d+$/);
  return {
    child,
    port: Number(ready.split(' ')[1]),
    ask: (command) => {
      const answer = next();
      child.stdin.write(`${command}\n`);
      return answer;
    },
  };
}

const running: ChildProcessByStdio<Writable, Readable, null>[] = [];
const sockets: Socket[] = [];
afterEach(() => {
  for (const child of running.splice(0)) if (child.exitCode === null && child.signalCode === null) child.kill();
  for (const socket of sockets.splice(0)) socket.close();
});

/** A query with `id` whose bytes after the header name the client and its query. */
function query(id: number, text: string): Buffer {
  const header = Buffer.alloc(12);
  header.writeUInt16BE(id, 0);
  header.writeUInt16BE(0x0100, 2);
  return Buffer.concat([header, Buffer.from(text)]);
}

/** A client socket that sends `queries` at once and collects answers with how long each took (ms). */
async function client(port: number, queries: Buffer[]): Promise<{ answer: Buffer; ms: number }[]> {
  const socket = createSocket('udp4');
  sockets.push(socket);
  await new Promise<void>((resolve) => socket.bind(0, '127.0.0.1', resolve));
  const got: { answer: Buffer; ms: number }[] = [];
  const done = new Promise<void>((resolve) => {
    socket.on('message', (answer) => {
      got.push({ answer, ms: performance.now() - sent });
      if (got.length === queries.length) resolve();
    });
  });
  const sent = performance.now();
  for (const q of queries) socket.send(q, port, '127.0.0.1');
  await done;
  return got;
}

describe('delay-proxy-udp', () => {
  it('many concurrent clients with colliding IDs: each gets its own answers, none before the delay', async () => {
    const upstream = await echoServer();
    sockets.push(upstream.socket);
    const proxy = await startProxy(upstream.port, DELAY_MS);
    const CLIENTS = 60;
    const EACH = 5;
    const results = await Promise.all(
      Array.from({ length: CLIENTS }, (_, c) =>
        client(
          proxy.port,
          Array.from({ length: EACH }, (_, q) => query(0x1234 + (q % 2), `client ${c} query ${q}`)),
        ),
      ),
    );
    results.forEach((answers, c) => {
      const texts = answers.map(({ answer }) => `${answer.readUInt16BE(0).toString(16)} ${answer.subarray(12)}`);
      expect(texts.sort()).toEqual(
        Array.from({ length: EACH }, (_, q) => `${(0x1234 + (q % 2)).toString(16)} client ${c} query ${q}`).sort(),
      );
      for (const { answer, ms } of answers) {
        expect(answer[2]! & 0x80).toBe(0x80);
        expect(ms).toBeGreaterThanOrEqual(DELAY_MS);
      }
    });
    // Upstream saw one query per client query, each under an ID of the proxy's, all distinct.
    expect(upstream.ids).toHaveLength(CLIENTS * EACH);
    expect(new Set(upstream.ids).size).toBe(CLIENTS * EACH);
    expect(await proxy.ask('stats')).toBe(`stats ${CLIENTS * EACH}`);
  });

  it('counts every datagram (runts too, which are not relayed); reset starts from 0', async () => {
    const upstream = await echoServer();
    sockets.push(upstream.socket);
    const proxy = await startProxy(upstream.port, 0);
    await client(proxy.port, [query(1, 'a'), query(2, 'b'), query(3, 'c')]);
    const runt = createSocket('udp4');
    sockets.push(runt);
    await new Promise<void>((resolve) => runt.send(Buffer.alloc(5), proxy.port, '127.0.0.1', () => resolve()));
    await client(proxy.port, [query(4, 'd')]); // arrives after the runt, from another socket
    expect(await proxy.ask('stats')).toBe('stats 5');
    expect(upstream.ids).toHaveLength(4);
    expect(await proxy.ask('reset')).toBe('reset');
    expect(await proxy.ask('stats')).toBe('stats 0');
    await client(proxy.port, [query(5, 'e'), query(6, 'f')]);
    expect(await proxy.ask('stats')).toBe('stats 2');
    expect(await proxy.ask('bogus')).toBe('error unknown command');
    expect(await proxy.ask('cpu')).toMatch(/^cpu \d+ \d+$/);
  });

  it('a delay change applies to the next answers', async () => {
    const upstream = await echoServer();
    sockets.push(upstream.socket);
    const proxy = await startProxy(upstream.port, 0);
    expect(await proxy.ask('delay 250')).toBe('delay 250');
    const [slow] = await client(proxy.port, [query(7, 'slow')]);
    expect(slow!.ms).toBeGreaterThanOrEqual(250);
    expect(slow!.answer.subarray(12).toString()).toBe('slow');
    expect(await proxy.ask('delay 0')).toBe('delay 0');
    const [quick] = await client(proxy.port, [query(8, 'quick')]);
    expect(quick!.answer.subarray(12).toString()).toBe('quick');
  });

  it('the delay runs from when the kernel queued the query, not from when the proxy read it', async () => {
    const upstream = await echoServer();
    sockets.push(upstream.socket);
    const proxy = await startProxy(upstream.port, 300);
    // Stopped, the proxy reads nothing: the query waits in its socket for 600 ms, as it would
    // while the system under test keeps both cores busy. Counted from the read, the answer
    // would leave 300 ms after the proxy resumes; counted from the arrival, at once.
    process.kill(proxy.child.pid!, 'SIGSTOP');
    const asked = client(proxy.port, [query(9, 'waited')]);
    await new Promise((resolve) => setTimeout(resolve, 600));
    process.kill(proxy.child.pid!, 'SIGCONT');
    const [waited] = await asked;
    expect(waited!.answer.subarray(12).toString()).toBe('waited');
    expect(waited!.ms).toBeGreaterThanOrEqual(600);
    expect(waited!.ms).toBeLessThan(900);
  });

  it('SIGTERM stops it; so does the end of its command pipe (the bench process gone)', async () => {
    const upstream = await echoServer();
    sockets.push(upstream.socket);
    const first = await startProxy(upstream.port, DELAY_MS);
    const terminated = new Promise<NodeJS.Signals | null>((resolve) => first.child.once('exit', (_, s) => resolve(s)));
    process.kill(first.child.pid!, 'SIGTERM');
    expect(await terminated).toBe('SIGTERM');
    const second = await startProxy(upstream.port, DELAY_MS);
    const ended = new Promise<number | null>((resolve) => second.child.once('exit', (code) => resolve(code)));
    second.child.stdin.end();
    expect(await ended).toBe(0);
  });

  it('a port in use: an error line and exit 1', async () => {
    const taken = createSocket('udp4');
    sockets.push(taken);
    await new Promise<void>((resolve) => taken.bind(0, '127.0.0.1', resolve));
    const child = spawn(binary, ['127.0.0.1', '53', '0', String(taken.address().port)], {
      stdio: ['pipe', 'pipe', 'inherit'],
    });
    running.push(child);
    let out = '';
    child.stdout.on('data', (chunk: Buffer) => (out += chunk));
    const code = await new Promise<number | null>((resolve) => child.once('exit', (c) => resolve(c)));
    expect(code).toBe(1);
    expect(out).toBe('error bind: Address already in use\n');
  });
});
