/**
 * DnscoreInstrumentation: subscribes to dnscore's diagnostics channels and turns them into
 * spans (one per DNS query, one per SIP location, failover tries as span events) and metrics.
 * Only @opentelemetry/api is used: the SDK, exporters and context manager are the caller's.
 */
import diagnostics from 'node:diagnostics_channel';
import {
  SpanKind,
  SpanStatusCode,
  context,
  metrics,
  trace,
  type Attributes,
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
  type BogusEvent,
  type CacheHitEvent,
  type CacheMissEvent,
  type FailoverEvent,
  type FallbackEvent,
  type PenaltyEvent,
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
  #enabled = false;

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
    queryChannel.subscribe(this.#queryHandlers);
    sipLocateChannel.subscribe(this.#locateHandlers);
    for (const [name, listener] of this.#events) diagnostics.subscribe(name, listener);
    this.#enabled = true;
    return this;
  }

  /** Unsubscribes; spans already open are ended by nobody, so disable between requests. */
  disable(): void {
    if (!this.#enabled) return;
    queryChannel.unsubscribe(this.#queryHandlers);
    sipLocateChannel.unsubscribe(this.#locateHandlers);
    for (const [name, listener] of this.#events) diagnostics.unsubscribe(name, listener);
    this.#enabled = false;
  }

  readonly #queryHandlers: Handlers<QueryTraceContext> = {
    start: (ctx) => {
      const span = this.#tracer!.startSpan(`DNS ${questionType(ctx)}`, {
        kind: SpanKind.CLIENT,
        attributes: { [ATTR.questionName]: ctx.query.name, [ATTR.questionType]: questionType(ctx) },
      });
      this.#open.set(ctx, { span, startedAt: this.#now() });
    },
    end: () => {},
    asyncStart: () => {},
    error: () => {},
    // Node publishes asyncEnd for every traced promise, fulfilled or rejected.
    asyncEnd: (ctx) => {
      const open = this.#open.get(ctx);
      if (!open) return;
      this.#open.delete(ctx);
      const { span } = open;
      const failure = queryErrorType(ctx);
      for (const attempt of ctx.attempts) {
        span.addEvent('dnscore.attempt', {
          [ATTR.resolver]: attempt.backend,
          ...(attempt.error
            ? { [ATTR.errorType]: errorType(attempt.error), 'exception.message': attempt.error.message }
            : {}),
        });
      }
      const result = ctx.result;
      span.setAttributes({
        [ATTR.cache]: ctx.cache,
        [ATTR.attempts]: ctx.attempts.length,
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
      span.end();
      const attributes: Attributes = { [ATTR.questionName]: ctx.query.name };
      if (failure) attributes[ATTR.errorType] = failure;
      this.#instruments!.lookupDuration.record((this.#now() - open.startedAt) / 1000, attributes);
    },
  };

  readonly #locateHandlers: Handlers<SipLocateTraceContext> = {
    start: (ctx) => {
      const span = this.#tracer!.startSpan('SIP locate', {
        kind: SpanKind.INTERNAL,
        attributes: { [ATTR.sipUri]: withoutUser(ctx.uri) },
      });
      this.#open.set(ctx, { span, startedAt: this.#now() });
    },
    end: () => {},
    asyncStart: () => {},
    error: () => {},
    asyncEnd: (ctx) => {
      const open = this.#open.get(ctx);
      if (!open) return;
      this.#open.delete(ctx);
      const { span } = open;
      const result = ctx.result;
      if (result) {
        const first = result.targets[0];
        span.setAttributes({
          [ATTR.sipTargets]: result.targets.length,
          [ATTR.sipRoundTrips]: result.roundTrips,
          [ATTR.sipQueries]: result.queries,
          ...(result.rule ? { [ATTR.sipRule]: result.rule } : {}),
          ...(first
            ? {
                [ATTR.networkTransport]: first.transport,
                [ATTR.serverAddress]: first.address,
                [ATTR.serverPort]: first.port,
              }
            : {}),
        });
      }
      const error = ctx.error ?? result?.error;
      if (error !== undefined) {
        span.setAttribute(ATTR.errorType, errorType(error));
        if (error instanceof Error) span.recordException(error);
        span.setStatus({ code: SpanStatusCode.ERROR, message: error instanceof Error ? error.message : String(error) });
      }
      span.end();
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
          this.#instruments!.penalties.add(1, { [ATTR.penaltyEvent]: m.event, [ATTR.penaltyReason]: m.reason }),
      ],
    ] as [string, (message: never) => void][]
  ).map(([name, listener]) => [name, listener as (message: unknown) => void]);

  /** Counted; an event on the active span (the caller's request), or on a span of its own. */
  #failover(m: FailoverEvent): void {
    this.#instruments!.failovers.add(1, { [ATTR.failoverReason]: m.reason, [ATTR.networkTransport]: m.from.transport });
    const attributes: Attributes = {
      [ATTR.sipUri]: withoutUser(m.uri),
      [ATTR.failoverFrom]: destinationText(m.from),
      [ATTR.failoverReason]: m.reason,
      [ATTR.failoverIndex]: m.index,
      [ATTR.failoverElapsed]: m.elapsedMs,
      ...(m.to ? { [ATTR.failoverTo]: destinationText(m.to) } : {}),
    };
    const active = trace.getSpan(context.active());
    if (active?.isRecording()) {
      active.addEvent('dnscore.sip.failover', attributes);
      return;
    }
    const span = this.#tracer!.startSpan('SIP failover', { kind: SpanKind.INTERNAL });
    span.addEvent('dnscore.sip.failover', attributes);
    span.end();
  }
}

/** Subscribes a new DnscoreInstrumentation and returns it (disable() to stop). */
export function instrumentDnscore(options: DnscoreInstrumentationOptions = {}): DnscoreInstrumentation {
  return new DnscoreInstrumentation(options).enable();
}

/** A bogus answer's reason, or a thrown error's message. */
function failureMessage(ctx: QueryTraceContext): string | undefined {
  if (ctx.error instanceof Error) return ctx.error.message;
  if (ctx.result?.bogus) return ctx.result.whyBogus ?? 'DNSSEC validation failed';
  return undefined;
}

/** "sip:biloxi.example;transport=udp" from "sip:bob@biloxi.example;transport=udp": no user in telemetry. */
export function withoutUser(uri: string): string {
  return uri.replace(/^(sips?:)[^@;?]*@/i, '$1');
}
