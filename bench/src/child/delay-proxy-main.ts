/**
 * A delaying DNS proxy, run in a process of its own so that the code being measured never
 * delays it: each query (UDP, or TCP with its two-byte length) is forwarded to the upstream
 * server at once and its answer handed back `delay` ms after the query arrived, as a server
 * `delay` ms away would answer. Controlled over the fork IPC channel:
 *   { type: 'stats' } -> { type: 'stats', udp, tcp }    queries seen since the last reset
 *   { type: 'reset' } -> { type: 'reset' }
 *   { type: 'delay', ms } -> { type: 'delay', ms }
 * Usage: node delay-proxy-main.js UPSTREAM_ADDRESS UPSTREAM_PORT DELAY_MS
 */
import { createSocket, type RemoteInfo } from 'node:dgram';
import { createConnection, createServer, type Socket } from 'node:net';

const [upstreamAddress = '127.0.0.1', upstreamPortText = '53', delayText = '0'] = process.argv.slice(2);
const upstreamPort = Number(upstreamPortText);
let delay = Number(delayText);
let udpQueries = 0;
let tcpQueries = 0;

let front = createSocket('udp4');
front.on('message', onQuery);

function onQuery(query: Buffer, client: RemoteInfo): void {
  udpQueries++;
  const arrived = performance.now();
  const back = createSocket('udp4');
  const give = setTimeout(() => back.close(), 10_000);
  back.once('message', (answer: Buffer) => {
    clearTimeout(give);
    back.close();
    later(arrived, () => front.send(answer, client.port, client.address));
  });
  back.send(query, upstreamPort, upstreamAddress);
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

/** Runs `action` `delay` ms after `arrived` (at once if that moment has passed). */
function later(arrived: number, action: () => void): void {
  const wait = arrived + delay - performance.now();
  if (wait <= 0) action();
  else setTimeout(action, wait);
}

process.on('message', (message: { type: string; ms?: number }) => {
  if (message.type === 'stats') process.send?.({ type: 'stats', udp: udpQueries, tcp: tcpQueries });
  else if (message.type === 'reset') {
    udpQueries = 0;
    tcpQueries = 0;
    process.send?.({ type: 'reset' });
  } else if (message.type === 'delay' && typeof message.ms === 'number') {
    delay = message.ms;
    process.send?.({ type: 'delay', ms: delay });
  }
});
process.on('disconnect', () => process.exit(0));

/** Binds UDP and TCP on one port the OS picks; another try when TCP finds that port taken. */
function listen(attempt: number): void {
  front.bind(0, '127.0.0.1', () => {
    const { port } = front.address();
    tcp.once('error', (error) => {
      if (attempt >= 20) {
        process.send?.({ type: 'error', message: String(error) });
        process.exit(1);
      }
      front.close(() => {
        front = createSocket('udp4');
        front.on('message', onQuery);
        listen(attempt + 1);
      });
    });
    tcp.listen(port, '127.0.0.1', () => process.send?.({ type: 'ready', port }));
  });
}
listen(0);
