/*
 * dnscore's libunbound addon: asynchronous libunbound through pure Node-API (no libuv, no
 * node-gyp, no Node headers beyond node-api-headers).
 *
 * One Context per ub_ctx. ub_ctx_async(ctx, 1) at creation: libunbound resolves on a thread
 * of its own instead of forking the process. Results wait on ub_fd(); a watcher thread of
 * this addon poll()s that fd and, when it is readable, asks the JS thread (through a
 * thread-safe function) to call ub_process(), which drains every ready result in one call and
 * runs the callbacks there; the watcher then waits until that is done before polling again.
 * A pipe wakes the watcher on close so it can be joined, and when questions start to wait.
 * The thread-safe function keeps the event loop alive only while queries are in flight
 * (ref/unref).
 *
 * A safety net against a lost wakeup: while questions are in flight, the watcher asks the JS
 * thread to run ub_process at least once a second even when ub_fd did not turn readable, and
 * asks again when a request has not been served within that second (ub_process does not
 * block when nothing is ready). The watcher never leaves while the context is open: a failed
 * poll or thread-safe call is tried again after that second, and a result that cannot be kept
 * (out of memory) or a broken pipe to libunbound fails every question in flight (token 0).
 *
 * JS API: version(), strerror(code), new Context(onResult) with set/add methods that throw
 * Error { code: 'ERR_UNBOUND' } with libunbound's message, resolve(name, type, class, token)
 * -> async id, cancel(async id) -> bool, close(), and the inFlight getter. onResult(token,
 * err, result) runs on the JS thread; token 0 with an error means the context broke and every
 * query in flight failed.
 */
#define _GNU_SOURCE
#define NAPI_VERSION 8
#include <node_api.h>

#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <pthread.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unbound.h>
#include <unistd.h>

#define CHECK(call)                                                                                        \
  do {                                                                                                     \
    if ((call) != napi_ok) return NULL;                                                                    \
  } while (0)

typedef struct {
  int token;
  int err;
  struct ub_result* result;
} Done;

typedef struct {
  struct ub_ctx* ub;
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

  pthread_t watcher;
  int watching;
  int wake[2];
  pthread_mutex_t lock;
  pthread_cond_t cond;
  int calls; /* requests to run ub_process queued for the JS thread and not served yet */
  int stopping;

  int in_flight;
  int referenced;
  int busy; /* in_flight > 0, for the watcher (atomic: the JS thread writes it) */
  int lost; /* results of this ub_process that could not be kept (out of memory) */

  Done* batch;
  size_t batch_len;
  size_t batch_cap;
} Context;

/* libunbound contexts not yet deleted, in every thread of the process (for tests and leaks). */
static int open_contexts;

/* ub_process runs callbacks synchronously on the JS thread; they append to this context's batch. */
static __thread Context* processing;

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

/* A string argument copied into a malloc'd buffer (caller frees), or NULL with a TypeError thrown. */
static char* string_arg(napi_env env, napi_value value) {
  size_t length;
  if (napi_get_value_string_utf8(env, value, NULL, 0, &length) != napi_ok) {
    napi_throw_type_error(env, NULL, "expected a string");
    return NULL;
  }
  char* text = malloc(length + 1);
  if (!text) {
    napi_throw_error(env, NULL, "out of memory");
    return NULL;
  }
  napi_get_value_string_utf8(env, value, text, length + 1, &length);
  if (strlen(text) != length) {
    free(text);
    napi_throw_type_error(env, NULL, "the string holds a NUL character");
    return NULL;
  }
  return text;
}

/* Questions in flight keep the event loop alive and the JS callback (with its context) reachable. */
static void set_loop_ref(Context* c) {
  int want = c->in_flight > 0 && !c->closed;
  int was_busy = __atomic_exchange_n(&c->busy, want, __ATOMIC_RELAXED);
  if (want && !was_busy && c->watching) {
    /* The watcher may sit in an endless poll() from when nothing waited: the net needs its timeout. */
    ssize_t ignored = write(c->wake[1], "b", 1);
    (void)ignored;
  }
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

/* How long the watcher trusts ub_fd and the JS thread before it asks for ub_process anyway. */
#define SAFETY_NET_MS 1000

static int busy(Context* c) {
  return __atomic_load_n(&c->busy, __ATOMIC_RELAXED);
}

/* Waits on the condition variable for at most `ms`; the lock is held. Returns ETIMEDOUT or 0. */
static int wait_ms(Context* c, int ms) {
  struct timespec until;
  clock_gettime(CLOCK_MONOTONIC, &until);
  until.tv_sec += ms / 1000;
  until.tv_nsec += (long)(ms % 1000) * 1000000L;
  if (until.tv_nsec >= 1000000000L) {
    until.tv_sec++;
    until.tv_nsec -= 1000000000L;
  }
  return pthread_cond_timedwait(&c->cond, &c->lock, &until);
}

/* A pause that close() cuts short (after a failed poll or thread-safe call). */
static void pause_watcher(Context* c) {
  pthread_mutex_lock(&c->lock);
  if (!c->stopping) wait_ms(c, SAFETY_NET_MS);
  pthread_mutex_unlock(&c->lock);
}

enum ask { ASKED, ASK_FAILED, ASK_CLOSING };

/* Queues a request for ub_process on the JS thread. */
static enum ask ask_js(Context* c) {
  pthread_mutex_lock(&c->lock);
  c->calls++;
  pthread_mutex_unlock(&c->lock);
  napi_status status = napi_call_threadsafe_function(c->tsfn, NULL, napi_tsfn_nonblocking);
  if (status == napi_ok) return ASKED;
  pthread_mutex_lock(&c->lock);
  c->calls--;
  pthread_mutex_unlock(&c->lock);
  /* Closing: close() (which settles every question in JS) or the environment's teardown. */
  return status == napi_closing ? ASK_CLOSING : ASK_FAILED;
}

static void* watch(void* arg) {
  Context* c = arg;
  struct pollfd fds[2];
  fds[0].fd = ub_fd(c->ub);
  fds[0].events = POLLIN;
  fds[1].fd = c->wake[0];
  fds[1].events = POLLIN;
  for (;;) {
    /* Wait until the JS thread served the requests; past the net's time with questions waiting, ask again. */
    int again = 0;
    pthread_mutex_lock(&c->lock);
    while (c->calls > 0 && !c->stopping && !again) {
      if (wait_ms(c, SAFETY_NET_MS) == ETIMEDOUT && c->calls > 0 && busy(c)) again = 1;
    }
    int stop = c->stopping;
    pthread_mutex_unlock(&c->lock);
    if (stop) break;
    if (!again) {
      fds[0].revents = fds[1].revents = 0;
      int ready = poll(fds, 2, busy(c) ? SAFETY_NET_MS : -1);
      if (ready < 0) {
        if (errno != EINTR) pause_watcher(c); /* e.g. ENOMEM: leaving would strand the questions */
        continue;
      }
      if (fds[1].revents) {
        char drain[16];
        while (read(c->wake[0], drain, sizeof drain) > 0) {
        }
        continue;
      }
      /* Timed out: ask anyway while questions wait (a readiness missed must not stall them). */
      if (!fds[0].revents && !busy(c)) continue;
    }
    enum ask asked = ask_js(c);
    if (asked == ASK_CLOSING) break;
    if (asked == ASK_FAILED) pause_watcher(c);
  }
  return NULL;
}

/* Stops the watcher and frees libunbound's context; idempotent, JS thread only. */
static void shutdown_context(Context* c) {
  if (c->closed) return;
  c->closed = 1;
  __atomic_sub_fetch(&open_contexts, 1, __ATOMIC_RELAXED);
  if (c->watching) {
    pthread_mutex_lock(&c->lock);
    c->stopping = 1;
    pthread_cond_signal(&c->cond);
    pthread_mutex_unlock(&c->lock);
    ssize_t ignored = write(c->wake[1], "x", 1);
    (void)ignored;
    pthread_join(c->watcher, NULL);
    c->watching = 0;
  }
  /* Deleting joins libunbound's thread; queries in flight are dropped without callbacks. */
  if (!c->poisoned) ub_ctx_delete(c->ub);
  c->ub = NULL;
  c->in_flight = 0;
  close(c->wake[0]);
  close(c->wake[1]);
}

static void release_owner(Context* c) {
  if (--c->owners > 0) return;
  pthread_mutex_destroy(&c->lock);
  pthread_cond_destroy(&c->cond);
  free(c->batch);
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

static void on_result(void* mydata, int err, struct ub_result* result) {
  Context* c = processing;
  if (!c) {
    if (result) ub_resolve_free(result);
    return;
  }
  /* resolve() keeps room for every query in flight; grown here should it not (never dropped silently). */
  if (c->batch_len == c->batch_cap) {
    size_t cap = c->batch_cap ? c->batch_cap * 2 : 64;
    Done* grown = realloc(c->batch, cap * sizeof(Done));
    if (!grown) {
      if (result) ub_resolve_free(result);
      c->lost++;
      return;
    }
    c->batch = grown;
    c->batch_cap = cap;
  }
  c->batch[c->batch_len].token = (int)(intptr_t)mydata;
  c->batch[c->batch_len].err = err;
  c->batch[c->batch_len].result = result;
  c->batch_len++;
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

/* struct ub_result as a plain object, the shape of UnboundResultRaw. */
static napi_value result_object(napi_env env, struct ub_result* r) {
  napi_value data;
  size_t count = 0;
  while (r->data && r->data[count]) count++;
  CHECK(napi_create_array_with_length(env, count, &data));
  for (size_t i = 0; i < count; i++) {
    napi_value item = buffer_copy(env, r->data[i], (size_t)r->len[i]);
    if (!item) return NULL;
    napi_set_element(env, data, (uint32_t)i, item);
  }
  napi_value packet;
  /* With no reply (a dead server), libunbound's thread hands over a bare header without a
   * question: no packet, as ub_resolve gives. */
  const unsigned char* bytes = r->answer_packet;
  int questions = r->answer_len >= 12 ? (bytes[4] << 8) | bytes[5] : 0;
  if (r->answer_packet && r->answer_len > 12 && questions > 0) {
    packet = buffer_copy(env, r->answer_packet, (size_t)r->answer_len);
    if (!packet) return NULL;
  } else {
    napi_get_null(env, &packet);
  }
  napi_value object;
  CHECK(napi_create_object(env, &object));
  napi_property_descriptor fields[] = {
    {"qname", NULL, NULL, NULL, NULL, string_or_null(env, r->qname), napi_enumerable, NULL},
    {"qtype", NULL, NULL, NULL, NULL, int32(env, r->qtype), napi_enumerable, NULL},
    {"qclass", NULL, NULL, NULL, NULL, int32(env, r->qclass), napi_enumerable, NULL},
    {"data", NULL, NULL, NULL, NULL, data, napi_enumerable, NULL},
    {"canonName", NULL, NULL, NULL, NULL, string_or_null(env, r->canonname), napi_enumerable, NULL},
    {"rcode", NULL, NULL, NULL, NULL, int32(env, r->rcode), napi_enumerable, NULL},
    {"answerPacket", NULL, NULL, NULL, NULL, packet, napi_enumerable, NULL},
    {"haveData", NULL, NULL, NULL, NULL, boolean(env, r->havedata), napi_enumerable, NULL},
    {"nxDomain", NULL, NULL, NULL, NULL, boolean(env, r->nxdomain), napi_enumerable, NULL},
    {"secure", NULL, NULL, NULL, NULL, boolean(env, r->secure), napi_enumerable, NULL},
    {"bogus", NULL, NULL, NULL, NULL, boolean(env, r->bogus), napi_enumerable, NULL},
    {"whyBogus", NULL, NULL, NULL, NULL, string_or_null(env, r->why_bogus), napi_enumerable, NULL},
    {"wasRateLimited", NULL, NULL, NULL, NULL, boolean(env, r->was_ratelimited), napi_enumerable, NULL},
    {"ttl", NULL, NULL, NULL, NULL, int32(env, r->ttl), napi_enumerable, NULL},
  };
  CHECK(napi_define_properties(env, object, sizeof fields / sizeof fields[0], fields));
  return object;
}

/*
 * One ub_process: every ready result, delivered to JS in order. Returns ub_process's status,
 * or UB_NOMEM when a result could not be kept: its question would never settle otherwise.
 */
static int drain(napi_env env, napi_value on_result_fn, Context* c) {
  c->batch_len = 0;
  c->lost = 0;
  processing = c;
  int status = ub_process(c->ub);
  processing = NULL;
  if (status == UB_NOERROR && c->lost > 0) status = UB_NOMEM;
  /* The batch is taken: a resolve() from a callback below grows a new one. */
  size_t count = c->batch_len;
  Done* batch = c->batch;
  size_t batch_cap = c->batch_cap;
  c->batch = NULL;
  c->batch_cap = 0;
  c->batch_len = 0;

  c->in_flight -= (int)count;
  if (c->in_flight < 0 || status != UB_NOERROR) c->in_flight = 0;
  set_loop_ref(c);

  napi_value undefined;
  napi_get_undefined(env, &undefined);
  for (size_t i = 0; i < count; i++) {
    Done* done = &batch[i];
    /* A close() from an earlier callback drops the rest: their queries were settled by it. */
    if (!c->closed && on_result_fn) {
      napi_value args[3];
      args[0] = int32(env, done->token);
      args[1] = int32(env, done->err);
      args[2] = done->result ? result_object(env, done->result) : undefined;
      if (!args[2]) args[2] = undefined;
      napi_value ignored;
      napi_call_function(env, undefined, on_result_fn, 3, args, &ignored);
    }
    if (done->result) ub_resolve_free(done->result);
  }
  /* A resolve() from a callback made a new batch meanwhile: keep the larger one. */
  if (c->batch == NULL || c->batch_cap < batch_cap) {
    free(c->batch);
    c->batch = batch;
    c->batch_cap = batch_cap;
  } else {
    free(batch);
  }
  return status;
}

/* Rounds of ub_process per wakeup at most: results that arrive while others are delivered. */
#define MAX_DRAINS 16

/*
 * On the JS thread, when the watcher saw ub_fd readable. The watcher waits meanwhile, so the
 * results that libunbound writes while a batch is delivered are taken here (ub_poll), without
 * another round through the watcher; then the watcher polls again.
 */
static void call_js(napi_env env, napi_value unused, void* context, void* data) {
  (void)data;
  (void)unused;
  Context* c = context;
  if (!env || c->closed) return;
  /* Taken before the drain, which may make the reference weak again. */
  napi_value on_result_fn = NULL;
  if (c->on_result) napi_get_reference_value(env, c->on_result, &on_result_fn);
  int status = drain(env, on_result_fn, c);
  for (int round = 1; status == UB_NOERROR && !c->closed && round < MAX_DRAINS && ub_poll(c->ub); round++) {
    status = drain(env, on_result_fn, c);
  }
  if (c->closed) return; /* close() stopped the watcher */
  pthread_mutex_lock(&c->lock);
  if (c->calls > 0) c->calls--;
  /* The pipe to libunbound's thread broke, or a result was lost: every question fails below. */
  if (status != UB_NOERROR) c->stopping = 1;
  pthread_cond_signal(&c->cond);
  pthread_mutex_unlock(&c->lock);
  if (status != UB_NOERROR && on_result_fn) {
    napi_value undefined, ignored;
    napi_get_undefined(env, &undefined);
    napi_value args[3] = {int32(env, 0), int32(env, status), undefined};
    napi_call_function(env, undefined, on_result_fn, 3, args, &ignored);
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
  c->ub = ub_ctx_create();
  if (!c->ub) {
    free(c);
    return throw_unbound(env, UB_NOMEM);
  }
  /* A thread, not a forked process: forking a Node process is never right. */
  int err = ub_ctx_async(c->ub, 1);
  if (err != UB_NOERROR || pipe2(c->wake, O_CLOEXEC | O_NONBLOCK) != 0) {
    ub_ctx_delete(c->ub);
    free(c);
    return throw_unbound(env, err != UB_NOERROR ? err : UB_SOCKET);
  }
  pthread_mutex_init(&c->lock, NULL);
  /* Monotonic: the watcher's timed waits do not jump with the wall clock. */
  pthread_condattr_t cond_attr;
  pthread_condattr_init(&cond_attr);
  pthread_condattr_setclock(&cond_attr, CLOCK_MONOTONIC);
  pthread_cond_init(&c->cond, &cond_attr);
  pthread_condattr_destroy(&cond_attr);
  napi_value name;
  napi_create_string_utf8(env, "libunbound results", NAPI_AUTO_LENGTH, &name);
  if (napi_create_reference(env, argv[0], 0, &c->on_result) != napi_ok ||
      napi_create_threadsafe_function(env, NULL, NULL, name, 0, 1, c, on_tsfn_finalize, c, call_js, &c->tsfn) !=
        napi_ok) {
    if (c->on_result) napi_delete_reference(env, c->on_result);
    ub_ctx_delete(c->ub);
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
  if (c->batch_cap < (size_t)c->in_flight + 1) {
    size_t cap = c->batch_cap ? c->batch_cap : 64;
    while (cap < (size_t)c->in_flight + 1) cap *= 2;
    Done* grown = realloc(c->batch, cap * sizeof(Done));
    if (!grown) return throw_unbound(env, UB_NOMEM);
    c->batch = grown;
    c->batch_cap = cap;
  }
  char* name = string_arg(env, argv[0]);
  if (!name) return NULL;
  int async_id = 0;
  int err = ub_resolve_async(c->ub, name, type, klass, (void*)(intptr_t)token, on_result, &async_id);
  free(name);
  if (err != UB_NOERROR) return throw_unbound(env, err);
  if (!c->watching) {
    if (pthread_create(&c->watcher, NULL, watch, c) != 0) {
      ub_cancel(c->ub, async_id);
      return throw_unbound(env, UB_NOMEM);
    }
    c->watching = 1;
  }
  c->in_flight++;
  set_loop_ref(c);
  return int32(env, async_id);
}

static napi_value cancel(napi_env env, napi_callback_info info) {
  size_t argc = 1;
  napi_value argv[1];
  Context* c = unwrap(env, info, &argc, argv);
  if (!c) return NULL;
  int32_t async_id;
  if (argc < 1 || napi_get_value_int32(env, argv[0], &async_id) != napi_ok) {
    napi_throw_type_error(env, NULL, "cancel(asyncId)");
    return NULL;
  }
  if (c->closed) return boolean(env, 0);
  /* UB_NOID: the answer is already out (delivered or in the batch being delivered). */
  int cancelled = ub_cancel(c->ub, async_id) == UB_NOERROR;
  if (cancelled && c->in_flight > 0) c->in_flight--;
  set_loop_ref(c);
  return boolean(env, cancelled);
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
    METHOD("close", close_method),
    {"inFlight", NULL, NULL, in_flight, NULL, NULL, napi_default, NULL},
    {"closed", NULL, NULL, closed, NULL, NULL, napi_default, NULL},
  };
  napi_value klass;
  CHECK(napi_define_class(env, "Context", NAPI_AUTO_LENGTH, context_new, NULL, sizeof methods / sizeof methods[0],
                          methods, &klass));
  napi_property_descriptor exports_[] = {
    {"Context", NULL, NULL, NULL, NULL, klass, napi_enumerable, NULL},
    METHOD("version", version),
    METHOD("strerror", strerror_fn),
    METHOD("openContexts", open_contexts_fn),
  };
  CHECK(napi_define_properties(env, exports, sizeof exports_ / sizeof exports_[0], exports_));
  return exports;
}
