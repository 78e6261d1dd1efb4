/** The fixed prose of BENCHMARKS.md: how to run, the method, how to read the figures, the gaps. */

export const HOW_TO_RUN = `## How to run

\`\`\`sh
npm run bench                       # every part, about 9 minutes; writes BENCHMARKS.md
npm run bench -- --quick            # fewer runs, no 32-second cases, under a minute
                                    # (writes bench/dist/BENCHMARKS.quick.md)
npm run bench -- --only cold,warm   # some parts (see bench/README.md)
                                    # (writes bench/dist/BENCHMARKS.partial.md)
\`\`\`

It needs what the integration tests need: nsd, the unbound daemon (\`/usr/sbin/unbound\`), ldnsutils
(zone signing), dig, libunbound and the built \`unbound\` binding. It starts every server itself on
127.0.0.0/8 and stops each by its PID. Run it on a quiet machine: other work skews every figure
(the load average at the start is recorded below). bench/README.md says how each part works and
how the profiles quoted at the end were made.
`;

export const METHOD = `## Method

- **Servers**: nsd serves the zones (authoritative, on loopback). For the cold cases a delaying proxy
  of the bench, in a process of its own, hands every answer back D ms after its question (UDP and
  TCP), as a server D ms away would. Over UDP (its C path) D runs from when the kernel queued the
  question on the proxy's socket, so a proxy kept off the CPU by the system measured does not
  lengthen D. The unbound daemon (caching, one thread, stub zones to nsd,
  every other name refused) is the resolver node:dns users put on localhost.
- **Runs**: every figure is the median of several runs with the min and max beside it. The systems
  of a table take turns within each round (a different one first each time), so drift and
  background load hit all alike. Ratios are ratios of medians of the same run. A case that takes
  32 s by design (the npm \`sip\` stack's Timer B/F) is measured once and says so.
- **Correct answers first**: before a system is timed, its answer is checked against what it asks
  for (the exact targets, or for the npm \`sip\` stack, which skips NAPTR and asks \`_sip._tls\`, the
  targets it should find; on the SRV-only zone every system must find the same four targets).
  A system that answers wrongly is listed as not timed, with the reason. Failover runs check who
  got each request and what came back; DNSSEC runs check every answer's secure flag.
- **Cold** means a new resolver for every run (a new DnsCore and backend, a new libunbound
  context, a new \`dns.Resolver\`, whose c-ares channel keeps no cache in Node 20). **Warm** means
  every answer is cached and the JIT has run the code before the first timed window.
- One Node.js process runs the bench (part 5 runs each burst in a fresh process of its own, part
  6 its memory run); UV_THREADPOOL_SIZE is 16 for the npm \`unbound\` binding's rows, which run
  each question on libuv's thread pool (the bench sets it in the environment of its own process:
  set from inside an ES module it comes too late). dnscore's libunbound backend does not use the
  pool.
`;

export const HOW_TO_READ = `## What the numbers mean

- **x D**: a cold resolution's time divided by the delay of one round trip. 1 D is the floor
  (everything in one round trip); each extra D is a question that had to wait for an answer.
- **queries**: the questions that reached the server (the proxy counts them).
- **row 1 ÷ this** (throughput tables): how many times the first row (dnscore) does what this row
  does in the same time: above 1, dnscore is faster.
- **time vs dnscore**: this system's time divided by dnscore's (above 1: dnscore is faster).
- **RSS growth** is the process's peak resident memory less its RSS before the burst: live data
  and garbage the collector had not reclaimed yet.
- Absolute figures belong to this machine; the ratios are what carries over to another one.
`;

export const REMAINING_GAPS = `## Where dnscore is not ahead, and why

The profiles below were taken with \`node --cpu-prof\` on bench/dist/tools/hot-loop.js and read with
bench/dist/tools/cpuprofile-top.js (see bench/README.md).

- **Warm throughput (part 2)**: a first run of this bench found dnscore's in-process cache no
  faster than node:dns asking the unbound daemon over loopback (about 13,100 against 16,300 SRV + A
  resolutions per second). Profile of the warm SRV + A loop: 31% of the busy time rebuilt the
  DnsResult from the cached packet on every hit (parse the message, names, records; plus most of the
  16% spent in garbage collection), 7% created an AbortController for each \`DnsCore.resolve()\`
  without a signal, and parsing plain names (\`makeQuery\`, \`nameKey\`) took most of the rest of
  the core's share. The core now parses a packet that came from the cache once (keyed by the
  packet: hits only age the TTLs and draw the SRV order again), answers a hit of the first plugin's
  cache before the registry walk without an AbortController, and reads names of letters, digits,
  \`-\` and \`_\` without the escape-reading byte loop; the tables above measure that core. The
  price: about 2.3 KB more per cache entry once it has been hit (23 MB at the default 10,000
  entries). Later, a SIP resolution's plan (rule, SRV records, targets, links) was tied to the
  cache entries it came from, and the step-through record is written only on request: a warm SIP
  resolution is a map lookup, a currency check with one clock read, and the RFC 2782 draw.
- **Cold latency (part 1)**: dnscore with the system backend needs one round trip, but it lands at
  1.1-1.2 D, not 1.0 D: the queries in flight share a socket on a random port (RFC 5452), and a
  socket, six answers checked and six results built cost about 1-2 ms of CPU on this machine;
  c-ares parses in C. libunbound adds one hand-off each way (the question to the
  addon's resolver thread, which runs libunbound's event API, the answers back in a batch) and,
  with DNSSEC, its signature checks; QNAME minimisation (libunbound's default) costs two more round trips
  in stub mode, which is why the backend turns it off for one's own servers.
- **DNSSEC (part 3)**: validation costs the signature checks, and no second round for SIP:
  libunbound strips from a secure answer the additional RRsets that did not validate
  (val-clean-additional, its default), so the backend marks it \`additionalSecure\` and
  @dnscore/sip takes a signed SRV answer's target addresses from it. The zone's DNSKEY costs no
  round trip of its own: the backend asks the trust anchors' DNSKEY when it is constructed, and
  the addon makes libunbound's worker then too, so the key is on the wire with the first
  questions. The addon's questions share one libunbound worker, whose
  mesh asks the DNSKEY once however many questions wait (the npm binding's blocking
  \`ub_resolve\` gave every call a worker of its own: six validated questions at once made 12
  queries). Warm,
  through the core's cache, validated resolutions are slower: the signed packets are larger. Through
  libunbound each lookup, cached or not, goes to the addon's thread and back and its packet is parsed
  again, which is why the core cache belongs in front of libunbound. The TypeScript validating
  backend pays the same signature checks in JavaScript that runs cold in a new backend (a few
  dozen runs, mostly before V8 optimizes it), which is most of its 2-3 ms over the system backend
  with nsd direct; it keeps what it validated, so without the core cache a repeated question is
  neither asked nor validated again and it answers faster than the system backend, which asks.
- **Failover (part 4)**: for a 503 or a refused connection the npm \`sip\` stack's first request is
  1-2 ms faster than the bridge's: the bridge's first request resolves with an empty cache (two
  queries on fresh sockets) and walks a failover cursor; both fail over at once, and the bridge's
  next request is as fast as the stack's. The difference that matters is the silent server: the
  \`sip\` stack waits 32 s and answers 408 without trying the live server, and does it again on the
  next request; the bridge fails over after its per-target timer (6 s by default, 500 ms in the
  tuned rows) and its next request skips the dead server while it is in the penalty box.
- **Bursts and memory (part 5)**: dnscore answers 10,000 names sooner than node:dns (c-ares sends
  them all at once, nsd's socket drops some, c-ares waits and retries; dnscore keeps 256 in
  flight), but its peak RSS still grows more. A waiting question holds its query, the registry's
  record with the caller's promise, and the system backend's pending query (its shared answer and
  its job in the limiter's queue, one record): about 1.1 KB of JS heap with the caller's async
  function (about 0.7 KB of it the caller's own, the same for either system) and almost nothing
  outside it. node:dns shows 0.8 KB of JS heap, but keeps each question in c-ares and node's C++
  objects: about 1.1 KB more of native memory (the table's RSS outside V8's heap pages; glibc's
  main arena alone gives the same), so live in all a waiting question costs dnscore a half to
  two thirds of what it costs node:dns. Behind \`withCache\` a waiting question costs about 1.3 KB:
  the cache's misses in flight are shared answers too (it was 4.7 KB, with an AbortController and
  a promise chain per miss). The native column moves by a hundred bytes or so either way between
  runs: the RSS outside V8's heap is not all the questions'. The burst's RSS is another matter,
  and the table's V8 columns show where it goes. Both systems' young generations grow to 16 MB
  semispaces (32 MB) in the burst, since more bytes survive scavenges than they hold (every
  waiting question survives two: copied, then promoted). dnscore's answers, each leaving about
  8.6 KB of garbage (16.4 KB before names were read as text), then touch all 32 MB; node:dns
  parses in C and touches about a third, and the rest of its growth is native (c-ares). To touch
  less, dnscore's answer path would have to make well under a third of that garbage: trimming
  1.5 KB per answer changed nothing. With the young generation held at 8 MB semispaces
  (\`--max-semi-space-size=8\`) dnscore's burst grows RSS by about 27 MB against node:dns's 34; at
  5,000 questions it is 34 MB against 17, at 20,000 56 MB against 79 (with 2 in 3 of node:dns's
  questions failed). A cached answer costs about 600 bytes, 98 of them the packet: the rest is
  the Map entry and its key string, the entry and answer objects and the packet's Uint8Array view.
- **1,000 cold questions through libunbound (part 8)**: on two cores the burst is bound by CPU as
  much as by D. burst-cpu.js (bench/dist/tools) splits a burst's CPU by process and thread (/proc
  schedstat): libunbound's thread about 50 ms per burst (about 50 us per cold question: a socket
  of its own on a random port, RFC 5452, and about eleven system calls, dear in this VM: socket,
  bind, connect, send, epoll registration, receive, close), the JS thread 10-15 ms, the delaying
  proxy 12-20 ms (its UDP path is C), nsd 10-13 ms. Without a trust anchor libunbound now runs its
  iterator alone (13% fewer instructions per cold question, callgrind); the addon's event base
  keeps its deadlines in a heap (a burst is dispatched in 6-16 rounds, so that was not where the
  time went). libunbound 1.17 does not send a question inside ub_resolve_event: it makes the mesh
  entry and a zero timer (serviced_create), and the query leaves when the event base runs that
  timer on libunbound's thread. In one round the thread sends every question handed over so far
  (25-45 us each: the socket's system calls), and answers that arrive meanwhile wait in their
  sockets until the round ends; so a burst takes about its sends' time plus D plus the last
  answers (traced in the addon: sends over 30-45 ms, the last answer D after the last send).
  Taking out the addon's fcntl(FD_CLOEXEC) per socket changed nothing beyond the noise
  (burst-cpu, alternating runs), nor did keeping the JS thread from asking libunbound itself once
  it had woken the resolver thread. \`threads: 2\` splits the sends over two threads (it does not
  shrink them) and helps while a second core can be had. Each burst is set up before its clock
  starts: a warm-up through a throwaway system of the same kind, then a fresh system, constructed and ready
  (\`UnboundResolver.ready()\`: each context's thread has made libunbound's worker). The last
  method began with two full collections instead; they made each burst slower for reasons a
  running process does not have. V8 keeps a map that no live object uses for two old-space
  collections and then drops the code compiled against it: each burst deoptimized 20-30 functions
  ("weak objects": the parser's, the result builder's, the backend's) and optimized them again
  (about 120 lines of --trace-opt). The collections also set the old generation's limit from a
  nearly empty heap, so concurrent marking started during the burst. perf showed TurboFan's graph
  reducers and ConcurrentMarking on V8's four helper threads, together about 50 ms per burst;
  after a warm-up they take 1-5 ms. \`DNSCORE_BENCH_BURST_COMPARE=1\` times the earlier set-ups
  beside the table's. Not taken, and why: \`udp-connect: no\` (5-10% of libunbound's share) gives
  up unbound's mitigation of the ICMP side channel (SAD DNS); a few permitted ports reused for
  every query would give up source-port randomness. node:dns keeps every question on one
  socket: since the proxy counts D from each question's arrival, the 1,000 answers come back
  within a few milliseconds, as they would over a network, and in some runs they overflow that
  socket's receive buffer (the note under the table gives the kernel's count of such drops);
  with \`tries: 1\` a lost answer is ETIMEOUT, and the row is not timed.
`;
