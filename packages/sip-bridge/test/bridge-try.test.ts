/**
 * One INVITE try after its per-target timer ran out ('late'), against a fake endpoint: what it
 * tells the cursor of the responses that still come.
 */
import { describe, expect, it } from 'vitest';
import type { SipAttempt, TransactionAffinity } from '@dnscore/sip';
import { BridgeTry, type TryContext } from '../src/bridge-try.js';
import type { SipEndpoint, TryEvent } from '../src/sip-endpoint.js';
import type { SipRequest, SipResponse } from '../src/sip-stack.js';

const target = { transport: 'udp', address: '127.0.0.1', port: 5060, host: 'sip1.example' } as const;

function lateTry(): { emit: (status: number, headers?: Record<string, unknown>) => void; reported: number[] } {
  let listener: ((event: TryEvent) => void) | undefined;
  const endpoint = {
    attempt: (_request: SipRequest, _target: unknown, on: (event: TryEvent) => void) => {
      listener = on;
      return { branch: 'z9hG4bK-late', stop: () => {} };
    },
  } as unknown as SipEndpoint;
  const reported: number[] = [];
  const ctx: TryContext = {
    endpoint,
    transactions: { bind: () => {}, release: () => {} } as unknown as TransactionAffinity,
    request: { method: 'INVITE', uri: 'sip:bob@example', headers: {} } as SipRequest,
    upstream: [],
    deliver: () => {},
    timerFMs: 32_000,
    failsOver: (status) => status === 503,
    remainingMs: () => 32_000,
    reportLate: (_attempt, response) => reported.push(response.status),
  };
  const timer = new AbortController();
  const attempt = { target, penalized: false, pinned: false, switched: false, timeoutMs: 300 } as unknown as SipAttempt;
  new BridgeTry(ctx, attempt, target, timer.signal);
  timer.abort(); // the per-target timer ran out with no response: the INVITE's transaction lives on
  const emit = (status: number, headers: Record<string, unknown> = {}): void =>
    listener!({ type: 'response', response: { status, reason: '', headers } as SipResponse });
  return { emit, reported };
}

describe('BridgeTry: responses after the timer', () => {
  it('a late 503 and a late 180 are reported to the cursor', () => {
    const { emit, reported } = lateTry();
    emit(180);
    emit(503, { 'retry-after': '120' });
    expect(reported).toEqual([180, 503]);
  });

  it('a 408 is not: sip makes one itself when Timer B ends a silent INVITE, and it must not free the server', () => {
    const { emit, reported } = lateTry();
    emit(408);
    expect(reported).toEqual([]);
  });
});
