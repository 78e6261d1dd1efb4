/*
 * A small event base for libunbound's pluggable event API (unbound-event.h), run by one thread
 * with epoll (Linux) or poll(): libunbound's sockets and timers live here instead of on a
 * thread of libunbound's own. epoll because a burst keeps a thousand sockets open at once, and
 * poll() would scan them all for every few answers that arrive. The deadlines are a binary
 * min-heap (the nearest at its top; adding, moving and deleting one O(log n)), fired nearest
 * first, rather than a scan of every event twice a round: a cold burst's answers arrive in a
 * few rounds of hundreds, where either costs little, but answers trickling in one per round
 * with a thousand timers pending would make the scan O(rounds x events). Events follow libevent's
 * rules, which libunbound expects: an event that is not persistent is removed before its
 * callback runs; a persistent one with a timeout has the
 * timeout armed again each time it fires. Callbacks may add, delete and free any event,
 * including the one running: an event freed during a dispatch is freed after it.
 *
 * Not thread-safe by itself: every call into libunbound and this base happens under one lock
 * (the caller's), which dispatch_events() releases only while it waits; an event freed by
 * another thread meanwhile is freed after the round, as during callbacks.
 */
#ifndef DNSCORE_EVENT_BASE_H
#define DNSCORE_EVENT_BASE_H

#include <poll.h>
#include <pthread.h>
#include <stdint.h>
#include <unbound-event.h>

typedef struct Event Event;

typedef struct {
  struct ub_event_base super; /* first: libunbound sees a struct ub_event_base* */
  Event** active;             /* events added (waiting on their fd and/or deadline) */
  int n_active;
  int cap_active;             /* also timers' room */
  Event** timers;             /* the active events with a deadline: a min-heap on it */
  int n_timers;
  Event* dead; /* freed while dispatching: released at its end */
  int dispatching;
  /*
   * Counts the waits made without the lock, and is set during one: an event another thread adds
   * meanwhile (a TCP socket libunbound registers before it connects) may be reported with the
   * state epoll saw before the connect (EPOLLHUP of a socket not connected yet). Such an event's
   * readiness from that wait is not trusted; level-triggered, it is reported again if still so.
   */
  unsigned wait_round;
  int waiting_unlocked;
  int epoll_fd; /* -1 without epoll */
  int extra_fd; /* the caller's fd, registered with epoll once */
  /* poll()'s array (rebuilt each round: [0] is the caller's fd, then one per fd event), or epoll's. */
  struct pollfd* fds;
  Event** fd_events;
  int cap_fds;
  int n_fds;
  /* Events due in this round: the event, its activation count then, and the bits that fired. */
  struct Ready* ready;
  int cap_ready;
} EventBase;

/* An empty base (magic and methods set) that also watches `extra_fd` for reading; 0 on success. */
int event_base_init(EventBase* base, int extra_fd);

/* Frees what the base still holds; every event must have been freed (ub_ctx_delete does). */
void event_base_release(EventBase* base);

/*
 * One round, with `lock` held: waits until the extra fd or an event's fd is ready or the
 * nearest deadline passes (`now_only`: does not wait; `lock` is released during the wait),
 * then runs the callbacks of what is due. Returns 1 when the extra fd was readable, 0 when
 * not, -1 when the wait failed (errno set).
 */
int dispatch_events(EventBase* base, int now_only, pthread_mutex_t* lock);

#endif
