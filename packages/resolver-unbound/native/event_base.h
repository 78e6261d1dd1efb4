/*
 * A small event base for libunbound's pluggable event API (unbound-event.h), run by one thread
 * with poll(): libunbound's sockets and timers live here instead of on a thread of libunbound's
 * own. Events follow libevent's rules, which libunbound expects: an event that is not
 * persistent is removed before its callback runs; a persistent one with a timeout has the
 * timeout armed again each time it fires. Callbacks may add, delete and free any event,
 * including the one running: an event freed during a dispatch is freed after it.
 *
 * One thread only: the thread that runs dispatch_events() and calls ub_resolve_event/ub_cancel
 * (before that thread starts and after it ends, the thread that owns the context).
 */
#ifndef DNSCORE_EVENT_BASE_H
#define DNSCORE_EVENT_BASE_H

#include <poll.h>
#include <stdint.h>
#include <unbound-event.h>

typedef struct Event Event;

typedef struct {
  struct ub_event_base super; /* first: libunbound sees a struct ub_event_base* */
  Event** active;             /* events added (waiting on their fd and/or deadline) */
  int n_active;
  int cap_active;
  Event* dead; /* freed while dispatching: released at its end */
  int dispatching;
  /* poll()'s array, rebuilt each round: [0] is the caller's fd, then one per fd event. */
  struct pollfd* fds;
  Event** fd_events;
  int cap_fds;
  /* Events due in this round: the event, its activation count then, and the bits that fired. */
  struct Ready* ready;
  int cap_ready;
} EventBase;

/* An empty base (magic and methods set); 0 on success. */
void event_base_init(EventBase* base);

/* Frees what the base still holds; every event must have been freed (ub_ctx_delete does). */
void event_base_release(EventBase* base);

/*
 * One round: poll()s `extra_fd` (POLLIN) and every event's fd until one is ready or the
 * nearest deadline passes, then runs the callbacks of what is due. Returns 1 when `extra_fd`
 * was readable, 0 when not, -1 when poll() failed (errno set).
 */
int dispatch_events(EventBase* base, int extra_fd);

#endif
