/**
 * ValidatingResolver: a DNSSEC-validating stub resolver in TypeScript, as a dnscore plugin. It
 * asks recursive nameservers through resolver-system's hardened transport with DO and CD set,
 * and validates every answer itself from trust anchors (RFC 4033-4035, 5155, 6672, 6840), with
 * the engine in ./validate. Registered after libunbound and before the system backend.
 */
import {
  Rcode,
  className,
  typeName,
  StateError,
  describeQuery,
  makeQuery,
  formatName,
  questionKey,
  SharedAnswer,
  SharedAnswers,
  systemClock,
  throwIfAborted,
  type Availability,
  type Clock,
  type DnsQuery,
  type Labels,
  type PluginAnswer,
  type ResolverPlugin,
  type ServerAttempt,
  serversOf,
  withServers,
  wireName,
} from '@dnscore/core/plugin';
import { queryChannel } from '@dnscore/core/diagnostics';
import { SystemResolver } from '@dnscore/resolver-system';
import {
  additionalValidated,
  weakest,
  walkAnswer,
  type AnswerVerdict,
  type SynthesizedCname,
} from './answer-verdict.js';
import { ChainOfTrust } from './chain-of-trust.js';
import {
  ANSWER_CACHE_SOURCE,
  BOGUS_ANSWER_TTL_S,
  DEFAULT_ANSWER_CACHE_BYTES,
  DEFAULT_ANSWER_CACHE_SIZE,
  DEFAULT_KEY_CACHE_SIZE,
  DEFAULT_MAX_CHAIN_LINKS,
  DEFAULT_MAX_ZONE_CUTS,
  DEFAULT_VALIDATING_NAME,
  DEFAULT_VALIDATING_PRIORITY,
  MAX_VERDICT_TTL_S,
} from './defaults.js';
import { InsecureAnswerError, UpstreamNotValidatingError, ValidatingOptionError } from './errors.js';
import { checkOptions, type ValidatingResolverConfig, type ValidatingResolverOptions } from './options.js';
import { joinAnswers } from './packet.js';
import { probeUpstream, type ProbeOutcome } from './upstream-probe.js';
import { fqdn, keyOf } from './names.js';
import { closestAnchor, loadAnchors, type AnchorSet } from './trust-anchors.js';
import { Upstream, type Fetched } from './upstream.js';
import { ValidatedAnswers, type Validated } from './validated-answers.js';
import { boundTtls } from './validated-ttl.js';
import { DEFAULT_CLOCK_SKEW_SECONDS, DnssecType, ownerOf, type Rr } from './validate/index.js';
import { knownOwner } from './validate/owner.js';

/** "sip1.biloxi.example. A IN", as libunbound writes the question in its reasons. */
function questionText(query: DnsQuery): string {
  return `${fqdn(query.labels)} ${typeName(query.type)} ${className(query.class)}`;
}

/** A question's validation as its callers share it: `servers` only while traced. */
interface Outcome {
  readonly validated: Validated;
  readonly kept: boolean;
  readonly servers: readonly ServerAttempt[] | undefined;
}

/** The servers asked for the messages, then `more` (a failed question's); undefined when nothing was traced. */
function serversAsked(
  messages: readonly Fetched[],
  more: readonly ServerAttempt[] | undefined,
): readonly ServerAttempt[] | undefined {
  const lists = messages.flatMap((message) => (message.servers ? [message.servers] : []));
  if (more) lists.push(more);
  return lists.length === 0 ? undefined : lists.flat();
}

/** Ancestors asked ahead (DS and DNSKEY) with a cold question: the chain in the first round. */
const PREFETCH_DEPTH = 3;

export class ValidatingResolver implements ResolverPlugin {
  readonly name: string;
  readonly priority: number;
  readonly #options: ValidatingResolverOptions;
  readonly #system: SystemResolver;
  readonly #upstream: Upstream;
  readonly #chain: ChainOfTrust;
  readonly #anchors: AnchorSet;
  readonly #closing = new AbortController();
  readonly #maxLinks: number;
  readonly #clock: Clock;
  readonly #answers: ValidatedAnswers;
  readonly #inFlight = new SharedAnswers<Outcome>();
  #joined = 0;
  #probe: Promise<ProbeOutcome> | undefined;
  #probed: ProbeOutcome | undefined;
  #closed = false;

  /**
   * `config` says where to ask, `options` how to validate; both are checked here
   * (ValidatingOptionError, or the system transport's InvalidArgumentError for an address).
   * Unless `probe: false`, the trust anchor's DNSKEY is asked at once.
   */
  constructor(config: ValidatingResolverConfig = {}, options: ValidatingResolverOptions = {}) {
    checkOptions(options);
    this.#options = options;
    this.name = options.name ?? DEFAULT_VALIDATING_NAME;
    this.priority = options.priority ?? DEFAULT_VALIDATING_PRIORITY;
    this.#anchors = loadAnchors(options.trustAnchors, options.trustAnchorFiles, options.negativeTrustAnchors);
    // Every answer would be insecure, so every question would fail: a mistake to name now.
    if (options.requireSecure === true && this.#anchors.byZone.size === 0)
      throw new ValidatingOptionError('requireSecure', 'no trust anchor is given, so no answer could be secure');
    this.#maxLinks = options.maxChainLinks ?? DEFAULT_MAX_CHAIN_LINKS;
    const clock = options.clock ?? systemClock;
    this.#system = new SystemResolver(
      {
        ...(config.nameservers ? { nameservers: config.nameservers } : {}),
        ...(config.resolvConf ? { resolvConf: config.resolvConf } : {}),
      },
      {
        name: `${this.name} (transport)`,
        dnssecRecords: true,
        ...(options.timeoutMs !== undefined ? { timeoutMs: options.timeoutMs } : {}),
        ...(options.attempts !== undefined ? { attempts: options.attempts } : {}),
        ...(options.timers ? { timers: options.timers } : {}),
        ...(options.clock ? { clock: options.clock } : {}),
      },
    );
    this.#clock = clock;
    this.#answers = new ValidatedAnswers(
      clock,
      options.answerCacheSize ?? DEFAULT_ANSWER_CACHE_SIZE,
      options.answerCacheBytes ?? DEFAULT_ANSWER_CACHE_BYTES,
    );
    const size = options.keyCacheSize ?? DEFAULT_KEY_CACHE_SIZE;
    this.#upstream = new Upstream(this.#system, clock, size);
    this.#chain = new ChainOfTrust({
      anchors: this.#anchors,
      upstream: this.#upstream,
      clock,
      clockSkewSeconds: options.clockSkewSeconds ?? DEFAULT_CLOCK_SKEW_SECONDS,
      budget: options.budget ?? {},
      maxNsec3Iterations: options.maxNsec3Iterations,
      maxEntries: size,
      maxZoneCuts: options.maxZoneCuts ?? DEFAULT_MAX_ZONE_CUTS,
      signal: this.#closing.signal,
    });
    if (options.probe !== false) void this.#probeOnce();
  }

  /** Unavailable when closed, or when the probe found that the upstream strips DNSSEC records. */
  available(): Availability {
    if (this.#closed) return { available: false, reason: 'the validating resolver is closed' };
    if (this.#probed?.kind === 'unusable') {
      return { available: false, reason: this.#probed.reason, ...(this.#validationAsked ? { failClosed: true } : {}) };
    }
    return { available: true };
  }

  /** Where the trust anchors come from: "options", the root.ds file or "built-in". */
  get trustAnchorSource(): string {
    return this.#anchors.source;
  }

  /** Messages sent upstream so far (data and chain questions). */
  get queriesSent(): number {
    return this.#upstream.sent;
  }

  /** Signature checks saved: RRsets found already verified with the same keys (warm questions). */
  get verifiedReused(): number {
    return this.#chain.verified.hits;
  }

  /**
   * The validated answers: entries and bytes held, questions answered from them (`hits`), and
   * questions that joined an identical one in flight (`joined`).
   */
  get answerCacheStats(): { entries: number; bytes: number; hits: number; joined: number } {
    return { entries: this.#answers.size, bytes: this.#answers.bytes, hits: this.#answers.hits, joined: this.#joined };
  }

  /** What the probe found: pending until it settles. */
  async upstreamStatus(): Promise<ProbeOutcome> {
    return this.#probeOnce();
  }

  /**
   * Asks the upstream with DO and CD, validates the answer link by link and hands the core the
   * rcode, the verdict (secure, insecure, or bogus with whyBogus and the EDE code) and the
   * answer packet. A question validated before is answered from the validated answers while
   * their lifetime runs (`age` set, the trace says so); identical questions in flight share one
   * validation. Rejects when no answer was obtained, with UpstreamNotValidatingError when the
   * upstream strips DNSSEC records, with InsecureAnswerError under `requireSecure`.
   */
  async resolve(query: DnsQuery, signal: AbortSignal): Promise<PluginAnswer> {
    throwIfAborted(signal);
    if (this.#closed) throw new StateError('resolve() after close()');
    const key = questionKey(query);
    const hit = this.#answers.get(key);
    if (hit) return this.#served(query, hit.validated, hit.age, true);
    const { validated, kept, servers } = await new Promise<Outcome>((answer, fail) => {
      const start = (shared: SharedAnswer<Outcome>): void => {
        this.#validate(query, key, shared.signal).then(
          (outcome) => shared.answer(outcome),
          (error: unknown) => shared.fail(error),
        );
      };
      if (this.#inFlight.join(key, signal, { answer, fail }, newSharedOutcome, start)) this.#joined++;
    });
    return this.#served(query, validated, kept ? 0 : undefined, servers);
  }

  /**
   * The answer handed to the core, once per caller: InsecureAnswerError under `requireSecure`;
   * `age` for a kept answer (the core then parses its packet once for all hits); the trace's
   * servers are the validated answers for a hit (`true`), the servers asked for a miss.
   */
  #served(
    query: DnsQuery,
    validated: Validated,
    age: number | undefined,
    asked: true | readonly ServerAttempt[] | undefined,
  ): PluginAnswer {
    const { answer, whyInsecure } = validated;
    if (
      this.#options.requireSecure === true &&
      whyInsecure !== undefined &&
      (answer.rcode === Rcode.NOERROR || answer.rcode === Rcode.NXDOMAIN)
    ) {
      throw withServers(
        new InsecureAnswerError(
          `${describeQuery(query)}: the answer is insecure (${whyInsecure}) and requireSecure is set`,
        ),
        asked === true ? undefined : asked,
      );
    }
    let servers: readonly ServerAttempt[] | undefined;
    if (asked !== true) servers = asked;
    else if (queryChannel.hasSubscribers) {
      servers = [{ server: ANSWER_CACHE_SOURCE, transport: 'cache', outcome: 'answer', rcode: answer.rcode }];
    }
    if (servers === undefined) return age === undefined ? answer : { ...answer, age };
    return age === undefined ? { ...answer, servers } : { ...answer, age, servers };
  }

  /**
   * Asks and validates one question (shared by the identical ones in flight), and keeps the
   * outcome. While traced, the servers asked for its data (the question, then each link of a
   * chain the upstream did not follow) come with it, or attached to the error of a question
   * that got no answer; the chain of trust's DS and DNSKEY questions, shared by every
   * question and kept, are not listed.
   */
  async #validate(query: DnsQuery, key: string, signal: AbortSignal): Promise<Outcome> {
    this.#prefetch(query.labels);
    const asked = this.#upstream.ask(query, signal);
    const probe = this.#options.probe === false ? undefined : await this.#probeOnce();
    if (probe?.kind === 'unusable') {
      asked.catch(() => {});
      throw new UpstreamNotValidatingError(probe.reason, this.#validationAsked);
    }
    const first = await asked;
    const options = this.#chain.verifyOptions();
    const messages: Fetched[] = [first];
    let walked = await walkAnswer(first, query.labels, query.type, this.#chain, options, 0, this.#maxLinks);
    const parts: AnswerVerdict[] = [...walked.parts];
    const synthesized: SynthesizedCname[] = [...walked.synthesized];
    while (walked.unfinished) {
      // The upstream did not follow the chain (an authoritative server): its end is asked here.
      const end = makeQuery(formatName(walked.end), query.type, query.class);
      const next = await this.#upstream.ask(end, signal).catch((error: unknown) => {
        throw withServers(error as object, serversAsked(messages, serversOf(error)));
      });
      messages.push(next);
      walked = await walkAnswer(next, walked.end, query.type, this.#chain, options, walked.links, this.#maxLinks);
      parts.push(...walked.parts);
      synthesized.push(...walked.synthesized);
    }
    const verdict = weakest(parts);
    // Signed additional addresses (an SRV answer's targets) validated too: no question of their own.
    const additionalSecure =
      verdict.status === 'secure' && messages.length === 1 && (await additionalValidated(first, this.#chain, options));
    const last = messages[messages.length - 1]!;
    // TTLs bounded by the RRSIGs (RFC 4035 5.3.3) in what the core gets too, so its cache keeps no longer.
    const bounded = boundTtls(
      messages,
      this.#clock.now(),
      this.#options.clockSkewSeconds ?? DEFAULT_CLOCK_SKEW_SECONDS,
      verdict.status === 'bogus' ? BOGUS_ANSWER_TTL_S : MAX_VERDICT_TTL_S,
    );
    const validated: Validated = {
      answer: {
        rcode: last.rcode,
        secure: verdict.status === 'secure',
        bogus: verdict.status === 'bogus',
        ...(verdict.status === 'bogus'
          ? { whyBogus: `validation failure <${questionText(query)}>: ${verdict.whyBogus}`, ede: verdict.ede ?? 6 }
          : {}),
        ...(additionalSecure ? { additionalSecure } : {}),
        answer: joinAnswers(query, bounded.messages, synthesizedCnames(synthesized, bounded.messages, query.class)),
      },
      ...(verdict.status === 'insecure' ? { whyInsecure: verdict.whyInsecure ?? 'not validated' } : {}),
    };
    // A failure is kept briefly whatever its TTLs say (RFC 9520); the rest for their lifetime.
    const kept =
      !this.#closed &&
      (last.rcode === Rcode.NOERROR || last.rcode === Rcode.NXDOMAIN) &&
      this.#answers.set(key, validated, verdict.status === 'bogus' ? BOGUS_ANSWER_TTL_S : bounded.lifetime);
    return { validated, kept, servers: serversAsked(messages, undefined) };
  }

  /** Cancels the questions in flight (their callers get StateError) and refuses new ones. */
  close(): void {
    if (this.#closed) return;
    this.#closed = true;
    this.#closing.abort(new StateError('the validating resolver is closed'));
    this.#answers.clear();
    this.#system.close();
  }

  /** Validation was asked for explicitly: no unvalidated backend may answer in its place. */
  get #validationAsked(): boolean {
    const o = this.#options;
    return o.requireSecure === true || o.trustAnchors !== undefined || o.trustAnchorFiles !== undefined;
  }

  /** The probe, once; asked again after an outcome that says nothing (no answer). */
  #probeOnce(): Promise<ProbeOutcome> {
    if (this.#probe) return this.#probe;
    const zone = this.#probeZone();
    if (!zone) {
      this.#probed = { kind: 'dnssec' };
      return Promise.resolve(this.#probed);
    }
    const probe = probeUpstream(this.#upstream, zone, this.#closing.signal).then((outcome) => {
      this.#probed = outcome;
      if (outcome.kind === 'unknown') this.#probe = undefined;
      else if (outcome.kind === 'dnssec') void this.#chain.zoneOf(zone).catch(() => {});
      return outcome;
    });
    this.#probe = probe;
    return probe;
  }

  /** The zone of the first trust anchor (the root by default). */
  #probeZone(): Labels | undefined {
    const first = this.#anchors.byZone.values().next().value;
    return first?.[0]?.zone;
  }

  /** The DS and DNSKEY of the name's nearest ancestors below its anchor, asked with the question. */
  #prefetch(name: Labels): void {
    const anchor = closestAnchor(this.#anchors, name);
    if (!anchor) return;
    let asked = 0;
    for (let count = anchor.length + 1; count < name.length && asked < PREFETCH_DEPTH; count++) {
      const ancestor = name.slice(name.length - count);
      if (ancestor[0]![0] === 0x5f) break; // "_sip": service labels are not zone cuts
      if (this.#chain.atBound(ancestor.slice(1))) break; // a cut below would be beyond maxZoneCuts
      if (this.#chain.known(ancestor)) continue;
      asked++;
      for (const type of [DnssecType.DS, DnssecType.DNSKEY])
        this.#upstream.chain(ancestor, type, this.#closing.signal).catch(() => {});
    }
  }
}

/**
 * The CNAME records of `synthesized` (RFC 6672 section 3.2), each with its DNAME's TTL as
 * bounded in `messages` (its RRSIGs' original TTL and expiration counted).
 */
function synthesizedCnames(
  synthesized: readonly SynthesizedCname[],
  messages: readonly Fetched[],
  rrclass: number,
): Rr[] {
  return synthesized.map(({ dnameOwner, owner, target }) => {
    const key = keyOf(dnameOwner);
    let ttl = Number.POSITIVE_INFINITY;
    for (const message of messages) {
      for (const record of message.answer) {
        if (record.rrtype === DnssecType.DNAME && keyOf(ownerOf(record)) === key) ttl = Math.min(ttl, record.ttl);
      }
    }
    if (!Number.isFinite(ttl)) ttl = 0;
    return knownOwner(
      { name: formatName(owner), rrtype: DnssecType.CNAME, class: rrclass, ttl, rdata: wireName(target) },
      owner,
    );
  });
}

/** A validation shared by the identical questions in flight. */
function newSharedOutcome(): SharedAnswer<Outcome> {
  return new SharedAnswer<Outcome>();
}
