/*
 * The delaying proxy's UDP path (bench/src/child/delay-proxy-main.ts runs it and keeps TCP):
 * each query on 127.0.0.1:PORT goes upstream at once, under an ID of the proxy's, over one
 * connected socket; its answer gets its ID back and waits in a FIFO until DELAY ms after the
 * query arrived (CLOCK_MONOTONIC, a timerfd; never earlier: an answer behind a later one waits
 * for it, which only a lowered delay causes). A query arrives when the kernel queues it on the
 * proxy's socket (SO_TIMESTAMPNS), not when the proxy reads it: on two cores the system under
 * test kept the proxy from reading for 3-5 ms of a burst, and a network's delay does not grow
 * while a machine is busy. Queries and answers move in batches of
 * recvmmsg/sendmmsg. In C because the Node proxy spent 31-45 ms of CPU per burst of 1,000
 * queries on a 2-core machine, CPU the system under test does not get back from a real network.
 *
 * Usage: delay-proxy-udp UPSTREAM_ADDRESS UPSTREAM_PORT DELAY_MS PORT
 * Commands on stdin, one a line, each answered by one line on stdout:
 *   stats -> "stats UDP"           queries received since the last reset
 *   reset -> "reset"
 *   delay MS -> "delay MS"
 *   cpu -> "cpu USER_US SYSTEM_US" this process's CPU (getrusage)
 * Prints "ready PORT" once bound, or "error TEXT" and exits 1. Ends on SIGTERM, at EOF on stdin,
 * and (Linux) when its parent dies.
 */
#define _GNU_SOURCE
#include <arpa/inet.h>
#include <errno.h>
#include <netinet/in.h>
#include <signal.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/epoll.h>
#include <sys/prctl.h>
#include <sys/resource.h>
#include <sys/socket.h>
#include <sys/timerfd.h>
#include <time.h>
#include <unistd.h>

#define BATCH 64
#define MAX_DATAGRAM 65535
/* Large enough for a burst of thousands of queries (the kernel caps it at net.core.rmem_max). */
#define BUFFER_BYTES (8 * 1024 * 1024)
/* An answer that never comes frees its ID after this long. */
#define FORGET_NS (10ull * 1000000000ull)
#define IDS 65536

typedef struct {
  int used;
  uint16_t id; /* the client's */
  struct sockaddr_in client;
  uint64_t arrived; /* ns, monotonic */
} Waiting;

typedef struct {
  uint64_t due;
  struct sockaddr_in client;
  size_t length;
  unsigned char* data;
} Answer;

static Waiting waiting[IDS];
static unsigned waiting_count;
static unsigned last_id;
/* The FIFO of answers waiting for their moment: at most one per ID. */
static Answer fifo[IDS];
static unsigned head, count;
static uint64_t delay_ns;
static unsigned long long udp_queries;
static int front_fd, upstream_fd, timer_fd;

static uint64_t clock_ns(clockid_t clock) {
  struct timespec ts;
  clock_gettime(clock, &ts);
  return (uint64_t)ts.tv_sec * 1000000000ull + (uint64_t)ts.tv_nsec;
}

static uint64_t now_ns(void) {
  return clock_ns(CLOCK_MONOTONIC);
}

/* A stamp older than this is not believed: the wall clock was stepped meanwhile. */
#define MAX_AGE_NS (10ull * 1000000000ull)

/*
 * When the kernel queued a datagram, on CLOCK_MONOTONIC: its SO_TIMESTAMPNS stamp (on
 * CLOCK_REALTIME) moved back from `now` by its age. `now` when it has no stamp, or one that
 * a step of the wall clock made look older than MAX_AGE_NS (never an answer before its delay
 * because of it) or younger than 0.
 */
static uint64_t arrival_ns(struct msghdr* header, uint64_t now, uint64_t now_real) {
  for (struct cmsghdr* c = CMSG_FIRSTHDR(header); c != NULL; c = CMSG_NXTHDR(header, c)) {
    if (c->cmsg_level != SOL_SOCKET || c->cmsg_type != SCM_TIMESTAMPNS) continue;
    struct timespec stamp;
    memcpy(&stamp, CMSG_DATA(c), sizeof stamp);
    uint64_t queued = (uint64_t)stamp.tv_sec * 1000000000ull + (uint64_t)stamp.tv_nsec;
    uint64_t age = now_real > queued ? now_real - queued : 0;
    return age < MAX_AGE_NS && age < now ? now - age : now;
  }
  return now;
}

static void fail(const char* what) {
  printf("error %s: %s\n", what, strerror(errno));
  fflush(stdout);
  exit(1);
}

static void large_buffers(int fd) {
  int bytes = BUFFER_BYTES;
  setsockopt(fd, SOL_SOCKET, SO_RCVBUF, &bytes, sizeof bytes);
  setsockopt(fd, SOL_SOCKET, SO_SNDBUF, &bytes, sizeof bytes);
}

/* A free ID of the proxy's (or one whose answer never came), or -1 when every ID waits. */
static int next_id(uint64_t now) {
  for (unsigned tries = 0; tries < IDS; tries++) {
    last_id = (last_id + 1) & 0xffff;
    Waiting* w = &waiting[last_id];
    if (!w->used) return (int)last_id;
    if (now - w->arrived > FORGET_NS) {
      w->used = 0;
      waiting_count--;
      return (int)last_id;
    }
  }
  return -1;
}

static void arm_timer(void) {
  struct itimerspec spec = {0};
  if (count > 0) {
    uint64_t due = fifo[head].due;
    if (due == 0) due = 1; /* zero would disarm */
    spec.it_value.tv_sec = (time_t)(due / 1000000000ull);
    spec.it_value.tv_nsec = (long)(due % 1000000000ull);
  }
  timerfd_settime(timer_fd, TFD_TIMER_ABSTIME, &spec, NULL);
}

/* Sends every answer at the head of the FIFO whose moment has come, in batches. */
static void flush_due(void) {
  struct mmsghdr messages[BATCH];
  struct iovec vectors[BATCH];
  for (;;) {
    uint64_t now = now_ns();
    unsigned n = 0;
    while (n < BATCH && n < count && fifo[(head + n) % IDS].due <= now) {
      Answer* a = &fifo[(head + n) % IDS];
      vectors[n].iov_base = a->data;
      vectors[n].iov_len = a->length;
      memset(&messages[n], 0, sizeof messages[n]);
      messages[n].msg_hdr.msg_name = &a->client;
      messages[n].msg_hdr.msg_namelen = sizeof a->client;
      messages[n].msg_hdr.msg_iov = &vectors[n];
      messages[n].msg_hdr.msg_iovlen = 1;
      n++;
    }
    if (n == 0) break;
    unsigned sent = 0;
    while (sent < n) {
      int done = sendmmsg(front_fd, messages + sent, n - sent, 0);
      if (done < 0) {
        if (errno == EINTR) continue;
        sent++; /* a client that cannot be reached loses its answer, as on a network */
      } else {
        sent += (unsigned)done;
      }
    }
    for (unsigned i = 0; i < n; i++) {
      free(fifo[head].data);
      fifo[head].data = NULL;
      head = (head + 1) % IDS;
      count--;
    }
  }
  arm_timer();
}

static void on_queries(void) {
  static unsigned char buffers[BATCH][MAX_DATAGRAM];
  static struct sockaddr_in clients[BATCH];
  static union {
    char bytes[CMSG_SPACE(sizeof(struct timespec))];
    struct cmsghdr align;
  } controls[BATCH];
  struct mmsghdr in[BATCH], out[BATCH];
  struct iovec in_vectors[BATCH], out_vectors[BATCH];
  for (;;) {
    for (unsigned i = 0; i < BATCH; i++) {
      in_vectors[i].iov_base = buffers[i];
      in_vectors[i].iov_len = MAX_DATAGRAM;
      memset(&in[i], 0, sizeof in[i]);
      in[i].msg_hdr.msg_name = &clients[i];
      in[i].msg_hdr.msg_namelen = sizeof clients[i];
      in[i].msg_hdr.msg_iov = &in_vectors[i];
      in[i].msg_hdr.msg_iovlen = 1;
      in[i].msg_hdr.msg_control = controls[i].bytes;
      in[i].msg_hdr.msg_controllen = sizeof controls[i].bytes;
    }
    int got = recvmmsg(front_fd, in, BATCH, MSG_DONTWAIT, NULL);
    if (got <= 0) {
      if (got < 0 && errno == EINTR) continue;
      return;
    }
    uint64_t now = now_ns();
    uint64_t now_real = clock_ns(CLOCK_REALTIME);
    unsigned n = 0;
    for (int i = 0; i < got; i++) {
      udp_queries++;
      size_t length = in[i].msg_len;
      if (length < 12 || in[i].msg_hdr.msg_namelen != sizeof(struct sockaddr_in)) continue;
      int id = next_id(now);
      if (id < 0) continue;
      Waiting* w = &waiting[id];
      w->used = 1;
      w->id = (uint16_t)(buffers[i][0] << 8 | buffers[i][1]);
      w->client = clients[i];
      w->arrived = arrival_ns(&in[i].msg_hdr, now, now_real);
      waiting_count++;
      buffers[i][0] = (unsigned char)(id >> 8);
      buffers[i][1] = (unsigned char)id;
      out_vectors[n].iov_base = buffers[i];
      out_vectors[n].iov_len = length;
      memset(&out[n], 0, sizeof out[n]);
      out[n].msg_hdr.msg_iov = &out_vectors[n];
      out[n].msg_hdr.msg_iovlen = 1;
      n++;
    }
    unsigned sent = 0;
    while (sent < n) {
      int done = sendmmsg(upstream_fd, out + sent, n - sent, 0);
      if (done < 0) {
        if (errno == EINTR) continue;
        sent++; /* lost on the way, as on a network: the client asks again */
      } else {
        sent += (unsigned)done;
      }
    }
    if (got < BATCH) return;
  }
}

static void on_answers(void) {
  static unsigned char buffers[BATCH][MAX_DATAGRAM];
  struct mmsghdr in[BATCH];
  struct iovec vectors[BATCH];
  for (;;) {
    for (unsigned i = 0; i < BATCH; i++) {
      vectors[i].iov_base = buffers[i];
      vectors[i].iov_len = MAX_DATAGRAM;
      memset(&in[i], 0, sizeof in[i]);
      in[i].msg_hdr.msg_iov = &vectors[i];
      in[i].msg_hdr.msg_iovlen = 1;
    }
    int got = recvmmsg(upstream_fd, in, BATCH, MSG_DONTWAIT, NULL);
    if (got <= 0) {
      if (got < 0 && errno == EINTR) continue;
      break;
    }
    for (int i = 0; i < got; i++) {
      size_t length = in[i].msg_len;
      if (length < 12) continue;
      unsigned id = (unsigned)(buffers[i][0] << 8 | buffers[i][1]);
      Waiting* w = &waiting[id];
      if (!w->used) continue;
      w->used = 0;
      waiting_count--;
      unsigned char* data = malloc(length);
      if (!data) continue;
      memcpy(data, buffers[i], length);
      data[0] = (unsigned char)(w->id >> 8);
      data[1] = (unsigned char)w->id;
      Answer* a = &fifo[(head + count) % IDS];
      a->due = w->arrived + delay_ns;
      a->client = w->client;
      a->length = length;
      a->data = data;
      count++;
    }
    if (got < BATCH) break;
  }
  flush_due();
}

/* Reads commands from stdin; returns 0 at EOF (the parent is gone or done). */
static int on_commands(void) {
  static char line[256];
  static size_t filled;
  ssize_t got = read(STDIN_FILENO, line + filled, sizeof line - 1 - filled);
  if (got == 0) return 0;
  if (got < 0) return errno == EINTR || errno == EAGAIN;
  filled += (size_t)got;
  char* end;
  while ((end = memchr(line, '\n', filled)) != NULL) {
    *end = '\0';
    if (strcmp(line, "stats") == 0) {
      printf("stats %llu\n", udp_queries);
    } else if (strcmp(line, "reset") == 0) {
      udp_queries = 0;
      printf("reset\n");
    } else if (strncmp(line, "delay ", 6) == 0) {
      double ms = strtod(line + 6, NULL);
      if (ms < 0 || ms != ms) ms = 0;
      delay_ns = (uint64_t)(ms * 1e6);
      printf("delay %g\n", ms);
    } else if (strcmp(line, "cpu") == 0) {
      struct rusage usage;
      getrusage(RUSAGE_SELF, &usage);
      printf("cpu %lld %lld\n", (long long)usage.ru_utime.tv_sec * 1000000 + usage.ru_utime.tv_usec,
             (long long)usage.ru_stime.tv_sec * 1000000 + usage.ru_stime.tv_usec);
    } else {
      printf("error unknown command\n");
    }
    fflush(stdout);
    size_t used = (size_t)(end - line) + 1;
    memmove(line, end + 1, filled - used);
    filled -= used;
  }
  if (filled == sizeof line - 1) filled = 0; /* a line too long for any command */
  return 1;
}

int main(int argc, char** argv) {
  if (argc != 5) {
    fprintf(stderr, "usage: %s UPSTREAM_ADDRESS UPSTREAM_PORT DELAY_MS PORT\n", argv[0]);
    return 2;
  }
#ifdef PR_SET_PDEATHSIG
  prctl(PR_SET_PDEATHSIG, SIGTERM);
  if (getppid() == 1) return 0; /* the parent died before the line above */
#endif
  signal(SIGPIPE, SIG_IGN);
  delay_ns = (uint64_t)(strtod(argv[3], NULL) * 1e6);

  struct sockaddr_in upstream = {.sin_family = AF_INET, .sin_port = htons((uint16_t)atoi(argv[2]))};
  if (inet_pton(AF_INET, argv[1], &upstream.sin_addr) != 1) {
    printf("error upstream address %s is not an IPv4 literal\n", argv[1]);
    return 1;
  }
  struct sockaddr_in local = {.sin_family = AF_INET, .sin_port = htons((uint16_t)atoi(argv[4]))};
  inet_pton(AF_INET, "127.0.0.1", &local.sin_addr);

  front_fd = socket(AF_INET, SOCK_DGRAM | SOCK_NONBLOCK | SOCK_CLOEXEC, 0);
  if (front_fd < 0) fail("socket");
  large_buffers(front_fd);
  int stamped = 1;
  setsockopt(front_fd, SOL_SOCKET, SO_TIMESTAMPNS, &stamped, sizeof stamped);
  if (bind(front_fd, (struct sockaddr*)&local, sizeof local) != 0) fail("bind");
  upstream_fd = socket(AF_INET, SOCK_DGRAM | SOCK_NONBLOCK | SOCK_CLOEXEC, 0);
  if (upstream_fd < 0) fail("socket");
  large_buffers(upstream_fd);
  if (connect(upstream_fd, (struct sockaddr*)&upstream, sizeof upstream) != 0) fail("connect");
  timer_fd = timerfd_create(CLOCK_MONOTONIC, TFD_NONBLOCK | TFD_CLOEXEC);
  if (timer_fd < 0) fail("timerfd_create");
  int epoll_fd = epoll_create1(EPOLL_CLOEXEC);
  if (epoll_fd < 0) fail("epoll_create1");
  int watched[] = {front_fd, upstream_fd, timer_fd, STDIN_FILENO};
  for (unsigned i = 0; i < sizeof watched / sizeof watched[0]; i++) {
    struct epoll_event event = {.events = EPOLLIN, .data.fd = watched[i]};
    if (epoll_ctl(epoll_fd, EPOLL_CTL_ADD, watched[i], &event) != 0) fail("epoll_ctl");
  }
  socklen_t length = sizeof local;
  getsockname(front_fd, (struct sockaddr*)&local, &length);
  printf("ready %u\n", ntohs(local.sin_port));
  fflush(stdout);

  for (;;) {
    struct epoll_event events[8];
    int n = epoll_wait(epoll_fd, events, 8, -1);
    if (n < 0) {
      if (errno == EINTR) continue;
      fail("epoll_wait");
    }
    for (int i = 0; i < n; i++) {
      int fd = events[i].data.fd;
      if (fd == front_fd) {
        on_queries();
      } else if (fd == upstream_fd) {
        on_answers();
      } else if (fd == timer_fd) {
        uint64_t expirations;
        while (read(timer_fd, &expirations, sizeof expirations) > 0) {
        }
        flush_due();
      } else if (fd == STDIN_FILENO) {
        if (!on_commands()) return 0;
      }
    }
  }
}
