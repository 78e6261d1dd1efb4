/*
 * dnscore's libunbound addon: asynchronous libunbound through pure Node-API (no libuv, no
 * node-gyp, no Node headers beyond node-api-headers).
 *
 * One Context per ub_ctx, made with libunbound's event API (ub_ctx_create_ub_event) on an
 * event base of this addon (event_base.c), which one thread of the addon runs: the resolver
 * thread. It does every libunbound call that resolves: ub_resolve_event (an answer libunbound
 * has cached, or local data, comes back inside that call), ub_cancel, and the sockets and
 * timers of the questions that go out. libunbound starts no thread and no process of its own,
 * and no question or result crosses a pipe inside libunbound. ub_ctx_async(ctx, 1) is still
 * set: the context never forks.
 *
 * resolve() asks libunbound itself when the resolver thread waits for events (ub_lock, which
 * guards libunbound and the event base, is free only then): an answer libunbound has cached,
 * or local data, comes back inside ub_resolve_event and resolve() returns it, without a hop
 * to any thread; a question that goes out stays in flight like the others. When the resolver
 * thread is busy, resolve() queues the question for it (a slot; the thread is woken by a pipe
 * only when it sleeps, once per sleep). Results are copied into a queue; the first result in
 * an empty queue asks the JS thread, through one thread-safe function call, to take the whole
 * queue: one hop per batch, however many results arrive meanwhile. The thread-safe function
 * keeps the event loop alive only while questions are in flight (ref/unref).
 *
 * No result is lost to a missed wakeup: "the queue is not empty" implies "a call to the JS
 * thread is queued" (both change under one lock), and the resolver thread sleeps only after
 * it found no question or cancel queued, under the lock that queueing one takes: from then on
 * the first new one writes the wake pipe. A result that cannot be kept (out of memory) fails
 * every question in flight (token 0).
 *
 * Cancel: a question is a slot of the context (id = slot and a reuse count). cancel(id) marks
 * it cancelled: not sent yet, it never is; sent, the resolver thread calls ub_cancel (libunbound
 * then never calls back); a result already on its way is dropped before JS sees it.
 *
 * JS API: version(), strerror(code), openContexts(), returnFreedMemory() (malloc_trim), new
 * Context(onResult) with set/add methods that throw Error { code: 'ERR_UNBOUND' } with
 * libunbound's message, resolve(name, type, class, token)
 * -> question id, or the answer when it came inside the call ([err, rcode, packet, sec,
 * whyBogus, rateLimited]; no callback then), cancel(question id) -> bool (true: no callback
 * will run for it), warm() (makes libunbound's worker, then starts the resolver thread), close(),
 * and the inFlight, closed and workerMade getters. onResult(token, err, rcode, packet, sec,
 * whyBogus, rateLimited) runs on the JS thread, as libunbound's event callback has it: err is libunbound's error
 * (0: resolved), rcode the DNS rcode of a failure (0: `packet` holds the answer), sec 0
 * insecure, 1 bogus, 2 secure. Token 0 with an error: the context broke, every question in
 * flight failed.
 */
#define _GNU_SOURCE
#define NAPI_VERSION 8
#include <node_api.h>

#include <errno.h>
#include <fcntl.h>
#ifdef __GLIBC__
#include <malloc.h>
#endif
#include <pthread.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/resource.h>
#include <unbound-event.h>
#include <unbound.h>
#include <unistd.h>

#include "event_base.h"
#include "process_wide.h"
#include "string_arg.h"

#define CHECK(call)                                                                                        \
  do {                                                                                                     \
    if ((call) != napi_ok) return NULL;                                                                    \
  } while (0)

/* One result, copied out of libunbound's buffers. */
typedef struct {
  int slot; /* the question's slot; its token once taken by the JS thread (0: dropped) */
  int err;
  int rcode;
  int sec;
  int rate_limited;
  uint8_t* packet; /* NULL when rcode is not 0 */
  int packet_len;
  char* why_bogus;
} Done;

/* A growable array of results. */
typedef struct {
  Done* items;
  size_t len;
  size_t cap;
} Batch;

enum slot_state { SLOT_FREE, SLOT_QUEUED, SLOT_SENT, SLOT_CANCELLED };

/* One question from resolve() until its result reaches JS (or it is cancelled). */
typedef struct {
  int id;       /* what resolve() returned: the slot's index and its reuse count */
  int token;    /* the caller's */
  int async_id; /* libunbound's, once sent (0 for an answer given inside ub_resolve_event) */
  int state;
  int type;
  int klass;
  char* name; /* owned until sent */
  int next;   /* the next slot in the send queue or the free list, -1 at the end */
} Slot;

#define SLOT_BITS 20
#define SLOT_MASK ((1 << SLOT_BITS) - 1)

/* A cancel for the resolver thread: the slot and the id it had then. */
typedef struct {
  int index;
  int id;
} CancelRequest;

typedef struct {
  struct ub_ctx* ub;
  EventBase events;
  napi_env env;
  napi_threadsafe_function tsfn;
  /* onResult: weak while idle (the JS side may drop the context), strong while questions wait. */
  napi_ref on_result;
  int tsfn_released;
  int hooked;
  /* Setup failed: libunbound 1.17's ub_ctx_delete may crash on such a context; never delete it. */
  int poisoned;
  int closed;
  int owners; /* the JS wrapper and the thread-safe function; freed when both are gone */

  pthread_t thread;
  int running;
  void* stack; /* the resolver thread's stack when the addon placed it (see stack_above_heap), else NULL */
  int wake[2];

  /*
   * Every call into libunbound and the event base, and `fresh` and `lost` below. The resolver
   * thread holds it except while it waits for events; the JS thread takes it only when it is
   * free (then the resolver thread waits), to ask libunbound itself (resolve()).
   */
  pthread_mutex_t ub_lock;

  /* Shared by the resolver thread and the JS thread, under the lock. */
  pthread_mutex_t lock;
  Slot* slots;
  int slots_cap;
  int free_head;  /* free slots */
  int send_head;  /* questions queued for ub_resolve_event, in order */
  int send_tail;
  unsigned reuse; /* makes ids of a reused slot differ */
  CancelRequest* cancels;
  int n_cancels;
  int cap_cancels;
  Batch queue;   /* results waiting for the JS thread */
  int scheduled; /* a call to the JS thread is queued and has not taken the queue yet */
  int broken;    /* libunbound's error that fails every question (UB_NOMEM), else 0 */
  int stopping;
  int asleep;    /* the resolver thread waits for events: a new question must wake it */
  int worker_made; /* warm() made libunbound's worker (make_worker): workerMade */
  int wake_sent; /* and the wake pipe was written since it went to sleep */

  /* Under ub_lock: results of this round, before they join the queue. */
  Batch fresh;
  int lost; /* results of this round that could not be kept (out of memory) */
  int halted; /* a flush found the environment closing or the context broken: every later one says so */

  /* The JS thread's own. */
  Batch spare; /* the queue taken last time, emptied, handed back to be filled again */
  int in_flight;
  int referenced;
} Context;

/* libunbound contexts not yet deleted, in every thread of the process (for tests and leaks). */
static int open_contexts;

/* The context whose libunbound this thread calls now: libunbound's callbacks append to it. */
static __thread Context* resolving;

/* On the JS thread, during its own ub_resolve_event: that question's slot, and its answer if it came at once. */
static __thread int direct_index = -1;
static __thread Done direct_done;

static napi_value throw_unbound(napi_env env, int err) {
  char message[160];
  snprintf(message, sizeof message, "libunbound: %s (%d)", ub_strerror(err), err);
  napi_value msg, code, error;
  napi_create_string_utf8(env, message, NAPI_AUTO_LENGTH, &msg);
  napi_create_string_utf8(env, "ERR_UNBOUND", NAPI_AUTO_LENGTH, &code);
  napi_create_error(env, code, msg, &error);
  napi_value number;
  napi_create_int32(env, err, &number);
  napi_set_named_property(env, error, "unboundCode", number);
  napi_throw(env, error);
  return NULL;
}

static napi_value throw_state(napi_env env, const char* message) {
  napi_throw_error(env, "ERR_UNBOUND_CLOSED", message);
  return NULL;
}



static void done_free(Done* done) {
  free(done->packet);
  free(done->why_bogus);
  done->packet = NULL;
  done->why_bogus = NULL;
}

static int batch_push(Batch* b, Done done) {
  if (b->len == b->cap) {
    size_t cap = b->cap ? b->cap * 2 : 64;
    Done* grown = realloc(b->items, cap * sizeof(Done));
    if (!grown) return 0;
    b->items = grown;
    b->cap = cap;
  }
  b->items[b->len++] = done;
  return 1;
}

/* Appends `from` to `to` (swapping when `to` is empty); `from` is left empty. 0: out of memory. */
static int batch_move(Batch* to, Batch* from) {
  if (from->len == 0) return 1;
  if (to->len == 0) {
    Batch t = *to;
    *to = *from;
    *from = t;
    return 1;
  }
  if (to->len + from->len > to->cap) {
    size_t cap = to->cap;
    while (cap < to->len + from->len) cap *= 2;
    Done* grown = realloc(to->items, cap * sizeof(Done));
    if (!grown) return 0;
    to->items = grown;
    to->cap = cap;
  }
  memcpy(to->items + to->len, from->items, from->len * sizeof(Done));
  to->len += from->len;
  from->len = 0;
  return 1;
}

/* Frees the results a batch still holds (a context closed before they were delivered). */
static void batch_clear(Batch* b) {
  for (size_t i = 0; i < b->len; i++) done_free(&b->items[i]);
  b->len = 0;
}

static void batch_free(Batch* b) {
  batch_clear(b);
  free(b->items);
  b->items = NULL;
  b->cap = 0;
}

/* A free slot for a new question (lock held), growing the table; -1 when out of memory. */
static int slot_take(Context* c) {
  if (c->free_head < 0) {
    int cap = c->slots_cap ? c->slots_cap * 2 : 64;
    if (cap > SLOT_MASK + 1) return -1;
    Slot* grown = realloc(c->slots, (size_t)cap * sizeof(Slot));
    if (!grown) return -1;
    for (int i = cap - 1; i >= c->slots_cap; i--) {
      grown[i] = (Slot){0, 0, 0, SLOT_FREE, 0, 0, NULL, c->free_head};
      c->free_head = i;
    }
    c->slots = grown;
    c->slots_cap = cap;
  }
  int index = c->free_head;
  c->free_head = c->slots[index].next;
  c->slots[index].next = -1;
  c->slots[index].id = (int)(((c->reuse++ & 0x3ff) << SLOT_BITS) | (unsigned)index);
  return index;
}

/* Gives a slot back (lock held). */
static void slot_free(Context* c, int index) {
  Slot* slot = &c->slots[index];
  free(slot->name);
  slot->name = NULL;
  slot->state = SLOT_FREE;
  slot->next = c->free_head;
  c->free_head = index;
}

/* Questions in flight keep the event loop alive and the JS callback (with its context) reachable. */
static void set_loop_ref(Context* c) {
  int want = c->in_flight > 0 && !c->closed;
  if (want == c->referenced) return;
  uint32_t count;
  if (want) {
    if (!c->tsfn_released) napi_ref_threadsafe_function(c->env, c->tsfn);
    if (c->on_result) napi_reference_ref(c->env, c->on_result, &count);
  } else {
    if (!c->tsfn_released) napi_unref_threadsafe_function(c->env, c->tsfn);
    if (c->on_result) napi_reference_unref(c->env, c->on_result, &count);
  }
  c->referenced = want;
}

/* How long the resolver thread waits before it tries a failed poll or thread-safe call again. */
#define RETRY_MS 100

/* Answers read in a round that are handed to the JS thread at once, before the round ends. */
#define ANSWERS_PER_HOP 64

static int flush(Context* c);

/* libunbound's answer (ub_event_callback_type), on the resolver thread: copied, its buffers are libunbound's. */
static void on_answer(void* mydata, int rcode, void* packet, int packet_len, int sec, char* why_bogus,
                      int rate_limited) {
  Context* c = resolving;
  if (!c) return; /* ub_ctx_delete failing what is in flight: close() settled it in JS */
  Done done = {(int)(intptr_t)mydata, 0, rcode, sec, rate_limited, NULL, 0, NULL};
  int ok = 1;
  if (rcode == 0 && packet && packet_len > 0) {
    done.packet = malloc((size_t)packet_len);
    if (done.packet) {
      memcpy(done.packet, packet, (size_t)packet_len);
      done.packet_len = packet_len;
    } else {
      ok = 0;
    }
  }
  if (why_bogus) {
    done.why_bogus = strdup(why_bogus);
    if (!done.why_bogus) ok = 0;
  }
  if (done.slot == direct_index) {
    if (!ok) {
      done_free(&done);
      done.err = UB_NOMEM;
    }
    direct_done = done;
    return;
  }
  if (!ok || !batch_push(&c->fresh, done)) {
    done_free(&done);
    c->lost++;
  }
  /* A round that reads many answers hands them on as it goes: the JS thread works on the first
   * ones meanwhile, and what it has left after the round's last answer is one short batch. */
  if (c->fresh.len >= ANSWERS_PER_HOP) (void)flush(c);
}

/*
 * Moves this round's results into the queue and asks the JS thread to take it when no call
 * is queued yet (a call already queued takes these too). Returns 0 when the thread should
 * stop (the environment is closing, or a result was lost), and from then on every time: a flush
 * in the middle of a round (on_answer) or on the JS thread (resolve_here) may be the one to find it.
 */
static int flush(Context* c) {
  if (c->halted) return 0;
  int status = c->lost > 0 ? UB_NOMEM : UB_NOERROR;
  c->lost = 0;
  if (c->fresh.len == 0 && status == UB_NOERROR) return 1;
  pthread_mutex_lock(&c->lock);
  if (!batch_move(&c->queue, &c->fresh)) {
    batch_clear(&c->fresh);
    status = UB_NOMEM;
  }
  if (status != UB_NOERROR && !c->broken) c->broken = status;
  int ask = (c->queue.len > 0 || c->broken) && !c->scheduled;
  if (ask) c->scheduled = 1;
  int broken = c->broken;
  pthread_mutex_unlock(&c->lock);
  while (ask) {
    napi_status called = napi_call_threadsafe_function(c->tsfn, NULL, napi_tsfn_nonblocking);
    if (called == napi_ok) break;
    /* Closing: close() (which settles every question in JS) or the environment's teardown. */
    if (called == napi_closing) {
      c->halted = 1;
      return 0;
    }
    usleep(RETRY_MS * 1000);
    pthread_mutex_lock(&c->lock);
    ask = !c->stopping;
    pthread_mutex_unlock(&c->lock);
  }
  /* A broken context answers nothing more: the JS thread fails its questions and closes it. */
  if (broken) c->halted = 1;
  return !broken;
}

/*
 * Questions sent per round at most; the answers that came back meanwhile are read after the
 * round. A burst goes out whole before any answer is read: its last question leaves as early
 * as it can, and its last answer comes back D after that. Answers wait in their own sockets
 * meanwhile, and a round runs the ready sockets before the due timers, so a query's timeout does
 * not beat its answer that waited. With 64 per round, reading the first answers between rounds
 * delayed the last question and so the whole burst (1,000 cold questions: 10-20% longer in paired runs). The
 * bound, the default in-flight bound (DEFAULT_MAX_IN_FLIGHT), keeps an endless stream of
 * questions from starving the answers.
 */
#define SEND_CHUNK 1024

/*
 * Hands up to SEND_CHUNK questions of the backlog to libunbound, in order (a refused one
 * becomes its result); returns the backlog's new head (-1: all sent).
 */
static int send_questions(Context* c, int index) {
  for (int sent = 0; index >= 0 && sent < SEND_CHUNK; sent++) {
    pthread_mutex_lock(&c->lock);
    Slot* slot = &c->slots[index];
    int next = slot->next;
    slot->next = -1;
    if (slot->state == SLOT_CANCELLED) {
      slot_free(c, index);
      pthread_mutex_unlock(&c->lock);
      index = next;
      continue;
    }
    /* Sent from here on: a cancel now goes through ub_cancel (on this thread, after this call). */
    slot->state = SLOT_SENT;
    char* name = slot->name;
    slot->name = NULL;
    int type = slot->type, klass = slot->klass;
    pthread_mutex_unlock(&c->lock);

    int async_id = 0;
    int err = ub_resolve_event(c->ub, name, type, klass, (void*)(intptr_t)index, on_answer, &async_id);
    free(name);

    pthread_mutex_lock(&c->lock);
    c->slots[index].async_id = async_id; /* the table may have grown meanwhile */
    pthread_mutex_unlock(&c->lock);
    if (err != UB_NOERROR) {
      Done done = {index, err, 0, 0, 0, NULL, 0, NULL};
      if (!batch_push(&c->fresh, done)) c->lost++;
    }
    index = next;
  }
  return index;
}

/* Stops the questions cancelled after they were sent; libunbound then never calls back for them. */
static void send_cancels(Context* c, CancelRequest* cancels, int count) {
  for (int i = 0; i < count; i++) {
    pthread_mutex_lock(&c->lock);
    Slot* slot = &c->slots[cancels[i].index];
    /* Delivered and reused since, or answered inside ub_resolve_event (async id 0): nothing to stop. */
    int live = slot->id == cancels[i].id && slot->state == SLOT_CANCELLED && slot->async_id != 0;
    int async_id = slot->async_id;
    pthread_mutex_unlock(&c->lock);
    /* UB_NOID: its result is in this thread's results already, dropped on delivery (freeing the slot). */
    if (live && ub_cancel(c->ub, async_id) == UB_NOERROR) {
      pthread_mutex_lock(&c->lock);
      slot_free(c, cancels[i].index);
      pthread_mutex_unlock(&c->lock);
    }
  }
}

/*
 * libunbound makes its worker (the outgoing sockets' table, buffers, the mesh: milliseconds,
 * more with a large outgoing-range) in the first ub_resolve_event, before it reads the name:
 * a name with an empty label makes it stop right there (UB_SYNTAX), so the worker is ready
 * before the first real question instead of delaying it.
 *
 * It is made on the JS thread, not on the resolver thread: libunbound before 1.18 finds a TCP
 * stream to reuse by searching its tree of streams with a key on the stack of the thread that
 * sends, ordered by address against the streams' slots on the heap (unbound issue #887). With the
 * resolver thread's stack below the heap its worker was made on (a malloc arena that an exited
 * thread left, measured: 2 contexts in 72), no stream was ever found: every TCP query opened a
 * connection and, with libunbound's 2 for a library, closed one with queries on it, which then
 * failed with SERVFAIL. Node's main thread allocates from the brk heap, below every thread's
 * stack. A worker_threads thread has an arena of its own, which may lie above the resolver
 * thread's stack: see stack_above_heap (libunbound 1.18 and later need none of this).
 */
static void make_worker(Context* c) {
  int ignored = 0;
  (void)ub_resolve_event(c->ub, "..", 1, 1, NULL, on_answer, &ignored);
}

static void* resolver_thread(void* arg) {
  Context* c = arg;
  resolving = c;
  pthread_mutex_lock(&c->ub_lock);
  CancelRequest* cancels = NULL;
  int cap_cancels = 0;
  /* Questions taken from the send queue and not sent yet (linked through their slots). */
  int backlog = -1, backlog_tail = -1;
  for (;;) {
    pthread_mutex_lock(&c->lock);
    int stop = c->stopping;
    if (c->send_head >= 0) {
      if (backlog < 0) backlog = c->send_head;
      else c->slots[backlog_tail].next = c->send_head;
      backlog_tail = c->send_tail;
      c->send_head = c->send_tail = -1;
    }
    int n_cancels = c->n_cancels;
    if (n_cancels > cap_cancels) {
      CancelRequest* grown = realloc(cancels, (size_t)n_cancels * sizeof(CancelRequest));
      if (grown) {
        cancels = grown;
        cap_cancels = n_cancels;
      } else {
        n_cancels = cap_cancels; /* the rest next round */
      }
    }
    if (n_cancels > 0) {
      memcpy(cancels, c->cancels, (size_t)n_cancels * sizeof(CancelRequest));
      memmove(c->cancels, c->cancels + n_cancels, (size_t)(c->n_cancels - n_cancels) * sizeof(CancelRequest));
      c->n_cancels -= n_cancels;
    }
    pthread_mutex_unlock(&c->lock);
    if (stop) break;
    send_cancels(c, cancels, n_cancels);
    backlog = send_questions(c, backlog);
    if (backlog < 0) backlog_tail = -1;
    if (!flush(c)) break;
    /* With questions still to send, only what is ready now: no waiting. Otherwise asleep, so
     * that resolve() and cancel() write the wake pipe (only then: a write is a system call). */
    int now_only = backlog >= 0;
    if (!now_only) {
      pthread_mutex_lock(&c->lock);
      now_only = c->send_head >= 0 || c->n_cancels > 0 || c->stopping;
      c->asleep = !now_only;
      pthread_mutex_unlock(&c->lock);
    }
    int woken = dispatch_events(&c->events, now_only, &c->ub_lock);
    if (!now_only) {
      pthread_mutex_lock(&c->lock);
      c->asleep = c->wake_sent = 0;
      pthread_mutex_unlock(&c->lock);
    }
    if (woken < 0) usleep(RETRY_MS * 1000); /* e.g. ENOMEM: leaving would strand the questions */
    if (woken > 0) {
      char drain[64];
      while (read(c->wake[0], drain, sizeof drain) > 0) {
      }
    }
    if (!flush(c)) break;
  }
  pthread_mutex_unlock(&c->ub_lock);
  free(cancels);
  resolving = NULL;
  return NULL;
}

#define RESOLVER_STACK_SIZE ((size_t)2 << 20) /* what libunbound asks for its own threads (PTHREADSTACKSIZE) */
/* glibc's HEAP_MAX_SIZE on 64 bits: a thread's malloc arena grows in heaps of this size, aligned to it. */
#define ARENA_HEAP_SIZE ((uintptr_t)64 << 20)

/*
 * The lowest free range of `size` bytes at or above `floor` in this process's address space that
 * no stack grows into (Linux: /proc/self/maps), or 0. The main thread's stack may grow down by
 * its rlimit, and the kernel keeps at least 128 MB under it for that: the range stays below.
 */
static uintptr_t free_range_above(uintptr_t floor, size_t size) {
  FILE* maps = fopen("/proc/self/maps", "re");
  if (!maps) return 0;
  struct rlimit limit;
  uintptr_t reserve = (uintptr_t)128 << 20;
  if (getrlimit(RLIMIT_STACK, &limit) == 0 && limit.rlim_cur != RLIM_INFINITY && limit.rlim_cur > reserve)
    reserve = limit.rlim_cur;
  uintptr_t found = 0, previous_end = 0, stack = 0;
  char line[512];
  int line_start = 1;
  while (fgets(line, sizeof line, maps)) {
    int whole = strchr(line, '\n') != NULL;
    unsigned long start, end;
    /* A line longer than the buffer comes in pieces: only a line's first piece has its range. */
    int parsed = line_start && sscanf(line, "%lx-%lx", &start, &end) == 2;
    line_start = whole;
    if (!parsed) continue;
    if (strstr(line, "[stack]")) {
      stack = start;
      break;
    }
    uintptr_t from = previous_end > floor ? previous_end : floor;
    if (!found && start > from && start - from >= size) found = from;
    if (end > previous_end) previous_end = end;
  }
  fclose(maps);
  if (!found || !stack || stack < reserve || found + size > stack - reserve) return 0;
  return found;
}

/*
 * A stack for the resolver thread above the heap libunbound's worker was just made on, or NULL
 * for the default. libunbound before 1.18 finds a TCP stream only from a thread whose stack lies
 * above that heap (see make_worker). On Node's main thread the worker comes from the brk heap,
 * below every mapping, so the default stack does. A worker_threads thread allocates from an arena
 * of its own among the mappings, and a new thread's stack (often one an exited thread left) may
 * lie below it: every TCP query then opened a connection (61 for 64 questions on 16 contexts).
 * The stack is then placed in the lowest free range above that arena's heap; none: the default.
 */
static void* stack_above_heap(void) {
#ifdef __linux__
  void* probe = malloc(1);
  if (!probe) return NULL;
  uintptr_t mark = (uintptr_t)probe;
  free(probe);
  if (mark < (uintptr_t)sbrk(0)) return NULL; /* the brk heap */
  uintptr_t heap_end = (mark | (ARENA_HEAP_SIZE - 1)) + 1;
  uintptr_t at = free_range_above(heap_end, RESOLVER_STACK_SIZE);
  if (!at) return NULL;
  void* stack = mmap((void*)at, RESOLVER_STACK_SIZE, PROT_READ | PROT_WRITE,
                     MAP_PRIVATE | MAP_ANONYMOUS | MAP_STACK | MAP_NORESERVE | MAP_FIXED_NOREPLACE, -1, 0);
  if (stack == MAP_FAILED) return NULL;
  /* A kernel before 4.17 reads MAP_FIXED_NOREPLACE as a hint only. */
  if ((uintptr_t)stack != at) {
    munmap(stack, RESOLVER_STACK_SIZE);
    return NULL;
  }
  /* The lowest page is the guard that glibc gives its own stacks. */
  mprotect(stack, (size_t)sysconf(_SC_PAGESIZE), PROT_NONE);
  return stack;
#else
  return NULL;
#endif
}

/* Starts the resolver thread once (JS thread, after make_worker). 0: no thread could be made. */
static int start(Context* c) {
  if (c->running) return 1;
  pthread_attr_t attr;
  if (pthread_attr_init(&attr) != 0) return 0;
  c->stack = stack_above_heap();
  if (c->stack) pthread_attr_setstack(&attr, c->stack, RESOLVER_STACK_SIZE);
  int made = pthread_create(&c->thread, &attr, resolver_thread, c) == 0;
  pthread_attr_destroy(&attr);
  if (!made) {
    if (c->stack) munmap(c->stack, RESOLVER_STACK_SIZE);
    c->stack = NULL;
    return 0;
  }
#ifdef __linux__
  /* Named for ps, top, perf and /proc (at most 15 characters; the call differs elsewhere). */
  pthread_setname_np(c->thread, "dnscore-unbound");
#endif
  c->running = 1;
  return 1;
}

/* Whether the resolver thread sleeps and nobody woke it yet (lock held); it counts as woken then. */
static int must_wake(Context* c) {
  if (!c->asleep || c->wake_sent) return 0;
  c->wake_sent = 1;
  return 1;
}

static void wake(Context* c) {
  ssize_t ignored = write(c->wake[1], "w", 1);
  (void)ignored;
}

/* Stops the resolver thread and frees libunbound's context; idempotent, JS thread only. */
static void shutdown_context(Context* c) {
  if (c->closed) return;
  c->closed = 1;
  __atomic_sub_fetch(&open_contexts, 1, __ATOMIC_RELAXED);
  if (c->running) {
    pthread_mutex_lock(&c->lock);
    c->stopping = 1;
    pthread_mutex_unlock(&c->lock);
    wake(c);
    pthread_join(c->thread, NULL);
    c->running = 0;
    if (c->stack) munmap(c->stack, RESOLVER_STACK_SIZE);
    c->stack = NULL;
  }
  /* Questions in flight are dropped (libunbound fails them into on_answer, which ignores them here). */
  if (!c->poisoned) {
    ub_ctx_delete(c->ub);
    event_base_release(&c->events);
  }
  c->ub = NULL;
  c->in_flight = 0;
  /* Results not delivered: close() settles their questions in JS. */
  batch_free(&c->queue);
  batch_free(&c->fresh);
  batch_free(&c->spare);
  for (int i = 0; i < c->slots_cap; i++) free(c->slots[i].name);
  free(c->slots);
  free(c->cancels);
  c->slots = NULL;
  c->cancels = NULL;
  c->slots_cap = c->n_cancels = c->cap_cancels = 0;
  c->free_head = c->send_head = c->send_tail = -1;
  close(c->wake[0]);
  close(c->wake[1]);
}

static void release_owner(Context* c) {
  if (--c->owners > 0) return;
  pthread_mutex_destroy(&c->lock);
  pthread_mutex_destroy(&c->ub_lock);
  free(c);
}

static void on_env_cleanup(void* arg) {
  Context* c = arg;
  c->hooked = 0;
  shutdown_context(c);
}

static void unhook(Context* c) {
  if (!c->hooked) return;
  c->hooked = 0;
  napi_remove_env_cleanup_hook(c->env, on_env_cleanup, c);
}

static void drop_callback(Context* c) {
  if (!c->on_result) return;
  napi_delete_reference(c->env, c->on_result);
  c->on_result = NULL;
}

static void close_context(Context* c) {
  shutdown_context(c);
  set_loop_ref(c);
  drop_callback(c);
  unhook(c);
  if (!c->tsfn_released) {
    c->tsfn_released = 1;
    napi_release_threadsafe_function(c->tsfn, napi_tsfn_abort);
  }
}

static void on_tsfn_finalize(napi_env env, void* data, void* hint) {
  (void)env;
  (void)hint;
  Context* c = data;
  c->tsfn_released = 1;
  shutdown_context(c);
  drop_callback(c);
  unhook(c);
  release_owner(c);
}

static void on_wrapper_finalize(napi_env env, void* data, void* hint) {
  (void)env;
  (void)hint;
  Context* c = data;
  close_context(c);
  release_owner(c);
}

static napi_value buffer_copy(napi_env env, const void* data, size_t length) {
  napi_value buffer;
  void* ignored;
  if (napi_create_buffer_copy(env, length, data, &ignored, &buffer) != napi_ok) return NULL;
  return buffer;
}

static napi_value string_or_null(napi_env env, const char* text) {
  napi_value value;
  if (text) napi_create_string_utf8(env, text, NAPI_AUTO_LENGTH, &value);
  else napi_get_null(env, &value);
  return value;
}

static napi_value boolean(napi_env env, int flag) {
  napi_value value;
  napi_get_boolean(env, flag != 0, &value);
  return value;
}

static napi_value int32(napi_env env, int number) {
  napi_value value;
  napi_create_int32(env, number, &value);
  return value;
}


/*
 * On the JS thread: takes every result queued so far and delivers them in order; results that
 * arrive meanwhile ask for another call. When a result was lost, every question fails (token 0).
 */
static void call_js(napi_env env, napi_value unused, void* context, void* data) {
  (void)data;
  (void)unused;
  Context* c = context;
  if (!env || c->closed) return;
  pthread_mutex_lock(&c->lock);
  Batch taken = c->queue;
  c->queue = c->spare;
  c->scheduled = 0;
  int broken = c->broken;
  /* Slots to tokens; a result of a cancelled question is dropped here (token 0). */
  int delivered = 0;
  for (size_t i = 0; i < taken.len; i++) {
    int index = taken.items[i].slot;
    Slot* slot = &c->slots[index];
    taken.items[i].slot = slot->state == SLOT_CANCELLED ? 0 : slot->token;
    if (taken.items[i].slot) delivered++;
    slot_free(c, index);
  }
  pthread_mutex_unlock(&c->lock);
  c->spare = (Batch){NULL, 0, 0};

  /* Taken before the callbacks, which may make the reference weak again. */
  napi_value on_result_fn = NULL;
  if (c->on_result) napi_get_reference_value(env, c->on_result, &on_result_fn);
  c->in_flight -= delivered;
  if (c->in_flight < 0 || broken) c->in_flight = 0;
  set_loop_ref(c);

  napi_value undefined, null;
  napi_get_undefined(env, &undefined);
  napi_get_null(env, &null);
  for (size_t i = 0; i < taken.len; i++) {
    Done* done = &taken.items[i];
    /* A close() from an earlier callback drops the rest: their questions were settled by it. */
    if (done->slot && !c->closed && on_result_fn) {
      napi_value args[7];
      args[0] = int32(env, done->slot);
      args[1] = int32(env, done->err);
      args[2] = int32(env, done->rcode);
      args[3] = done->packet ? buffer_copy(env, done->packet, (size_t)done->packet_len) : null;
      if (!args[3]) args[3] = null;
      args[4] = int32(env, done->sec);
      args[5] = string_or_null(env, done->why_bogus);
      args[6] = boolean(env, done->rate_limited);
      napi_value ignored;
      napi_call_function(env, undefined, on_result_fn, 7, args, &ignored);
    }
    done_free(done);
  }
  taken.len = 0;
  /* The emptied array is filled again next time (a close() meanwhile freed the others). */
  if (c->closed) free(taken.items);
  else if (c->spare.items == NULL) c->spare = taken;
  else free(taken.items);
  if (broken && !c->closed && on_result_fn) {
    napi_value args[7] = {int32(env, 0), int32(env, broken), int32(env, 0), null, int32(env, 0), null, boolean(env, 0)};
    napi_value ignored;
    napi_call_function(env, undefined, on_result_fn, 7, args, &ignored);
  }
}

static Context* unwrap(napi_env env, napi_callback_info info, size_t* argc, napi_value* argv) {
  napi_value self;
  void* data;
  if (napi_get_cb_info(env, info, argc, argv, &self, NULL) != napi_ok) return NULL;
  if (napi_unwrap(env, self, &data) != napi_ok) {
    napi_throw_type_error(env, NULL, "not an unbound Context");
    return NULL;
  }
  return data;
}

static napi_value context_new(napi_env env, napi_callback_info info) {
  size_t argc = 1;
  napi_value argv[1], self;
  CHECK(napi_get_cb_info(env, info, &argc, argv, &self, NULL));
  napi_valuetype type;
  if (argc < 1 || napi_typeof(env, argv[0], &type) != napi_ok || type != napi_function) {
    napi_throw_type_error(env, NULL, "new Context(onResult): onResult must be a function");
    return NULL;
  }
  Context* c = calloc(1, sizeof(Context));
  if (!c) return throw_unbound(env, UB_NOMEM);
  c->env = env;
  if (pipe2(c->wake, O_CLOEXEC | O_NONBLOCK) != 0) {
    free(c);
    return throw_unbound(env, UB_SOCKET);
  }
  if (event_base_init(&c->events, c->wake[0]) != 0 || !(c->ub = ub_ctx_create_ub_event(&c->events.super))) {
    event_base_release(&c->events);
    close(c->wake[0]);
    close(c->wake[1]);
    free(c);
    return throw_unbound(env, UB_NOMEM);
  }
  /* Never a forked process (event contexts do not fork; the flag also makes ub_cancel keep
   * the query until libunbound is done with it). */
  int err = ub_ctx_async(c->ub, 1);
  if (err != UB_NOERROR) {
    ub_ctx_delete(c->ub);
    event_base_release(&c->events);
    close(c->wake[0]);
    close(c->wake[1]);
    free(c);
    return throw_unbound(env, err);
  }
  pthread_mutex_init(&c->lock, NULL);
  pthread_mutex_init(&c->ub_lock, NULL);
  c->free_head = c->send_head = c->send_tail = -1;
  napi_value name;
  napi_create_string_utf8(env, "libunbound results", NAPI_AUTO_LENGTH, &name);
  if (napi_create_reference(env, argv[0], 0, &c->on_result) != napi_ok ||
      napi_create_threadsafe_function(env, NULL, NULL, name, 0, 1, c, on_tsfn_finalize, c, call_js, &c->tsfn) !=
        napi_ok) {
    if (c->on_result) napi_delete_reference(env, c->on_result);
    ub_ctx_delete(c->ub);
    event_base_release(&c->events);
    close(c->wake[0]);
    close(c->wake[1]);
    free(c);
    return NULL;
  }
  napi_unref_threadsafe_function(env, c->tsfn);
  c->owners = 2;
  if (napi_wrap(env, self, c, on_wrapper_finalize, NULL, NULL) != napi_ok) {
    close_context(c);
    release_owner(c);
    return NULL;
  }
  napi_add_env_cleanup_hook(env, on_env_cleanup, c);
  c->hooked = 1;
  __atomic_add_fetch(&open_contexts, 1, __ATOMIC_RELAXED);
  return self;
}

typedef int (*setter1)(struct ub_ctx*, const char*);

/* A setup call: on failure the context is poisoned (never deleted) and the error thrown. */
static napi_value setup_result(napi_env env, Context* c, int err) {
  if (err == UB_NOERROR) return NULL;
  c->poisoned = 1;
  return throw_unbound(env, err);
}

static napi_value call_setter1(napi_env env, napi_callback_info info, setter1 fn) {
  size_t argc = 1;
  napi_value argv[1];
  Context* c = unwrap(env, info, &argc, argv);
  if (!c) return NULL;
  if (c->closed) return throw_state(env, "the libunbound context is closed");
  char* text = argc >= 1 ? string_arg(env, argv[0]) : NULL;
  if (!text) {
    if (argc < 1) napi_throw_type_error(env, NULL, "expected a string");
    return NULL;
  }
  int err = fn(c->ub, text);
  free(text);
  return setup_result(env, c, err);
}

static napi_value set_fwd(napi_env env, napi_callback_info info) {
  return call_setter1(env, info, ub_ctx_set_fwd);
}
static napi_value resolv_conf(napi_env env, napi_callback_info info) {
  return call_setter1(env, info, ub_ctx_resolvconf);
}
static napi_value hosts(napi_env env, napi_callback_info info) {
  return call_setter1(env, info, ub_ctx_hosts);
}
static napi_value add_ta(napi_env env, napi_callback_info info) {
  return call_setter1(env, info, ub_ctx_add_ta);
}
static napi_value add_ta_file(napi_env env, napi_callback_info info) {
  return call_setter1(env, info, ub_ctx_add_ta_file);
}
static napi_value zone_remove(napi_env env, napi_callback_info info) {
  return call_setter1(env, info, ub_ctx_zone_remove);
}

static napi_value set_option(napi_env env, napi_callback_info info) {
  size_t argc = 2;
  napi_value argv[2];
  Context* c = unwrap(env, info, &argc, argv);
  if (!c) return NULL;
  if (c->closed) return throw_state(env, "the libunbound context is closed");
  if (argc < 2) {
    napi_throw_type_error(env, NULL, "setOption(name, value)");
    return NULL;
  }
  char* option = string_arg(env, argv[0]);
  if (!option) return NULL;
  char* value = string_arg(env, argv[1]);
  if (!value) {
    free(option);
    return NULL;
  }
  /* libunbound wants "name:" with the colon. */
  size_t length = strlen(option);
  char* key = malloc(length + 2);
  int err = UB_NOMEM;
  if (key) {
    memcpy(key, option, length + 1);
    if (length == 0 || option[length - 1] != ':') strcat(key, ":");
    err = ub_ctx_set_option(c->ub, key, value);
    free(key);
  }
  free(option);
  free(value);
  return setup_result(env, c, err);
}

static napi_value set_stub(napi_env env, napi_callback_info info) {
  size_t argc = 3;
  napi_value argv[3];
  Context* c = unwrap(env, info, &argc, argv);
  if (!c) return NULL;
  if (c->closed) return throw_state(env, "the libunbound context is closed");
  bool prime = false;
  if (argc < 3 || napi_get_value_bool(env, argv[2], &prime) != napi_ok) {
    napi_throw_type_error(env, NULL, "setStub(zone, address, prime)");
    return NULL;
  }
  char* zone = string_arg(env, argv[0]);
  if (!zone) return NULL;
  char* address = string_arg(env, argv[1]);
  if (!address) {
    free(zone);
    return NULL;
  }
  int err = ub_ctx_set_stub(c->ub, zone, address, prime ? 1 : 0);
  free(zone);
  free(address);
  return setup_result(env, c, err);
}

/* libunbound's answer given inside ub_resolve_event, as resolve() returns it:
 * [err, rcode, packet, sec, whyBogus, rateLimited]. */
static napi_value answer_array(napi_env env, Done* done) {
  napi_value array, null;
  napi_get_null(env, &null);
  if (napi_create_array_with_length(env, 6, &array) != napi_ok) return NULL;
  napi_value packet = done->packet ? buffer_copy(env, done->packet, (size_t)done->packet_len) : null;
  napi_value items[6] = {int32(env, done->err), int32(env, done->rcode), packet ? packet : null,
                         int32(env, done->sec), string_or_null(env, done->why_bogus), boolean(env, done->rate_limited)};
  for (uint32_t i = 0; i < 6; i++) napi_set_element(env, array, i, items[i]);
  return array;
}

/*
 * resolve() on the JS thread, with ub_lock taken (the resolver thread waits): an answer
 * libunbound has cached, or local data, comes back inside ub_resolve_event and is returned at
 * once, without a hop to any thread; otherwise the question is in flight as if the resolver
 * thread had sent it, and that thread is woken to wait for its sockets and timers too.
 */
static napi_value resolve_here(napi_env env, Context* c, char* name, int type, int klass, int token) {
  pthread_mutex_lock(&c->lock);
  int index = slot_take(c);
  if (index >= 0) {
    Slot* slot = &c->slots[index];
    slot->token = token;
    slot->state = SLOT_SENT;
    slot->async_id = 0;
  }
  pthread_mutex_unlock(&c->lock);
  if (index < 0) {
    pthread_mutex_unlock(&c->ub_lock);
    free(name);
    return throw_unbound(env, UB_NOMEM);
  }
  direct_index = index;
  direct_done = (Done){-1, 0, 0, 0, 0, NULL, 0, NULL};
  resolving = c;
  int async_id = 0;
  int err = ub_resolve_event(c->ub, name, type, klass, (void*)(intptr_t)index, on_answer, &async_id);
  resolving = NULL;
  direct_index = -1;
  free(name);
  Done done = direct_done;
  direct_done.packet = NULL;
  direct_done.why_bogus = NULL;
  if (err != UB_NOERROR) done = (Done){index, err, 0, 0, 0, NULL, 0, NULL};
  int answered = done.slot == index;
  pthread_mutex_lock(&c->lock);
  int id = c->slots[index].id;
  if (answered) slot_free(c, index);
  else c->slots[index].async_id = async_id;
  int wake_it = !answered && must_wake(c);
  pthread_mutex_unlock(&c->lock);
  /* Answers to other questions that this call completed (questions merged with this one). */
  (void)flush(c);
  pthread_mutex_unlock(&c->ub_lock);
  if (wake_it) wake(c);
  if (answered) {
    napi_value result = answer_array(env, &done);
    done_free(&done);
    return result;
  }
  c->in_flight++;
  set_loop_ref(c);
  return int32(env, id);
}

static napi_value resolve(napi_env env, napi_callback_info info) {
  size_t argc = 4;
  napi_value argv[4];
  Context* c = unwrap(env, info, &argc, argv);
  if (!c) return NULL;
  if (c->closed) return throw_state(env, "the libunbound context is closed");
  int32_t type, klass, token;
  if (argc < 4 || napi_get_value_int32(env, argv[1], &type) != napi_ok ||
      napi_get_value_int32(env, argv[2], &klass) != napi_ok || napi_get_value_int32(env, argv[3], &token) != napi_ok ||
      token <= 0) {
    napi_throw_type_error(env, NULL, "resolve(name, type, class, token > 0)");
    return NULL;
  }
  char* name = string_arg(env, argv[0]);
  if (!name) return NULL;
  if (!start(c)) {
    free(name);
    return throw_unbound(env, UB_NOMEM);
  }
  /* The resolver thread waits for events: ask libunbound here, at once. */
  if (pthread_mutex_trylock(&c->ub_lock) == 0) return resolve_here(env, c, name, type, klass, token);
  pthread_mutex_lock(&c->lock);
  int index = slot_take(c);
  if (index < 0) {
    pthread_mutex_unlock(&c->lock);
    free(name);
    return throw_unbound(env, UB_NOMEM);
  }
  Slot* slot = &c->slots[index];
  slot->token = token;
  slot->state = SLOT_QUEUED;
  slot->name = name;
  slot->type = type;
  slot->klass = klass;
  slot->async_id = 0;
  if (c->send_head < 0) c->send_head = index;
  else c->slots[c->send_tail].next = index;
  c->send_tail = index;
  int id = slot->id;
  int wake_it = must_wake(c);
  pthread_mutex_unlock(&c->lock);
  /* At most one wake-up per sleep: the resolver thread takes every question queued when it wakes. */
  if (wake_it) wake(c);
  c->in_flight++;
  set_loop_ref(c);
  return int32(env, id);
}

static napi_value cancel(napi_env env, napi_callback_info info) {
  size_t argc = 1;
  napi_value argv[1];
  Context* c = unwrap(env, info, &argc, argv);
  if (!c) return NULL;
  int32_t id;
  if (argc < 1 || napi_get_value_int32(env, argv[0], &id) != napi_ok) {
    napi_throw_type_error(env, NULL, "cancel(id)");
    return NULL;
  }
  if (c->closed) return boolean(env, 0);
  pthread_mutex_lock(&c->lock);
  int index = id & SLOT_MASK;
  Slot* slot = index < c->slots_cap ? &c->slots[index] : NULL;
  /* Delivered already (its slot free or reused), or cancelled before: nothing to do. */
  if (id < 0 || !slot || slot->id != id || slot->state == SLOT_FREE || slot->state == SLOT_CANCELLED) {
    pthread_mutex_unlock(&c->lock);
    return boolean(env, 0);
  }
  /* Queued: the resolver thread drops it. Sent: it calls ub_cancel. Either way no result reaches JS. */
  int sent = slot->state == SLOT_SENT;
  slot->state = SLOT_CANCELLED;
  int first = 0;
  if (sent) {
    if (c->n_cancels == c->cap_cancels) {
      int cap = c->cap_cancels ? c->cap_cancels * 2 : 16;
      CancelRequest* grown = realloc(c->cancels, (size_t)cap * sizeof(CancelRequest));
      /* Without room, libunbound finishes the query and its result is dropped on delivery. */
      if (grown) {
        c->cancels = grown;
        c->cap_cancels = cap;
      }
    }
    if (c->n_cancels < c->cap_cancels) {
      c->cancels[c->n_cancels++] = (CancelRequest){index, id};
      first = must_wake(c);
    }
  }
  pthread_mutex_unlock(&c->lock);
  if (first) wake(c);
  if (c->in_flight > 0) c->in_flight--;
  set_loop_ref(c);
  return boolean(env, 1);
}

/* Makes libunbound's worker now (after the configuration is final: see make_worker), then starts the resolver thread. */
static napi_value warm(napi_env env, napi_callback_info info) {
  size_t argc = 0;
  Context* c = unwrap(env, info, &argc, NULL);
  if (!c) return NULL;
  if (c->closed) return throw_state(env, "the libunbound context is closed");
  if (!c->worker_made) {
    pthread_mutex_lock(&c->ub_lock);
    make_worker(c);
    pthread_mutex_unlock(&c->ub_lock);
    pthread_mutex_lock(&c->lock);
    c->worker_made = 1;
    pthread_mutex_unlock(&c->lock);
  }
  if (!start(c)) return throw_unbound(env, UB_NOMEM);
  return NULL;
}

static napi_value close_method(napi_env env, napi_callback_info info) {
  size_t argc = 0;
  Context* c = unwrap(env, info, &argc, NULL);
  if (!c) return NULL;
  close_context(c);
  return NULL;
}

static napi_value in_flight(napi_env env, napi_callback_info info) {
  size_t argc = 0;
  Context* c = unwrap(env, info, &argc, NULL);
  if (!c) return NULL;
  return int32(env, c->in_flight);
}

/* Whether libunbound's worker is made (warm() started the thread that makes it): a question asked now waits for no setup. */
static napi_value worker_made(napi_env env, napi_callback_info info) {
  size_t argc = 0;
  Context* c = unwrap(env, info, &argc, NULL);
  if (!c) return NULL;
  pthread_mutex_lock(&c->lock);
  int made = c->worker_made;
  pthread_mutex_unlock(&c->lock);
  return boolean(env, made);
}

static napi_value closed(napi_env env, napi_callback_info info) {
  size_t argc = 0;
  Context* c = unwrap(env, info, &argc, NULL);
  if (!c) return NULL;
  return boolean(env, c->closed);
}

static napi_value version(napi_env env, napi_callback_info info) {
  (void)info;
  return string_or_null(env, ub_version());
}

static napi_value open_contexts_fn(napi_env env, napi_callback_info info) {
  (void)info;
  return int32(env, __atomic_load_n(&open_contexts, __ATOMIC_RELAXED));
}

#ifdef __GLIBC__
static void* trim_freed(void* unused) {
  (void)unused;
  malloc_trim(0);
  return NULL;
}
#endif

/*
 * returnFreedMemory(): gives the OS back the pages freed memory holds, on a short-lived thread of
 * its own. glibc gives a thread that allocates an arena of its own and returns that arena's free
 * pages only on malloc_trim: after 100,000 questions and close(), the resolver thread's arena
 * kept libunbound's freed caches, RSS 31-34 MB above the process's baseline. malloc_trim walks
 * every thread's arena: 9 ms in a small process, 21-65 ms in the bench's, time the JS thread
 * does not wait for here. A no-op without glibc; when no thread can be made, nothing is returned.
 */
static napi_value return_freed_memory(napi_env env, napi_callback_info info) {
  (void)info;
#ifdef __GLIBC__
  pthread_attr_t attr;
  pthread_t thread;
  if (pthread_attr_init(&attr) == 0) {
    pthread_attr_setdetachstate(&attr, PTHREAD_CREATE_DETACHED);
    (void)pthread_create(&thread, &attr, trim_freed, NULL);
    pthread_attr_destroy(&attr);
  }
#endif
  napi_value undefined;
  napi_get_undefined(env, &undefined);
  return undefined;
}

static napi_value strerror_fn(napi_env env, napi_callback_info info) {
  size_t argc = 1;
  napi_value argv[1];
  int32_t code = 0;
  CHECK(napi_get_cb_info(env, info, &argc, argv, NULL, NULL));
  if (argc < 1 || napi_get_value_int32(env, argv[0], &code) != napi_ok) {
    napi_throw_type_error(env, NULL, "strerror(code)");
    return NULL;
  }
  return string_or_null(env, ub_strerror(code));
}

#define METHOD(name, fn) {name, NULL, fn, NULL, NULL, NULL, napi_default, NULL}

NAPI_MODULE_INIT(/* napi_env env, napi_value exports */) {
  napi_property_descriptor methods[] = {
    METHOD("setOption", set_option),
    METHOD("setForward", set_fwd),
    METHOD("setStub", set_stub),
    METHOD("setResolveConf", resolv_conf),
    METHOD("setHosts", hosts),
    METHOD("addTrustAnchor", add_ta),
    METHOD("addTrustAnchorFile", add_ta_file),
    METHOD("removeZone", zone_remove),
    METHOD("resolve", resolve),
    METHOD("cancel", cancel),
    METHOD("warm", warm),
    METHOD("close", close_method),
    {"inFlight", NULL, NULL, in_flight, NULL, NULL, napi_default, NULL},
    {"closed", NULL, NULL, closed, NULL, NULL, napi_default, NULL},
    {"workerMade", NULL, NULL, worker_made, NULL, NULL, napi_default, NULL},
  };
  napi_value klass;
  CHECK(napi_define_class(env, "Context", NAPI_AUTO_LENGTH, context_new, NULL, sizeof methods / sizeof methods[0],
                          methods, &klass));
  napi_property_descriptor exports_[] = {
    {"Context", NULL, NULL, NULL, NULL, klass, napi_enumerable, NULL},
    METHOD("version", version),
    METHOD("strerror", strerror_fn),
    METHOD("openContexts", open_contexts_fn),
    METHOD("returnFreedMemory", return_freed_memory),
  };
  CHECK(napi_define_properties(env, exports, sizeof exports_ / sizeof exports_[0], exports_));
  CHECK(process_wide_init(env, exports));
  return exports;
}
