/**
 * `--trace`: what the resolver did during a run, from dnscore's diagnostics channels, on
 * stderr: one line per event for people, or one JSON object per line (`--trace=json`).
 * Subscribed only for the run; stdout keeps only the command's output.
 */
import diagnostics from 'node:diagnostics_channel';
import { describeQuery, rcodeName, typeName } from '@dnscore/core';
import {
  CHANNELS,
  queryChannel,
  sipLocateChannel,
  type AffinityPinEvent,
  type BogusEvent,
  type CacheHitEvent,
  type CacheMissEvent,
  type CachePrefetchEvent,
  type CacheStaleEvent,
  type FailoverEvent,
  type FallbackEvent,
  type PenaltyEvent,
  type QueryTraceContext,
  type SelectedEvent,
  type ServerAttempt,
  type SipDestinationInfo,
  type SipLocateTraceContext,
} from '@dnscore/core/diagnostics';
import { InvalidArgumentError } from '@dnscore/core';
import type { Io } from './io.js';

export type TraceFormat = 'human' | 'json';

/** Takes `--trace` / `--trace=human` / `--trace=json` out of argv, wherever it is. */
export function takeTraceFlag(argv: readonly string[]): { argv: string[]; trace: TraceFormat | undefined } {
  let trace: TraceFormat | undefined;
  const rest: string[] = [];
  for (const [i, arg] of argv.entries()) {
    // After "--" everything is an operand.
    if (arg === '--') {
      rest.push(...argv.slice(i));
      break;
    }
    if (arg === '--trace' || arg === '--trace=human') trace = 'human';
    else if (arg === '--trace=json') trace = 'json';
    else if (arg.startsWith('--trace='))
      throw new InvalidArgumentError(`--trace is human or json, not "${arg.slice(8)}"`);
    else rest.push(arg);
  }
  return { argv: rest, trace };
}

/** Subscribes to every channel; returns the function that unsubscribes. */
export function startTrace(format: TraceFormat, io: Io, now: () => number = () => performance.now()): () => void {
  const write = (event: string, fields: Record<string, unknown>, text: string): void =>
    io.stderr(format === 'json' ? `${JSON.stringify({ event, ...fields })}\n` : `trace: ${text}\n`);
  const started = new WeakMap<object, number>();
  const ms = (ctx: object): number => Math.round((now() - (started.get(ctx) ?? now())) * 10) / 10;

  const query = {
    start: (ctx: QueryTraceContext) => void started.set(ctx, now()),
    end: () => {},
    asyncStart: () => {},
    error: () => {},
    asyncEnd: (ctx: QueryTraceContext) => {
      const { result, error } = ctx;
      const attempts = ctx.attempts.map((a) => ({
        backend: a.backend,
        ...(a.error ? { error: errorText(a.error) } : {}),
        ...(a.servers ? { servers: a.servers.map(serverFields) } : {}),
      }));
      const fields = {
        name: ctx.query.name,
        type: typeName(ctx.query.type),
        cache: ctx.cache,
        attempts,
        ...(result
          ? {
              resolver: result.resolver,
              rcode: rcodeName(result.rcode),
              dnssec: result.dnssec,
              ...(result.ede !== undefined ? { ede: result.ede } : {}),
              ...(result.stale ? { stale: true } : {}),
            }
          : {}),
        ...(error !== undefined ? { error: errorText(error) } : {}),
        ms: ms(ctx),
      };
      const ede = result?.ede !== undefined ? `, EDE ${result.ede}` : '';
      const outcome = result
        ? `${fields.rcode} from "${result.resolver}", ${result.dnssec}${ede}${result.stale ? ', stale' : ''}`
        : `failed: ${fields.error}`;
      const tries = ctx.attempts.flatMap((a) => a.servers ?? []).map(tryText);
      const asked =
        ctx.cache === 'hit'
          ? 'cache hit'
          : `${attempts.length} backend${attempts.length === 1 ? '' : 's'} asked` +
            (tries.length ? `; ${tries.join(', ')}` : '');
      write('query', fields, `query ${describeQuery(ctx.query)}: ${outcome} (${asked}) in ${fields.ms} ms`);
    },
  };

  const locate = {
    start: (ctx: SipLocateTraceContext) => void started.set(ctx, now()),
    end: () => {},
    asyncStart: () => {},
    error: () => {},
    asyncEnd: (ctx: SipLocateTraceContext) => {
      const r = ctx.result;
      const failure = ctx.error ?? r?.error;
      const fields = {
        uri: ctx.uri,
        ...(ctx.planned ? { planned: true } : {}),
        ...(r
          ? { rule: r.rule, targets: r.targets.map(destination), roundTrips: r.roundTrips, queries: r.queries }
          : {}),
        ...(failure !== undefined ? { error: errorText(failure) } : {}),
        ms: ms(ctx),
      };
      const found = r
        ? `${r.targets.length} target${r.targets.length === 1 ? '' : 's'}${r.rule ? ` by ${r.rule}` : ''}, ` +
          `${r.queries} queries in ${r.roundTrips} round${r.roundTrips === 1 ? '' : 's'}`
        : 'no resolution';
      write(
        'sip-locate',
        fields,
        `sip locate ${ctx.uri}: ${found}${ctx.planned ? ' (from its target plan)' : ''}` +
          `${failure ? ` (${fields.error})` : ''} in ${fields.ms} ms`,
      );
    },
  };

  const events: [string, (message: never) => void][] = [
    [
      CHANNELS.selected,
      (m: SelectedEvent) =>
        write(
          'selected',
          { plugin: m.plugin, skipped: m.skipped },
          `backend ${m.plugin ? `"${m.plugin}"` : 'none'}` +
            (m.skipped.length ? ` (unavailable: ${m.skipped.join(', ')})` : ''),
        ),
    ],
    [
      CHANNELS.fallback,
      (m: FallbackEvent) =>
        write(
          'fallback',
          {
            name: m.query.name,
            type: typeName(m.query.type),
            plugin: m.plugin,
            error: errorText(m.error),
            next: m.next,
          },
          `fallback ${describeQuery(m.query)}: "${m.plugin}" failed (${errorText(m.error)}), ` +
            (m.next ? `asking "${m.next}"` : 'none left'),
        ),
    ],
    [
      CHANNELS.bogus,
      (m: BogusEvent) =>
        write(
          'bogus',
          { name: m.query.name, type: typeName(m.query.type), resolver: m.resolver, ede: m.ede, whyBogus: m.whyBogus },
          `bogus ${describeQuery(m.query)} from "${m.resolver}": EDE ${m.ede}${m.whyBogus ? `, ${m.whyBogus}` : ''}`,
        ),
    ],
    [
      CHANNELS.cacheHit,
      (m: CacheHitEvent) =>
        write(
          'cache-hit',
          { name: m.query.name, type: typeName(m.query.type), backend: m.backend, age: m.age },
          `cache hit ${describeQuery(m.query)} ("${m.backend}", ${m.age} s old)`,
        ),
    ],
    [
      CHANNELS.cacheMiss,
      (m: CacheMissEvent) =>
        write(
          'cache-miss',
          { name: m.query.name, type: typeName(m.query.type), backend: m.backend, joined: m.joined },
          `cache miss ${describeQuery(m.query)} ("${m.backend}"${m.joined ? ', joined a query in flight' : ''})`,
        ),
    ],
    [
      CHANNELS.cacheStale,
      (m: CacheStaleEvent) =>
        write(
          'cache-stale',
          {
            name: m.query.name,
            type: typeName(m.query.type),
            backend: m.backend,
            age: m.age,
            expiredFor: m.expiredFor,
            reason: m.reason,
          },
          `cache serves stale ${describeQuery(m.query)} ("${m.backend}", ${m.age} s old, expired ${m.expiredFor} s ` +
            `ago; ${m.reason === 'failed' ? 'the backend failed' : 'the backend failed < 30 s ago, not asked'})`,
        ),
    ],
    [
      CHANNELS.cachePrefetch,
      (m: CachePrefetchEvent) =>
        write(
          'cache-prefetch',
          {
            name: m.query.name,
            type: typeName(m.query.type),
            backend: m.backend,
            event: m.event,
            ...(m.error !== undefined ? { error: errorText(m.error) } : {}),
          },
          `cache prefetch ${describeQuery(m.query)} ("${m.backend}"): ` +
            (m.event === 'start' ? 'started' : m.event === 'finish' ? 'finished' : `failed (${errorText(m.error)})`),
        ),
    ],
    [
      CHANNELS.failover,
      (m: FailoverEvent) =>
        write(
          'failover',
          {
            uri: m.uri,
            from: destination(m.from),
            to: m.to && destination(m.to),
            reason: m.reason,
            index: m.index,
            elapsedMs: m.elapsedMs,
          },
          `failover ${m.uri}: ${where(m.from)} ${m.reason} (try ${m.index + 1}), ` +
            `${m.to ? `next ${where(m.to)}` : 'no target left'} after ${m.elapsedMs} ms`,
        ),
    ],
    [
      CHANNELS.penalty,
      (m: PenaltyEvent) =>
        write(
          'penalty',
          {
            event: m.event,
            destination: destination(m.entry),
            until: m.entry.until,
            reason: m.reason,
            ...(m.event === 'leave' ? { entryReason: m.entry.reason } : {}),
            ...(m.entry.detail ? { detail: m.entry.detail } : {}),
          },
          m.event === 'enter'
            ? `penalty box takes ${where(m.entry)}: ${m.reason}${m.entry.detail ? ` (${m.entry.detail})` : ''}`
            : `penalty box lets out ${where(m.entry)}: ${m.reason} (was in for ${m.entry.reason})`,
        ),
    ],
    [
      CHANNELS.affinity,
      (m: AffinityPinEvent) =>
        write(
          'affinity',
          { callId: m.callId, destination: destination(m.destination), learned: m.learned },
          `Call-ID ${m.callId} pinned to ${where(m.destination)} (${m.learned})`,
        ),
    ],
  ];

  queryChannel.subscribe(query);
  sipLocateChannel.subscribe(locate);
  for (const [name, listener] of events) diagnostics.subscribe(name, listener as (message: unknown) => void);
  return () => {
    queryChannel.unsubscribe(query);
    sipLocateChannel.unsubscribe(locate);
    for (const [name, listener] of events) diagnostics.unsubscribe(name, listener as (message: unknown) => void);
  };
}

/** A server try for JSON: the rcode by name. */
function serverFields(t: ServerAttempt): Record<string, unknown> {
  return { ...t, ...(t.rcode !== undefined ? { rcode: rcodeName(t.rcode) } : {}) };
}

/** "192.0.2.53:53 udp SERVFAIL", "192.0.2.53:53 tcp error (ECONNRESET)", "zone file x.zone NOERROR". */
function tryText(t: ServerAttempt): string {
  const how = t.transport === 'file' ? '' : ` ${t.transport}`;
  const outcome = t.outcome === 'answer' && t.rcode !== undefined ? rcodeName(t.rcode) : t.outcome;
  return `${t.server}${how} ${outcome}${t.error ? ` (${t.error})` : ''}`;
}

function destination(d: SipDestinationInfo): SipDestinationInfo {
  return { transport: d.transport, address: d.address, port: d.port, ...(d.host ? { host: d.host } : {}) };
}

/** "udp 192.0.2.1:5060", "tcp [2001:db8::1]:5060". */
function where(d: SipDestinationInfo): string {
  return `${d.transport} ${d.address.includes(':') ? `[${d.address}]` : d.address}:${d.port}`;
}

/** "ECONNREFUSED [DNS_ERR_NETWORK]": the message, and the code when there is one. */
function errorText(error: unknown): string {
  if (!(error instanceof Error)) return String(error);
  const code = (error as { code?: unknown }).code;
  return typeof code === 'string' ? `${error.message} [${code}]` : error.message;
}
