/* The epoll/poll() event base of event_base.h. */
#define _GNU_SOURCE
#include "event_base.h"

#include <errno.h>
#include <fcntl.h>
#include <stdlib.h>
#include <unistd.h>
/* epoll on Linux; poll() elsewhere, and with EVENT_BASE_POLL (the tests build that too). */
#if defined(__linux__) && !defined(EVENT_BASE_POLL)
#define USE_EPOLL 1
#include <sys/epoll.h>
#endif
#include <string.h>
#include <sys/time.h>
#include <time.h>

struct Event {
  struct ub_event super; /* first: libunbound sees a struct ub_event* */
  EventBase* base;
  int fd;
  short bits; /* UB_EV_READ, UB_EV_WRITE, UB_EV_TIMEOUT, UB_EV_PERSIST */
  void (*cb)(int, short, void*);
  void* arg;
  int slot;           /* index in base->active, -1 when not added */
  int heap_slot;      /* index in base->timers, -1 when not there */
  int watched_fd;     /* the fd registered with epoll, -1 when none */
  short watched;      /* and the bits it is registered for */
  int has_deadline;   /* added with a timeout (in base->timers, or taken out as due this round) */
  uint64_t deadline;  /* microseconds, monotonic */
  uint64_t timeout;   /* the timeout itself, to arm a persistent event again */
  unsigned serial;    /* counts add() and del(): a due event changed meanwhile is not run */
  unsigned added_in;  /* the unlocked wait (EventBase.wait_round) during which it was last added */
  int dead;           /* freed during a dispatch */
  Event* next_dead;
};

struct Ready {
  Event* event;
  unsigned serial;
  short fired;
};

#ifdef EVENT_BASE_TEST_CLOCK
/* The event base's own test (test/native) drives the clock, so deadlines are exact there. */
uint64_t EVENT_BASE_TEST_CLOCK(void);
#define now_us EVENT_BASE_TEST_CLOCK
#else
static uint64_t now_us(void) {
  struct timespec ts;
  clock_gettime(CLOCK_MONOTONIC, &ts);
  return (uint64_t)ts.tv_sec * 1000000u + (uint64_t)ts.tv_nsec / 1000u;
}
#endif

/*
 * The deadlines: a binary min-heap on base->timers, each event knowing its index (heap_slot), so
 * the nearest is timers[0] and adding, moving or removing one is O(log n). The array has room for
 * every active event (it grows with base->active), so putting an event in never fails.
 */
static void heap_place(EventBase* base, Event* ev, int i) {
  base->timers[i] = ev;
  ev->heap_slot = i;
}

static void heap_up(EventBase* base, int i) {
  Event* ev = base->timers[i];
  while (i > 0) {
    int parent = (i - 1) / 2;
    if (base->timers[parent]->deadline <= ev->deadline) break;
    heap_place(base, base->timers[parent], i);
    i = parent;
  }
  heap_place(base, ev, i);
}

static void heap_down(EventBase* base, int i) {
  Event* ev = base->timers[i];
  for (;;) {
    int child = 2 * i + 1;
    if (child >= base->n_timers) break;
    if (child + 1 < base->n_timers && base->timers[child + 1]->deadline < base->timers[child]->deadline) child++;
    if (ev->deadline <= base->timers[child]->deadline) break;
    heap_place(base, base->timers[child], i);
    i = child;
  }
  heap_place(base, ev, i);
}

static void heap_remove(Event* ev) {
  int i = ev->heap_slot;
  if (i < 0) return;
  EventBase* base = ev->base;
  ev->heap_slot = -1;
  Event* last = base->timers[--base->n_timers];
  if (last == ev) return;
  heap_place(base, last, i);
  heap_up(base, i);
  heap_down(base, last->heap_slot);
}

/* Sets the event's deadline, in the heap or moved within it. */
static void heap_set(Event* ev, uint64_t deadline) {
  EventBase* base = ev->base;
  ev->deadline = deadline;
  if (ev->heap_slot < 0) {
    heap_place(base, ev, base->n_timers++);
    heap_up(base, ev->heap_slot);
  } else {
    heap_up(base, ev->heap_slot);
    heap_down(base, ev->heap_slot);
  }
}

/* The nearest deadline, out of the heap. */
static Event* heap_pop(EventBase* base) {
  Event* ev = base->timers[0];
  heap_remove(ev);
  return ev;
}

/* Keeps epoll's registration of an event's fd in step with what it waits for (none when inactive). */
static void watch_fd(Event* ev, int active) {
#ifdef USE_EPOLL
  EventBase* base = ev->base;
  if (base->epoll_fd < 0) return;
  short want = active && ev->fd >= 0 ? (short)(ev->bits & (UB_EV_READ | UB_EV_WRITE)) : 0;
  int fd = want ? ev->fd : -1;
  if (fd == ev->watched_fd && want == ev->watched) return;
  if (ev->watched_fd >= 0 && ev->watched_fd != fd) {
    /* The fd may be closed already (epoll forgot it then). */
    epoll_ctl(base->epoll_fd, EPOLL_CTL_DEL, ev->watched_fd, NULL);
    ev->watched_fd = -1;
    ev->watched = 0;
  }
  if (fd < 0) return;
  struct epoll_event event = {0};
  event.events = ((want & UB_EV_READ) ? EPOLLIN : 0) | ((want & UB_EV_WRITE) ? EPOLLOUT : 0);
  event.data.ptr = ev;
  int op = ev->watched_fd == fd ? EPOLL_CTL_MOD : EPOLL_CTL_ADD;
  if (epoll_ctl(base->epoll_fd, op, fd, &event) != 0 && op == EPOLL_CTL_ADD && errno == EEXIST) {
    epoll_ctl(base->epoll_fd, EPOLL_CTL_MOD, fd, &event);
  }
  ev->watched_fd = fd;
  ev->watched = want;
#else
  (void)ev;
  (void)active;
#endif
}

static void deactivate(Event* ev) {
  ev->serial++;
  ev->has_deadline = 0;
  heap_remove(ev);
  watch_fd(ev, 0);
  if (ev->slot < 0) return;
  EventBase* base = ev->base;
  Event* last = base->active[--base->n_active];
  base->active[ev->slot] = last;
  last->slot = ev->slot;
  ev->slot = -1;
}

static int activate(Event* ev, struct timeval* tv) {
  EventBase* base = ev->base;
  ev->serial++;
  if (base->waiting_unlocked) ev->added_in = base->wait_round;
  if (ev->slot < 0) {
    if (base->n_active == base->cap_active) {
      int cap = base->cap_active ? base->cap_active * 2 : 64;
      Event** timers = realloc(base->timers, (size_t)cap * sizeof(Event*));
      if (!timers) return -1;
      base->timers = timers;
      Event** grown = realloc(base->active, (size_t)cap * sizeof(Event*));
      if (!grown) return -1;
      base->active = grown;
      base->cap_active = cap;
    }
    ev->slot = base->n_active;
    base->active[base->n_active++] = ev;
  }
  watch_fd(ev, 1);
  ev->has_deadline = tv != NULL;
  if (tv) {
    ev->timeout = (uint64_t)tv->tv_sec * 1000000u + (uint64_t)tv->tv_usec;
    heap_set(ev, now_us() + ev->timeout);
  } else {
    heap_remove(ev);
  }
  return 0;
}

static void ev_add_bits(struct ub_event* ev, short bits) {
  ((Event*)ev)->bits |= bits;
}

static void ev_del_bits(struct ub_event* ev, short bits) {
  ((Event*)ev)->bits &= (short)~bits;
}

/*
 * libunbound opens its sockets without close-on-exec: a child the process spawns while questions are
 * in flight would inherit them (and keep their epoll registrations alive). libunbound hands each new
 * fd to us once, at new_event or set_fd, before it is waited on: it is marked there (one fcntl;
 * FD_CLOEXEC is the only fd flag). A fork between libunbound's socket() and this call still inherits.
 */
static void mark_cloexec(Event* ev) {
  if (ev->fd >= 0) fcntl(ev->fd, F_SETFD, FD_CLOEXEC);
}

static void ev_set_fd(struct ub_event* ev, int fd) {
  ((Event*)ev)->fd = fd;
  mark_cloexec((Event*)ev);
}

static void ev_free(struct ub_event* uev) {
  Event* ev = (Event*)uev;
  if (!ev) return;
  deactivate(ev);
  if (ev->base->dispatching) {
    ev->dead = 1;
    ev->next_dead = ev->base->dead;
    ev->base->dead = ev;
  } else {
    free(ev);
  }
}

static int ev_add(struct ub_event* ev, struct timeval* tv) {
  return activate((Event*)ev, tv);
}

static int ev_del(struct ub_event* ev) {
  deactivate((Event*)ev);
  return 0;
}

static int ev_add_timer(struct ub_event* uev, struct ub_event_base* base, void (*cb)(int, short, void*), void* arg,
                        struct timeval* tv) {
  (void)base;
  Event* ev = (Event*)uev;
  deactivate(ev);
  ev->cb = cb;
  ev->arg = arg;
  ev->fd = -1;
  ev->bits = UB_EV_TIMEOUT;
  return activate(ev, tv);
}

static int ev_del_timer(struct ub_event* ev) {
  deactivate((Event*)ev);
  return 0;
}

/* Signals and Windows events: libunbound never asks for them here. */
static int ev_signal(struct ub_event* ev, struct timeval* tv) {
  (void)ev;
  (void)tv;
  return -1;
}

static int ev_del_signal(struct ub_event* ev) {
  (void)ev;
  return -1;
}

static void ev_unregister_wsaevent(struct ub_event* ev) {
  (void)ev;
}

static void ev_tcp_wouldblock(struct ub_event* ev, int bit) {
  (void)ev;
  (void)bit;
}

static struct ub_event_vmt event_vmt = {
  ev_add_bits, ev_del_bits, ev_set_fd, ev_free,   ev_add,
  ev_del,      ev_add_timer, ev_del_timer, ev_signal, ev_del_signal,
  ev_unregister_wsaevent, ev_tcp_wouldblock,
};

static void base_free(struct ub_event_base* base) {
  (void)base; /* the owner releases it (event_base_release) */
}

static int base_dispatch(struct ub_event_base* base) {
  (void)base; /* not called with ub_resolve_event: the owner runs dispatch_events() */
  return -1;
}

static int base_loopexit(struct ub_event_base* base, struct timeval* tv) {
  (void)base;
  (void)tv;
  return 0;
}

static struct ub_event* base_new_event(struct ub_event_base* ubase, int fd, short bits, void (*cb)(int, short, void*),
                                       void* arg) {
  Event* ev = calloc(1, sizeof(Event));
  if (!ev) return NULL;
  ev->super.magic = UB_EVENT_MAGIC;
  ev->super.vmt = &event_vmt;
  ev->base = (EventBase*)ubase;
  ev->fd = fd;
  ev->bits = bits;
  ev->cb = cb;
  ev->arg = arg;
  ev->slot = -1;
  ev->heap_slot = -1;
  ev->watched_fd = -1;
  mark_cloexec(ev);
  return &ev->super;
}

static struct ub_event* base_new_signal(struct ub_event_base* base, int fd, void (*cb)(int, short, void*), void* arg) {
  (void)base;
  (void)fd;
  (void)cb;
  (void)arg;
  return NULL;
}

static struct ub_event* base_register_wsaevent(struct ub_event_base* base, void* wsaevent,
                                               void (*cb)(int, short, void*), void* arg) {
  (void)base;
  (void)wsaevent;
  (void)cb;
  (void)arg;
  return NULL;
}

static struct ub_event_base_vmt base_vmt = {
  base_free, base_dispatch, base_loopexit, base_new_event, base_new_signal, base_register_wsaevent,
};

int event_base_init(EventBase* base, int extra_fd) {
  memset(base, 0, sizeof *base);
  base->super.magic = UB_EVENT_MAGIC;
  base->super.vmt = &base_vmt;
  base->extra_fd = extra_fd;
  base->epoll_fd = -1;
#ifdef USE_EPOLL
  base->epoll_fd = epoll_create1(EPOLL_CLOEXEC);
  if (base->epoll_fd < 0) return -1;
  struct epoll_event event = {0};
  event.events = EPOLLIN;
  event.data.ptr = NULL;
  if (epoll_ctl(base->epoll_fd, EPOLL_CTL_ADD, extra_fd, &event) != 0) {
    close(base->epoll_fd);
    base->epoll_fd = -1;
    return -1;
  }
#endif
  return 0;
}

static void release_dead(EventBase* base) {
  while (base->dead) {
    Event* ev = base->dead;
    base->dead = ev->next_dead;
    free(ev);
  }
}

void event_base_release(EventBase* base) {
  release_dead(base);
  if (base->epoll_fd >= 0) close(base->epoll_fd);
  base->epoll_fd = -1;
  free(base->active);
  free(base->timers);
  free(base->fds);
  free(base->fd_events);
  free(base->ready);
  base->active = NULL;
  base->timers = NULL;
  base->fds = NULL;
  base->fd_events = NULL;
  base->ready = NULL;
  base->n_active = base->cap_active = base->n_timers = base->cap_fds = base->cap_ready = 0;
}

static int grow_fds(EventBase* base, int need) {
  if (need <= base->cap_fds) return 1;
  int cap = base->cap_fds ? base->cap_fds : 64;
  while (cap < need) cap *= 2;
  struct pollfd* fds = realloc(base->fds, (size_t)cap * sizeof(struct pollfd));
  if (!fds) return 0;
  base->fds = fds;
  Event** events = realloc(base->fd_events, (size_t)cap * sizeof(Event*));
  if (!events) return 0;
  base->fd_events = events;
  base->cap_fds = cap;
  return 1;
}

static int grow_ready(EventBase* base, int need) {
  if (need <= base->cap_ready) return 1;
  int cap = base->cap_ready ? base->cap_ready : 64;
  while (cap < need) cap *= 2;
  struct Ready* ready = realloc(base->ready, (size_t)cap * sizeof(struct Ready));
  if (!ready) return 0;
  base->ready = ready;
  base->cap_ready = cap;
  return 1;
}

/* The nearest deadline's distance in ms for poll/epoll_wait (-1: none). */
static int wait_ms(EventBase* base) {
  if (base->n_timers == 0) return -1;
  uint64_t nearest = base->timers[0]->deadline;
  uint64_t now = now_us();
  return nearest <= now ? 0 : (int)((nearest - now + 999) / 1000);
}

/* The wait itself, without the lock: another thread may use libunbound meanwhile (frees deferred). */
static int wait_unlocked(EventBase* base, pthread_mutex_t* lock, int (*wait)(EventBase*, int), int timeout) {
  base->dispatching = 1;
  base->wait_round++;
  base->waiting_unlocked = 1;
  pthread_mutex_unlock(lock);
  int n = wait(base, timeout);
  int saved = errno;
  pthread_mutex_lock(lock);
  base->waiting_unlocked = 0;
  errno = saved;
  return n;
}

/* True for an event added by another thread during this round's unlocked wait: its readiness may be stale. */
static int added_during_wait(EventBase* base, Event* ev, int unlocked) {
  return unlocked && ev->added_in == base->wait_round;
}

#ifdef USE_EPOLL
static int epoll_wait_base(EventBase* base, int timeout) {
  int max = (int)((size_t)base->cap_fds * sizeof(Event*) / sizeof(struct epoll_event));
  return epoll_wait(base->epoll_fd, (struct epoll_event*)base->fd_events, max, timeout);
}
#endif

static int poll_base(EventBase* base, int timeout) {
  return poll(base->fds, (nfds_t)base->n_fds, timeout);
}

int dispatch_events(EventBase* base, int now_only, pthread_mutex_t* lock) {
  /* Room for every active event's fd and the extra fd (due events: counted after the wait). */
  if (!grow_fds(base, base->n_active + 1)) {
    errno = ENOMEM;
    return -1;
  }
  int woken = 0;
  int due = 0;
#ifdef USE_EPOLL
  if (base->epoll_fd >= 0) {
    /* epoll_event and pollfd arrays share the room grown above (an epoll_event is 12 bytes). */
    struct epoll_event* ready = (struct epoll_event*)base->fd_events;
    int n = now_only ? epoll_wait_base(base, 0) : wait_unlocked(base, lock, epoll_wait_base, wait_ms(base));
    if (n < 0) {
      base->dispatching = 0;
      release_dead(base);
      return errno == EINTR ? 0 : -1;
    }
    /* Events added while the lock was released may be due too: room for all of them. */
    if (!grow_ready(base, n + base->n_active)) {
      base->dispatching = 0;
      release_dead(base);
      errno = ENOMEM;
      return -1;
    }
    for (int i = 0; i < n; i++) {
      Event* ev = ready[i].data.ptr;
      if (!ev) {
        woken = 1;
        continue;
      }
      if (ev->dead || ev->slot < 0) continue; /* freed or deleted while the lock was released */
      if (added_during_wait(base, ev, !now_only)) continue; /* its state may predate the add */
      uint32_t revents = ready[i].events;
      short fired = 0;
      if ((ev->bits & UB_EV_READ) && (revents & (EPOLLIN | EPOLLHUP | EPOLLERR))) fired |= UB_EV_READ;
      if ((ev->bits & UB_EV_WRITE) && (revents & (EPOLLOUT | EPOLLHUP | EPOLLERR))) fired |= UB_EV_WRITE;
      if (fired) base->ready[due++] = (struct Ready){ev, ev->serial, fired};
    }
  } else
#endif
  {
    int n = 0;
    base->fds[n].fd = base->extra_fd;
    base->fds[n].events = POLLIN;
    base->fds[n].revents = 0;
    base->fd_events[n++] = NULL;
    for (int i = 0; i < base->n_active; i++) {
      Event* ev = base->active[i];
      short want = (short)(((ev->bits & UB_EV_READ) ? POLLIN : 0) | ((ev->bits & UB_EV_WRITE) ? POLLOUT : 0));
      if (ev->fd < 0 || !want) continue;
      base->fds[n].fd = ev->fd;
      base->fds[n].events = want;
      base->fds[n].revents = 0;
      base->fd_events[n++] = ev;
    }
    base->n_fds = n;
    int polled = now_only ? poll_base(base, 0) : wait_unlocked(base, lock, poll_base, wait_ms(base));
    if (polled < 0) {
      base->dispatching = 0;
      release_dead(base);
      return errno == EINTR ? 0 : -1;
    }
    woken = base->fds[0].revents != 0;
    if (!grow_ready(base, n + base->n_active)) {
      base->dispatching = 0;
      release_dead(base);
      errno = ENOMEM;
      return -1;
    }
    for (int i = 1; i < n; i++) {
      short revents = base->fds[i].revents;
      if (!revents) continue;
      Event* ev = base->fd_events[i];
      if (ev->dead || ev->slot < 0) continue; /* freed or deleted while the lock was released */
      if (added_during_wait(base, ev, !now_only)) continue; /* its state may predate the add */
      short fired = 0;
      if ((ev->bits & UB_EV_READ) && (revents & (POLLIN | POLLHUP | POLLERR))) fired |= UB_EV_READ;
      if ((ev->bits & UB_EV_WRITE) && (revents & (POLLOUT | POLLHUP | POLLERR))) fired |= UB_EV_WRITE;
      if (fired) base->ready[due++] = (struct Ready){ev, ev->serial, fired};
    }
  }

  uint64_t now = now_us();

  /* Due deadlines, nearest first, out of the heap (an event skipped below was deleted or added
   * again meanwhile, which set its place; one that runs is removed or armed again). */
  while (base->n_timers > 0 && base->timers[0]->deadline <= now) {
    Event* ev = heap_pop(base);
    base->ready[due++] = (struct Ready){ev, ev->serial, UB_EV_TIMEOUT};
  }

  base->dispatching = 1;
  for (int i = 0; i < due; i++) {
    Event* ev = base->ready[i].event;
    /* Freed, deleted or added again by an earlier callback of this round: not due any more. */
    if (ev->dead || ev->slot < 0 || ev->serial != base->ready[i].serial) continue;
    if (!(ev->bits & UB_EV_PERSIST)) {
      deactivate(ev);
    } else if (ev->has_deadline) {
      heap_set(ev, now + ev->timeout);
      ev->serial++; /* fired once this round: its deadline entry, if any, is not run too */
    } else {
      ev->serial++;
    }
    ev->cb(ev->fd, base->ready[i].fired, ev->arg);
  }
  base->dispatching = 0;
  release_dead(base);
  return woken;
}
