/**
 * DnscoreInstrumentation: subscribes to dnscore's diagnostics channels and turns them into
 * spans (one per DNS query, one per SIP location, failover tries as span events) and metrics.
 * Only @opentelemetry/api is used: the SDK, exporters and context manager are the caller's.
 */
import { AsyncLocalStorage } from 'node:async_hooks';
import diagnostics from 'node:diagnostics_channel';
import {
  SpanKind,
  SpanStatusCode,
  context,
  metrics,
  trace,
  type Attributes,
  type Context,
  type MeterProvider,
  type Span,
  type Tracer,
  type TracerProvider,
} from '@opentelemetry/api';
import { rcodeName } from '@dnscore/core';
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
  type QueryAttempt,
  type QueryTraceContext,
  type SipLocateTraceContext,
} from '@dnscore/core/diagnostics';
import { ATTR, destinationText, errorType, queryErrorType, questionType } from './attributes.js';
import { makeInstruments, type Instruments } from './metrics.js';

const NAME = '@dnscore/otel';
const VERSION = '0.1.0';

export interface DnscoreInstrumentationOptions {
  /** Default: the global one (trace.getTracerProvider()). */
  readonly tracerProvider?: TracerProvider;
  /** Default: the global one (metrics.getMeterProvider()). */
  readonly meterProvider?: MeterProvider;
  /** Milliseconds of a monotonic clock, for durations (default performance.now). */
  readonly now?: () => number;
}

interface Open {
  readonly span: Span;
  readonly startedAt: number;
}

type Handlers<C extends object> = {
  start(ctx: C): void;
  end(ctx: C): void;
  asyncStart(ctx: C): void;
  asyncEnd(ctx: C): void;
  error(ctx: C): void;
};

export class DnscoreInstrumentation {
  readonly #options: DnscoreInstrumentationOptions;
  readonly #now: () => number;
  #tracer: Tracer | undefined;
  #instruments: Instruments | undefined;
  readonly #open = new WeakMap<object, Open>();
  /**
   * The context of the SIP location being run, entered by its trace's start (bindStore) and
   * kept across its awaits: the queries it makes start their spans under its span, whatever
   * context manager the application registered (or none), cache hits and merged queries too.
   */
  readonly #locating = new AsyncLocalStorage<Context>();
  #enabled = false;
  /** Spans started and not yet ended; after disable() the traces stay subscribed until it is 0. */
  #openSpans = 0;
  #tracesSubscribed = false;

  constructor(options: DnscoreInstrumentationOptions = {}) {
    this.#options = options;
    this.#now = options.now ?? (() => performance.now());
  }

  get enabled(): boolean {
    return this.#enabled;
  }

  /** Subscribes to every channel (again a no-op while enabled). */
  enable(): this {
    if (this.#enabled) return this;
    const tracerProvider = this.#options.tracerProvider ?? trace.getTracerProvider();
    const meterProvider = this.#options.meterProvider ?? metrics.getMeterProvider();
    this.#tracer = tracerProvider.getTracer(NAME, VERSION);
    this.#instruments = makeInstruments(meterProvider.getMeter(NAME, VERSION));
    if (!this.#tracesSubscribed) {
      queryChannel.subscribe(this.#queryHandlers);
      sipLocateChannel.subscribe(this.#locateHandlers);
      this.#tracesSubscribed = true;
    }
    sipLocateChannel.start.bindStore(this.#locating, (ctx) => this.#locateContext(ctx as SipLocateTraceContext));
    for (const [name, listener] of this.#events) diagnostics.subscribe(name, listener);
    this.#enabled = true;
    return this;
  }

  /**
   * Unsubscribes: no span starts and nothing is counted from now on. The spans still open end,
   * measured, when their query or location does; then the traces are unsubscribed too.
   */
  disable(): void {
    if (!this.#enabled) return;
    sipLocateChannel.start.unbindStore(this.#locating);
    // Node 20's AsyncLocalStorage hooks every promise while enabled: off until enable() again.
    this.#locating.disable();
    for (const [name, listener] of this.#events) diagnostics.unsubscribe(name, listener);
    this.#enabled = false;
    this.#unsubscribeTracesIfIdle();
  }

  #unsubscribeTracesIfIdle(): void {
    if (this.#enabled || this.#openSpans > 0 || !this.#tracesSubscribed) return;
    queryChannel.unsubscribe(this.#queryHandlers);
    sipLocateChannel.unsubscribe(this.#locateHandlers);
    this.#tracesSubscribed = false;
  }

  #opened(ctx: object, span: Span): void {
    this.#open.set(ctx, { span, startedAt: this.#now() });
    this.#openSpans++;
  }

  /** The span `ctx` opened, taken out of the open ones; undefined if it opened none. */
  #closing(ctx: object): Open | undefined {
    const open = this.#open.get(ctx);
    if (!open) return undefined;
    this.#open.delete(ctx);
    this.#openSpans--;
    return open;
  }

  readonly #queryHandlers: Handlers<QueryTraceContext> = {
    start: (ctx) => {
      if (!this.#enabled) return;
      const span = this.#tracer!.startSpan(
        `DNS ${questionType(ctx)}`,
        {
          kind: SpanKind.CLIENT,
          attributes: { [ATTR.questionName]: ctx.query.name, [ATTR.questionType]: questionType(ctx) },
        },
        this.#locating.getStore() ?? context.active(),
      );
      this.#opened(ctx, span);
    },
    end: () => {},
    asyncStart: () => {},
    error: () => {},
    // Node publishes asyncEnd for every traced promise, fulfilled or rejected.
    asyncEnd: (ctx) => {
      const open = this.#closing(ctx);
      if (!open) return;
      const { span } = open;
      const failure = queryErrorType(ctx);
      // A span no one records (no SDK, or not sampled) is given nothing: no cost to build it.
      if (span.isRecording()) {
        for (const attempt of ctx.attempts) {
          span.addEvent('dnscore.attempt', {
            [ATTR.resolver]: attempt.backend,
            ...(attempt.error
              ? { [ATTR.errorType]: errorType(attempt.error), 'exception.message': attempt.error.message }
              : {}),
          });
          addServerEvents(span, attempt);
        }
        const result = ctx.result;
        span.setAttributes({
          [ATTR.cache]: ctx.cache,
          [ATTR.attempts]: ctx.attempts.length,
          ...(result?.stale ? { [ATTR.stale]: true } : {}),
          ...(result
            ? {
                [ATTR.resolver]: result.resolver,
                [ATTR.rcode]: rcodeName(result.rcode),
                [ATTR.dnssec]: result.dnssec,
                ...(result.ede !== undefined ? { [ATTR.ede]: result.ede } : {}),
              }
            : {}),
        });
        if (failure) {
          span.setAttribute(ATTR.errorType, failure);
          if (ctx.error instanceof Error) span.recordException(ctx.error);
          span.setStatus({ code: SpanStatusCode.ERROR, message: failureMessage(ctx) ?? failure });
        }
      }
      span.end();
      const attributes: Attributes = { [ATTR.questionName]: ctx.query.name };
      if (failure) attributes[ATTR.errorType] = failure;
      this.#instruments!.lookupDuration.record((this.#now() - open.startedAt) / 1000, attributes);
      this.#unsubscribeTracesIfIdle();
    },
  };

  /**
   * Opens the location's span, as a child of the caller's active context, and returns the
   * context that holds it (the store entered for the location's run). Called by start's
   * runStores before the start subscribers, so it is where the span begins.
   */
  #locateContext(ctx: SipLocateTraceContext): Context {
    const parent = context.active();
    const span = this.#tracer!.startSpan(
      'SIP locate',
      {
        kind: SpanKind.INTERNAL,
        attributes: { [ATTR.sipUri]: withoutUser(ctx.uri), ...(ctx.planned ? { [ATTR.sipPlanned]: true } : {}) },
      },
      parent,
    );
    this.#opened(ctx, span);
    return trace.setSpan(parent, span);
  }

  readonly #locateHandlers: Handlers<SipLocateTraceContext> = {
    start: () => {},
    end: () => {},
    asyncStart: () => {},
    error: () => {},
    asyncEnd: (ctx) => {
      const open = this.#closing(ctx);
      if (!open) return;
      const { span } = open;
      if (span.isRecording()) {
        const result = ctx.result;
        if (result) {
          // server.address is the server's domain name when there is one (the SRV target, the
          // URI's host), its address otherwise; the address it resolved to is network.peer.address.
          const first = result.targets[0];
          span.setAttributes({
            [ATTR.sipTargets]: result.targets.length,
            [ATTR.sipRoundTrips]: result.roundTrips,
            [ATTR.sipQueries]: result.queries,
            ...(result.rule ? { [ATTR.sipRule]: result.rule } : {}),
            ...(first
              ? {
                  [ATTR.networkTransport]: first.transport,
                  [ATTR.serverAddress]: first.host,
                  [ATTR.serverPort]: first.port,
                  [ATTR.peerAddress]: first.address,
                }
              : {}),
          });
        }
        const error = ctx.error ?? result?.error;
        if (error !== undefined) {
          span.setAttribute(ATTR.errorType, errorType(error));
          if (error instanceof Error) span.recordException(error);
          span.setStatus({
            code: SpanStatusCode.ERROR,
            message: error instanceof Error ? error.message : String(error),
          });
        }
      }
      span.end();
      this.#unsubscribeTracesIfIdle();
    },
  };

  readonly #events: readonly [string, (message: unknown) => void][] = (
    [
      [
        CHANNELS.cacheHit,
        (m: CacheHitEvent) =>
          this.#instruments!.cacheLookups.add(1, { [ATTR.cache]: 'hit', [ATTR.resolver]: m.backend }),
      ],
      [
        CHANNELS.cacheMiss,
        (m: CacheMissEvent) =>
          this.#instruments!.cacheLookups.add(1, { [ATTR.cache]: 'miss', [ATTR.resolver]: m.backend }),
      ],
      [
        CHANNELS.cacheStale,
        (m: CacheStaleEvent) =>
          this.#instruments!.staleAnswers.add(1, { [ATTR.resolver]: m.backend, [ATTR.staleReason]: m.reason }),
      ],
      [
        CHANNELS.cachePrefetch,
        (m: CachePrefetchEvent) =>
          this.#instruments!.prefetches.add(1, { [ATTR.resolver]: m.backend, [ATTR.prefetchEvent]: m.event }),
      ],
      [
        CHANNELS.fallback,
        (m: FallbackEvent) =>
          this.#instruments!.fallbacks.add(1, { [ATTR.resolver]: m.plugin, [ATTR.errorType]: errorType(m.error) }),
      ],
      [
        CHANNELS.bogus,
        (m: BogusEvent) =>
          this.#instruments!.bogus.add(1, {
            [ATTR.resolver]: m.resolver,
            ...(m.ede !== undefined ? { [ATTR.ede]: m.ede } : {}),
          }),
      ],
      [CHANNELS.failover, (m: FailoverEvent) => this.#failover(m)],
      [
        CHANNELS.penalty,
        (m: PenaltyEvent) =>
          this.#instruments!.penalties.add(1, {
            [ATTR.penaltyEvent]: m.event,
            [ATTR.penaltyReason]: m.reason,
            ...(m.event === 'leave' ? { [ATTR.penaltyEntryReason]: m.entry.reason } : {}),
          }),
      ],
      [
        CHANNELS.affinity,
        (m: AffinityPinEvent) =>
          this.#instruments!.affinityPins.add(1, {
            [ATTR.affinityLearned]: m.learned,
            [ATTR.networkTransport]: m.destination.transport,
          }),
      ],
    ] as [string, (message: never) => void][]
  ).map(([name, listener]) => [name, listener as (message: unknown) => void]);

  /** Counted; an event on the active span (the caller's request), or on a span of its own. */
  #failover(m: FailoverEvent): void {
    this.#instruments!.failovers.add(1, { [ATTR.failoverReason]: m.reason, [ATTR.networkTransport]: m.from.transport });
    const active = trace.getSpan(context.active());
    const span = active?.isRecording() ? active : this.#tracer!.startSpan('SIP failover', { kind: SpanKind.INTERNAL });
    if (!span.isRecording()) {
      span.end();
      return;
    }
    const attributes: Attributes = {
      [ATTR.sipUri]: withoutUser(m.uri),
      [ATTR.failoverFrom]: destinationText(m.from),
      [ATTR.failoverReason]: m.reason,
      [ATTR.failoverIndex]: m.index,
      [ATTR.failoverElapsed]: m.elapsedMs,
      ...(m.to ? { [ATTR.failoverTo]: destinationText(m.to) } : {}),
    };
    span.addEvent('dnscore.sip.failover', attributes);
    if (span !== active) span.end();
  }
}

/** Subscribes a new DnscoreInstrumentation and returns it (disable() to stop). */
export function instrumentDnscore(options: DnscoreInstrumentationOptions = {}): DnscoreInstrumentation {
  return new DnscoreInstrumentation(options).enable();
}

/** One `dnscore.server` event per try the backend says it made, after its attempt's event. */
function addServerEvents(span: Span, attempt: QueryAttempt): void {
  for (const tried of attempt.servers ?? []) {
    span.addEvent('dnscore.server', {
      [ATTR.resolver]: attempt.backend,
      [ATTR.server]: tried.server,
      [ATTR.networkTransport]: tried.transport,
      [ATTR.serverOutcome]: tried.outcome,
      ...(tried.rcode !== undefined ? { [ATTR.rcode]: rcodeName(tried.rcode) } : {}),
      ...(tried.error !== undefined ? { 'exception.message': tried.error } : {}),
    });
  }
}

/** A bogus answer's reason, or a thrown error's message. */
function failureMessage(ctx: QueryTraceContext): string | undefined {
  if (ctx.error instanceof Error) return ctx.error.message;
  if (ctx.result?.bogus) return ctx.result.whyBogus ?? 'DNSSEC validation failed';
  return undefined;
}

/**
 * "sip:biloxi.example;transport=udp" from "sip:bob@biloxi.example;transport=udp": no user in
 * telemetry. The user part ends at the "@" only: it may hold ";" and "?" (RFC 3261 section 25.1,
 * user-unreserved: "sip:+1-212-555-1212;npdi@gw.example"), and no other part of a SIP URI holds "@".
 */
export function withoutUser(uri: string): string {
  return uri.replace(/^(sips?:)[^@]*@/i, '$1');
}
