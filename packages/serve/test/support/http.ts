/** HTTP as a hostile client speaks it: raw bytes on a socket, and requests with any header. */
import { request } from 'node:http';
import { connect } from 'node:net';
import { DnsCore, silentLogger, ZoneResolver, type DnsQuery, type ResolverPlugin } from '@dnscore/core';
import { startServer, type RunningServer, type ServeOptions } from '@dnscore/serve';
import { EXAMPLE_ZONE_FILE } from './zones.js';

export interface Answer {
  readonly status: number;
  readonly headers: Record<string, string | string[] | undefined>;
  readonly body: string;
  // biome-ignore lint/suspicious/noExplicitAny: tests read the JSON the server sent, whatever its shape
  readonly json: () => any;
}

/** A request with exactly these headers (Host included). */
export function call(
  server: RunningServer,
  method: string,
  path: string,
  headers: Record<string, string> = {},
  body?: string | Buffer,
): Promise<Answer> {
  return new Promise((resolve, reject) => {
    const req = request(
      { host: '127.0.0.1', port: server.port, method, path, headers: { host: `127.0.0.1:${server.port}`, ...headers } },
      (res) => {
        const chunks: Buffer[] = [];
        res.on('data', (c: Buffer) => chunks.push(c));
        res.on('end', () => {
          const text = Buffer.concat(chunks).toString('utf8');
          resolve({ status: res.statusCode ?? 0, headers: res.headers, body: text, json: () => JSON.parse(text) });
        });
        res.on('error', reject);
      },
    );
    req.on('error', reject);
    req.end(body);
  });
}

export const postJson = (server: RunningServer, path: string, value: unknown, headers: Record<string, string> = {}) =>
  call(server, 'POST', path, { 'content-type': 'application/json', ...headers }, JSON.stringify(value));

/** Writes raw bytes (optionally in slow pieces) and collects what comes back until the server closes. */
export function raw(port: number, pieces: readonly string[], gapMs = 0): Promise<string> {
  return new Promise((resolve, reject) => {
    const socket = connect(port, '127.0.0.1');
    let got = '';
    socket.on('data', (d) => {
      got += d.toString('latin1');
    });
    socket.on('error', (e: NodeJS.ErrnoException) =>
      e.code === 'ECONNRESET' || e.code === 'EPIPE' ? resolve(got) : reject(e),
    );
    socket.on('close', () => resolve(got));
    let i = 0;
    const next = (): void => {
      if (socket.destroyed || i >= pieces.length) return;
      socket.write(pieces[i++]!);
      if (i < pieces.length) setTimeout(next, gapMs);
    };
    socket.on('connect', next);
  });
}

/**
 * A request with `Expect: 100-continue` as a careful client sends it: the header block, then the body
 * only after the server says 100 Continue. Collects everything the server sends until it closes.
 */
export function withContinue(port: number, head: string, body: string): Promise<string> {
  return new Promise((resolve, reject) => {
    const socket = connect(port, '127.0.0.1', () => socket.write(head));
    let got = '';
    socket.on('data', (d) => {
      const first = got === '';
      got += d.toString('latin1');
      if (first && got.startsWith('HTTP/1.1 100 Continue\r\n\r\n')) socket.write(body);
    });
    socket.on('error', reject);
    socket.on('close', () => resolve(got));
  });
}

/** The first answer of a raw exchange: status line, headers (lower-case names) and body. */
export function parseRaw(text: string): { statusLine: string; headers: Record<string, string>; body: string } {
  const end = text.indexOf('\r\n\r\n');
  const [statusLine = '', ...lines] = text.slice(0, end < 0 ? text.length : end).split('\r\n');
  const headers: Record<string, string> = {};
  for (const line of lines) {
    const colon = line.indexOf(':');
    headers[line.slice(0, colon).toLowerCase()] = line.slice(colon + 1).trim();
  }
  return { statusLine, headers, body: end < 0 ? '' : text.slice(end + 4) };
}

/** A plugin that records every question and answers none: proof that it was never asked. */
export function recordingPlugin(): ResolverPlugin & { readonly asked: string[] } {
  const asked: string[] = [];
  return {
    name: 'recording',
    priority: 10,
    asked,
    available: () => true,
    close: () => {},
    resolve: async (query: DnsQuery) => {
      asked.push(`${query.name} ${query.type}`);
      throw new Error('the recording plugin answers nothing');
    },
  } as unknown as ResolverPlugin & { readonly asked: string[] };
}

/** A server over the walk-through zone on a free loopback port. */
export async function exampleServer(options: Partial<ServeOptions> = {}, plugins: ResolverPlugin[] = []) {
  const backend = new DnsCore([new ZoneResolver({ files: [EXAMPLE_ZONE_FILE] }), ...plugins], { logger: silentLogger });
  const server = await startServer({ backend, description: 'zone', port: 0, ...options });
  return { backend, server };
}
