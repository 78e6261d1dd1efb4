/*
 * The event base (native/event_base.c) alone, driven through libunbound's ub_event methods on a
 * clock of its own (EVENT_BASE_TEST_CLOCK), so every deadline is exact and no round waits: prints
 * one line per round, what fired in order ("name:t" timeout, "name:r" readable).
 * test/event-base.test.ts compiles it (epoll, and poll() with EVENT_BASE_POLL) and compares lines.
 */
#include <netinet/in.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <unistd.h>

#include "event_base.h"

static uint64_t clock_us = 1000000;

uint64_t test_clock(void) {
  return clock_us;
}

static EventBase base;
static pthread_mutex_t lock = PTHREAD_MUTEX_INITIALIZER;
static char fired[1 << 16];

typedef struct Timer Timer;
struct Timer {
  char name[16];
  struct ub_event* ev;
  void (*action)(Timer*); /* run by its callback, after the line is written */
  Timer* other;
  int fd;
  uint64_t deadline; /* the stress round's bookkeeping */
  int fires;
  short bits; /* what fired last */
};

static void callback(int fd, short bits, void* arg) {
  Timer* t = arg;
  (void)fd;
  size_t used = strlen(fired);
  snprintf(fired + used, sizeof fired - used, " %s:%s%s", t->name, (bits & UB_EV_READ) ? "r" : "",
           (bits & UB_EV_TIMEOUT) ? "t" : "");
  t->bits = bits;
  if (t->action) t->action(t);
}

/* An event as libunbound makes one: fd -1 for a timer. */
static Timer* event(const char* name, int fd, short bits) {
  Timer* t = calloc(1, sizeof *t);
  snprintf(t->name, sizeof t->name, "%s", name);
  t->fd = fd;
  t->ev = base.super.vmt->new_event(&base.super, fd, bits, callback, t);
  return t;
}

static struct timeval after_us(uint64_t us) {
  struct timeval tv = {(time_t)(us / 1000000u), (suseconds_t)(us % 1000000u)};
  return tv;
}

/* ub_timer_add: (re)arms a timer `ms` from now. */
static void arm(Timer* t, uint64_t ms) {
  struct timeval tv = after_us(ms * 1000u);
  t->ev->vmt->add_timer(t->ev, &base.super, callback, t, &tv);
}

/* ub_event_add with a timeout (fd events and persistent timers). */
static void add(Timer* t, uint64_t ms) {
  struct timeval tv = after_us(ms * 1000u);
  t->ev->vmt->add(t->ev, &tv);
}

static void release(Timer* t) {
  t->ev->vmt->free(t->ev);
  free(t);
}

/* Advances the clock and runs one round without waiting; prints what fired. */
static int round_after(const char* label, uint64_t ms) {
  clock_us += ms * 1000u;
  fired[0] = 0;
  int woken = dispatch_events(&base, 1, &lock);
  printf("%s +%llu:%s\n", label, (unsigned long long)ms, fired);
  return woken;
}

static void delete_other(Timer* t) {
  t->other->ev->vmt->del_timer(t->other->ev);
}

static void rearm_other(Timer* t) {
  arm(t->other, 5);
}

static void free_other(Timer* t) {
  release(t->other);
  t->other = NULL;
}

static void drain(Timer* t) {
  char byte;
  if ((t->bits & UB_EV_READ) && read(t->fd, &byte, 1) != 1) printf("drain: nothing to read\n");
}

/* Timers armed out of order, one deleted, one moved later: they fire by deadline. */
static void order(void) {
  static const int ms[] = {50, 10, 40, 20, 30, 60};
  Timer* t[6];
  for (int i = 0; i < 6; i++) {
    char name[16];
    snprintf(name, sizeof name, "t%d", ms[i]);
    t[i] = event(name, -1, UB_EV_TIMEOUT);
    arm(t[i], (uint64_t)ms[i]);
  }
  t[2]->ev->vmt->del_timer(t[2]->ev); /* t40 */
  arm(t[3], 70);                      /* t20, now due at 70 */
  round_after("order", 5);
  round_after("order", 40);
  round_after("order", 30);
  round_after("order", 100);
  for (int i = 0; i < 6; i++) release(t[i]);
}

/* Callbacks change events due in the same round: deleted, armed again, freed ones do not run. */
static void same_round(void) {
  Timer* a = event("a", -1, UB_EV_TIMEOUT);
  Timer* b = event("b", -1, UB_EV_TIMEOUT);
  Timer* c = event("c", -1, UB_EV_TIMEOUT);
  Timer* d = event("d", -1, UB_EV_TIMEOUT);
  Timer* e = event("e", -1, UB_EV_TIMEOUT);
  Timer* f = event("f", -1, UB_EV_TIMEOUT);
  Timer* g = event("g", -1, UB_EV_TIMEOUT);
  arm(a, 10);
  arm(b, 20);
  arm(c, 30);
  arm(d, 40);
  arm(e, 35);
  arm(f, 45);
  arm(g, 500);
  a->action = delete_other;
  a->other = c;
  b->action = rearm_other;
  b->other = d;
  e->action = free_other;
  e->other = f;
  round_after("same round", 50);
  round_after("same round", 4);
  round_after("same round", 1);
  /* g is freed by a callback while not due, and never runs. */
  a->action = free_other;
  a->other = g;
  arm(a, 1);
  round_after("same round", 1);
  round_after("same round", 1000);
  release(a);
  release(b);
  release(c);
  release(d);
  release(e);
}

/* A persistent timer is armed again from the round it fired in, however late that round. */
static void persistent(void) {
  Timer* p = event("p", -1, UB_EV_TIMEOUT | UB_EV_PERSIST);
  add(p, 30);
  round_after("persistent", 30);
  round_after("persistent", 20);
  round_after("persistent", 10);
  round_after("persistent", 100);
  round_after("persistent", 29);
  round_after("persistent", 1);
  p->ev->vmt->del(p->ev);
  round_after("persistent", 1000);
  release(p);
}

/* An fd event with a timeout: readable re-arms the timeout; due both ways in a round, it runs once. */
static void fd_events(void) {
  int pipe_fds[2];
  if (pipe(pipe_fds) != 0) return;
  Timer* r = event("r", pipe_fds[0], UB_EV_READ | UB_EV_PERSIST);
  r->action = drain;
  add(r, 100);
  if (write(pipe_fds[1], "x", 1) != 1) return;
  round_after("fd", 60);
  round_after("fd", 60);
  round_after("fd", 50);
  if (write(pipe_fds[1], "x", 1) != 1) return;
  round_after("fd", 100);
  r->ev->vmt->del(r->ev);
  /* Not persistent: removed before its callback, so data left unread does not fire it again. */
  Timer* w = event("w", pipe_fds[0], UB_EV_READ);
  add(w, 10);
  if (write(pipe_fds[1], "y", 1) != 1) return;
  round_after("fd", 1);
  round_after("fd", 1);
  round_after("fd", 100);
  release(r);
  release(w);
  close(pipe_fds[0]);
  close(pipe_fds[1]);
}

static uint32_t seed = 12345;

static uint32_t next_random(void) {
  seed = seed * 1103515245u + 12345u;
  return (seed >> 8) & 0xffffff;
}

static Timer* stress[1000];
static uint64_t last_fired;
static int out_of_order, early;

static void stress_fired(Timer* t) {
  t->fires++;
  if (t->deadline < last_fired) out_of_order++;
  if (t->deadline > clock_us) early++;
  last_fired = t->deadline;
}

/* A thousand timers with random deadlines, a third deleted, a fifth moved: each fires once, in order. */
static void many(void) {
  for (int i = 0; i < 1000; i++) {
    char name[16];
    snprintf(name, sizeof name, "s%d", i);
    stress[i] = event(name, -1, UB_EV_TIMEOUT);
    stress[i]->action = stress_fired;
    uint64_t us = 1 + next_random() % 100000u;
    struct timeval tv = after_us(us);
    stress[i]->ev->vmt->add_timer(stress[i]->ev, &base.super, callback, stress[i], &tv);
    stress[i]->deadline = clock_us + us;
    clock_us += next_random() % 50u;
  }
  int deleted = 0, moved = 0;
  for (int i = 0; i < 1000; i++) {
    if (i % 3 == 0) {
      stress[i]->ev->vmt->del_timer(stress[i]->ev);
      deleted++;
    } else if (i % 5 == 0) {
      uint64_t us = 1 + next_random() % 100000u;
      struct timeval tv = after_us(us);
      stress[i]->ev->vmt->add_timer(stress[i]->ev, &base.super, callback, stress[i], &tv);
      stress[i]->deadline = clock_us + us;
      moved++;
    }
  }
  int rounds = 0;
  for (; rounds < 100; rounds++) {
    clock_us += 1700;
    fired[0] = 0;
    dispatch_events(&base, 1, &lock);
  }
  int once = 0, never = 0;
  for (int i = 0; i < 1000; i++) {
    if (i % 3 == 0) never += stress[i]->fires == 0;
    else once += stress[i]->fires == 1;
    release(stress[i]);
  }
  printf("many: %d moved, %d fired once, %d deleted never fired, %d out of order, %d early\n", moved, once, never,
         out_of_order, early);
}

/* The caller's fd wakes a round (dispatch_events returns 1); nothing else runs for it. */
static void extra_fd(int write_end) {
  if (write(write_end, "w", 1) != 1) return;
  printf("extra fd: woken %d\n", round_after("extra fd", 0));
}

/*
 * Another thread adds an event while the dispatcher waits without the lock, as the JS thread does
 * when it asks libunbound itself: libunbound registers a TCP socket for reading before it connects
 * it, and epoll reports a socket not connected yet as hung up at once. That state predates the
 * connect: the event must not fire from it (libunbound would read, get ENOTCONN and fail every
 * question on the stream). The dispatcher is woken by the caller's fd once the connect is done.
 */
static int listener = -1;
static int wake_fd = -1;
static Timer* tcp = NULL;

static void* add_during_wait(void* unused) {
  (void)unused;
  usleep(50000); /* the dispatcher is in its wait by now */
  pthread_mutex_lock(&lock);
  int fd = socket(AF_INET, SOCK_STREAM, 0);
  tcp = event("tcp", fd, UB_EV_READ | UB_EV_PERSIST);
  tcp->ev->vmt->add(tcp->ev, NULL);
  usleep(20000); /* the dispatcher's epoll_wait sees the socket hung up meanwhile */
  struct sockaddr_in to;
  socklen_t length = sizeof to;
  getsockname(listener, (struct sockaddr*)&to, &length);
  if (connect(fd, (struct sockaddr*)&to, length) != 0) printf("connect failed\n");
  pthread_mutex_unlock(&lock);
  if (write(wake_fd, "w", 1) != 1) printf("wake failed\n");
  return NULL;
}

static void added_while_waiting(void) {
  char byte;
  if (read(base.extra_fd, &byte, 1) != 1) printf("the caller's fd was not readable\n"); /* extra_fd's byte */
  listener = socket(AF_INET, SOCK_STREAM, 0);
  struct sockaddr_in at = {0};
  at.sin_family = AF_INET;
  at.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
  if (bind(listener, (struct sockaddr*)&at, sizeof at) != 0 || listen(listener, 1) != 0) {
    printf("listen failed\n");
    return;
  }
  pthread_t other;
  pthread_create(&other, NULL, add_during_wait, NULL);
  /* Rounds that wait (unlocked) until the other thread's connect woke one; none may fire tcp. */
  char seen[256] = "";
  for (int i = 0; i < 20 && tcp == NULL; i++) {
    fired[0] = 0;
    dispatch_events(&base, 0, &lock);
    strncat(seen, fired, sizeof seen - strlen(seen) - 1);
  }
  pthread_join(other, NULL);
  if (read(base.extra_fd, &byte, 1) != 1) printf("the other thread did not wake the wait\n");
  fired[0] = 0;
  dispatch_events(&base, 1, &lock); /* connected, nothing to read: still nothing */
  strncat(seen, fired, sizeof seen - strlen(seen) - 1);
  printf("added while waiting:%s\n", seen);
  close(tcp->fd);
  release(tcp);
  close(listener);
}

int main(void) {
  setvbuf(stdout, NULL, _IOLBF, 0);
  int wake[2];
  if (pipe(wake) != 0 || event_base_init(&base, wake[0]) != 0) {
    printf("event_base_init failed\n");
    return 1;
  }
  pthread_mutex_lock(&lock);
  order();
  same_round();
  persistent();
  fd_events();
  many();
  extra_fd(wake[1]);
  wake_fd = wake[1];
  added_while_waiting();
  pthread_mutex_unlock(&lock);
  event_base_release(&base);
  close(wake[0]);
  close(wake[1]);
  return 0;
}
