/**
 * The two ways of sending a SIP request that the failover part compares: the npm `sip` stack
 * on its own (its resolve(), its sequential search, its 32-second Timer B/F), and the same
 * stack driven by dnscore's bridge (@dnscore/sip-bridge: RFC 3263 targets, a per-target
 * timer, a penalty box). Both resolve through the failover nsd.
 */
import dns from 'node:dns';
import { DnsCore, withCache } from '@dnscore/core';
import { SipBridge, type SipRequest } from '@dnscore/sip-bridge';
import { SipLocator, type SipLocatorOptions } from '@dnscore/sip';
import type { SipMessage } from 'sip';
import { freePort } from '../rig/support.js';
import { systemPlugin } from './dnscore.js';
import { sipStack, useResolverForSipStack } from './sip-stack.js';

export interface SendResult {
  /** The final status the application got. */
  readonly status: number;
  readonly ms: number;
  /** "address outcome" per try (the bridge's report), when known. */
  readonly tries?: readonly string[];
}

export interface Sender {
  send(uri: string, callId: string): Promise<SendResult>;
  close(): Promise<void> | void;
}

/** An OPTIONS request as an application on `sip` builds it. */
export function optionsRequest(uri: string, callId: string): SipMessage {
  return {
    method: 'OPTIONS',
    uri,
    headers: {
      to: { uri },
      from: { uri: 'sip:bench@127.0.0.1', params: { tag: callId.slice(-8) } },
      'call-id': callId,
      cseq: { method: 'OPTIONS', seq: 1 },
      'max-forwards': 70,
    },
  };
}

/** The npm `sip` stack as it is, on 127.0.0.1, asking `dnsEndpoint` through a private Resolver. */
export async function sipStackSender(dnsEndpoint: string): Promise<Sender> {
  const resolver = new dns.Resolver({ timeout: 2000, tries: 1 });
  resolver.setServers([dnsEndpoint]);
  const sip = sipStack();
  const port = await freePort('127.0.0.1');
  const stack = sip.create({ address: '127.0.0.1', port, publicAddress: '127.0.0.1' }, () => {});
  return {
    send: (uri, callId) =>
      new Promise<SendResult>((resolve) => {
        useResolverForSipStack(resolver);
        const start = performance.now();
        stack.send(optionsRequest(uri, callId), (response) => {
          if ((response.status ?? 0) >= 200) resolve({ status: response.status!, ms: performance.now() - start });
        });
      }),
    close: () => {
      stack.destroy();
      resolver.cancel();
    },
  };
}

/** dnscore's bridge over the same stack: a new locator (empty cache, empty penalty box) each time. */
export async function bridgeSender(dnsEndpoint: string, locatorOptions: SipLocatorOptions = {}): Promise<Sender> {
  const locator = new SipLocator(new DnsCore([withCache(systemPlugin(dnsEndpoint))]), {
    ipv6: false,
    ...locatorOptions,
  });
  const bridge = await SipBridge.create(sipStack() as unknown as Parameters<typeof SipBridge.create>[0], locator, {
    address: '127.0.0.1',
    port: await freePort('127.0.0.1'),
    tcpListener: false,
  });
  return {
    send: async (uri, callId) => {
      const start = performance.now();
      const report = await bridge.send(optionsRequest(uri, callId) as unknown as SipRequest);
      const ms = performance.now() - start;
      return {
        status: report.response?.status ?? 0,
        ms,
        tries: report.attempts.map((a) => `${a.target.address} ${a.outcome}`),
      };
    },
    close: () => bridge.close(),
  };
}

/**
 * Runs `work` with the npm `sip` stack's `console.log("err: ", ...)` (printed on every refused
 * connection) kept out of the report on stdout.
 */
export async function withoutSipStackNoise<T>(work: () => Promise<T>): Promise<T> {
  const log = console.log;
  console.log = (...args: unknown[]) => {
    if (args[0] !== 'err: ') log(...args);
  };
  try {
    return await work();
  } finally {
    console.log = log;
  }
}
