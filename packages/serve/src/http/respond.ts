/**
 * Every answer of the server goes out here, with the same safe headers: a strict Content
 * Security Policy (scripts and styles only from this server, no frames, no inline code), no
 * sniffing, no referrer, no caching, and no CORS header ever (other origins cannot read it).
 */
import type { ServerResponse } from 'node:http';
import { AbortError, DnsError, InvalidArgumentError } from '@dnscore/core';
import { ServeError, ZoneTextError } from '../errors.js';

export const SECURITY_HEADERS: Readonly<Record<string, string>> = Object.freeze({
  'content-security-policy':
    "default-src 'none'; script-src 'self'; style-src 'self'; img-src 'self' data:; connect-src 'self'; " +
    "base-uri 'none'; form-action 'self'; frame-ancestors 'none'",
  'x-content-type-options': 'nosniff',
  'referrer-policy': 'no-referrer',
  'x-frame-options': 'DENY',
  'cross-origin-opener-policy': 'same-origin',
  'cross-origin-resource-policy': 'same-origin',
  'permissions-policy': 'camera=(), microphone=(), geolocation=(), interest-cohort=()',
  'cache-control': 'no-store',
});

export function send(
  res: ServerResponse,
  status: number,
  contentType: string,
  body: string | Buffer,
  headers: Readonly<Record<string, string>> = {},
  head = false,
): void {
  if (res.headersSent || res.destroyed) return;
  const bytes = typeof body === 'string' ? Buffer.from(body) : body;
  res.writeHead(status, {
    ...SECURITY_HEADERS,
    ...headers,
    'content-type': contentType,
    'content-length': String(bytes.length),
  });
  res.end(head ? undefined : bytes);
}

export function sendJson(res: ServerResponse, status: number, value: unknown, head = false): void {
  send(res, status, 'application/json; charset=utf-8', `${JSON.stringify(value)}\n`, {}, head);
}

export interface ErrorBody {
  readonly error: { readonly code: string; readonly message: string; readonly line?: number };
}

/** Any failure as a typed JSON error: the ServeError's status, 400 for bad input, 502 for the DNS, 500 else. */
export function errorAnswer(
  error: unknown,
  timedOut: boolean,
): { status: number; body: ErrorBody; headers: Record<string, string> } {
  if (error instanceof ServeError) {
    const line = error instanceof ZoneTextError ? { line: error.line } : {};
    return {
      status: error.status,
      body: { error: { code: error.code, message: error.message, ...line } },
      headers: { ...error.headers },
    };
  }
  if (error instanceof AbortError || (error as { name?: string })?.name === 'AbortError') {
    return timedOut
      ? {
          status: 504,
          body: { error: { code: 'SERVE_ERR_TIMEOUT', message: 'the DNS did not answer in time' } },
          headers: {},
        }
      : {
          status: 499,
          body: { error: { code: 'SERVE_ERR_CANCELLED', message: 'the request was cancelled' } },
          headers: {},
        };
  }
  if (error instanceof InvalidArgumentError)
    return { status: 400, body: { error: { code: error.code, message: error.message } }, headers: {} };
  if (error instanceof DnsError)
    return { status: 502, body: { error: { code: error.code, message: error.message } }, headers: {} };
  return { status: 500, body: { error: { code: 'SERVE_ERR_INTERNAL', message: 'internal error' } }, headers: {} };
}
