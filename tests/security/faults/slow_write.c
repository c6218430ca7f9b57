/* LD_PRELOAD test instrumentation for the kill tests (fault_inject --preload): write(2) to a file
 * whose name starts with $FAULT_SLOW_WRITE_PREFIX goes out in pieces of $FAULT_SLOW_WRITE_CHUNK
 * bytes (default 1024), each after a pause of $FAULT_SLOW_WRITE_US microseconds (default 20);
 * so does a write whose data starts with $FAULT_SLOW_WRITE_MAGIC (the rest of it follows in the
 * next calls). On tmpfs a config file is written
 * in microseconds, so a kill at a random moment of the writer's life would almost never land
 * while its temporary file is half written; stretched, that window is a good part of the
 * lifetime and the "old or new, never partial" property is really exercised. The writer's logic
 * is unchanged: only how long each write takes. Read by the loader, never by nvct code. */
#define _GNU_SOURCE
#include <dlfcn.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

typedef ssize_t (*write_fn)(int, const void*, size_t);

static int slow_fd(int fd, const void* data, size_t len) {
  /* By content: a writer in a seccomp sandbox (the native ld.so.cache writer) cannot readlink. */
  const char* magic = getenv("FAULT_SLOW_WRITE_MAGIC");
  if (magic && *magic && len >= strlen(magic) && !memcmp(data, magic, strlen(magic))) return 1;
  const char* prefix = getenv("FAULT_SLOW_WRITE_PREFIX");
  if (!prefix || !*prefix || fd < 3) return 0;
  char link[64], path[4096];
  snprintf(link, sizeof link, "/proc/self/fd/%d", fd);
  ssize_t n = readlink(link, path, sizeof path - 1);
  if (n <= 0) return 0;
  path[n] = 0;
  const char* base = strrchr(path, '/');
  base = base ? base + 1 : path;
  return strncmp(base, prefix, strlen(prefix)) == 0;
}

ssize_t write(int fd, const void* data, size_t len) {
  static write_fn real;
  if (!real) real = (write_fn)dlsym(RTLD_NEXT, "write");
  const char* chunk_text = getenv("FAULT_SLOW_WRITE_CHUNK");
  size_t chunk = chunk_text && atol(chunk_text) > 0 ? (size_t)atol(chunk_text) : 1024;
  static int slowing; /* fd + 1 of the file being written slowly */
  if (slowing != fd + 1) {
    if (len <= chunk || !slow_fd(fd, data, len)) return real(fd, data, len);
    slowing = fd + 1;
  }
  const char* us = getenv("FAULT_SLOW_WRITE_US");
  long pause = us ? atol(us) : 20;
  struct timespec ts = {pause / 1000000, (pause % 1000000) * 1000};
  int saved = errno;
  if (nanosleep(&ts, NULL) != 0 && errno == ENOSYS) {
    /* A seccomp sandbox without nanosleep: a busy wait on the vDSO clock (no syscall). */
    struct timespec start, now;
    clock_gettime(CLOCK_MONOTONIC, &start);
    do {
      clock_gettime(CLOCK_MONOTONIC, &now);
    } while ((now.tv_sec - start.tv_sec) * 1000000L + (now.tv_nsec - start.tv_nsec) / 1000 <
             pause);
  }
  errno = saved;
  if (len <= chunk) {
    slowing = 0;  /* the last piece */
    return real(fd, data, len);
  }
  /* One piece per call: callers loop on short writes (write_all), as they must anyway. */
  return real(fd, data, chunk);
}
