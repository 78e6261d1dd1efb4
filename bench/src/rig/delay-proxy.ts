/**
 * Starts the delaying DNS proxy (child/delay-proxy-main.ts) in its own process in front of an
 * upstream server, and talks to it over IPC. Its UDP path is the C program of native-udp-proxy.ts
 * when the machine can build it. Stopped by PID.
 */
import { fork, type ChildProcess } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import { nativeUdpProxy } from './native-udp-proxy.js';

export interface DelayProxy {
  readonly address: string;
  readonly port: number;
  /** "127.0.0.1:PORT" */
  readonly endpoint: string;
  readonly pid: number;
  /** Every process of the proxy, `pid` first (the C UDP path's second when it runs). */
  readonly pids: readonly number[];
  /** Where UDP is relayed: "C" or, without a compiler, "Node (reason)". */
  readonly udpPath: string;
  /** Queries seen since the last reset, UDP and TCP. */
  queries(): Promise<{ udp: number; tcp: number }>;
  reset(): Promise<void>;
  /** CPU the proxy process has spent so far, user and system, in microseconds (process.cpuUsage). */
  cpu(): Promise<{ user: number; system: number }>;
  setDelay(ms: number): Promise<void>;
  stop(): Promise<void>;
}

const MAIN = fileURLToPath(new URL('../child/delay-proxy-main.js', import.meta.url));

export async function startDelayProxy(
  upstream: { address: string; port: number },
  delayMs: number,
): Promise<DelayProxy> {
  const udpBinary = nativeUdpProxy();
  const child = fork(MAIN, [upstream.address, String(upstream.port), String(delayMs), udpBinary.path ?? ''], {
    stdio: ['ignore', 'inherit', 'inherit', 'ipc'],
  });
  const ready = await reply<{ port: number; pids: number[] }>(child, 'ready');
  const port = ready.port;
  const ask = async <T>(message: object, type: string): Promise<T> => {
    const answer = reply<T>(child, type);
    child.send(message);
    return answer;
  };
  return {
    address: '127.0.0.1',
    port,
    endpoint: `127.0.0.1:${port}`,
    pid: child.pid!,
    pids: ready.pids,
    udpPath: udpBinary.path === undefined ? `Node (${udpBinary.reason})` : 'C',
    queries: async () => {
      const stats = await ask<{ udp: number; tcp: number }>({ type: 'stats' }, 'stats');
      return { udp: stats.udp, tcp: stats.tcp };
    },
    reset: async () => {
      await ask({ type: 'reset' }, 'reset');
    },
    cpu: async () => {
      const usage = await ask<{ user: number; system: number }>({ type: 'cpu' }, 'cpu');
      return { user: usage.user, system: usage.system };
    },
    setDelay: async (ms: number) => {
      await ask({ type: 'delay', ms }, 'delay');
    },
    stop: async () => {
      if (child.exitCode !== null) return;
      const exited = new Promise<void>((resolve) => child.once('exit', () => resolve()));
      process.kill(child.pid!, 'SIGTERM');
      await exited;
    },
  };
}

function reply<T>(child: ChildProcess, type: string): Promise<T> {
  return new Promise<T>((resolve, reject) => {
    const onMessage = (message: { type: string; message?: string }): void => {
      if (message.type === 'error') finish(() => reject(new Error(`delay proxy: ${message.message}`)));
      else if (message.type === type) finish(() => resolve(message as T));
    };
    const onExit = (code: number | null): void => finish(() => reject(new Error(`delay proxy exited (${code})`)));
    const finish = (settle: () => void): void => {
      child.off('message', onMessage);
      child.off('exit', onExit);
      settle();
    };
    child.on('message', onMessage);
    child.once('exit', onExit);
  });
}
