/* The file helpers of the kill mode (declared and described in fault_inject_files.h). */
#define _GNU_SOURCE
#include "fault_inject_files.h"

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "fault_inject.h"

struct buf read_all(const char* path) {
  struct buf b = {NULL, 0, 0};
  int fd = open(path, O_RDONLY | O_CLOEXEC);
  if (fd < 0) {
    if (errno == ENOENT) return b;
    die(path);
  }
  b.exists = 1;
  size_t cap = 65536;
  b.data = malloc(cap);
  for (;;) {
    if (b.len == cap) b.data = realloc(b.data, cap *= 2);
    ssize_t n = read(fd, b.data + b.len, cap - b.len);
    if (n < 0 && errno == EINTR) continue;
    if (n < 0) die(path);
    if (n == 0) break;
    b.len += (size_t)n;
  }
  close(fd);
  return b;
}

int same(const struct buf* a, const struct buf* b) {
  return a->exists == b->exists && a->len == b->len &&
         (a->len == 0 || !memcmp(a->data, b->data, a->len));
}

void write_whole(const char* path, const struct buf* b) {
  if (!b->exists) {
    if (unlink(path) != 0 && errno != ENOENT) die(path);
    return;
  }
  int fd = open(path, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0644);
  if (fd < 0) die(path);
  size_t done = 0;
  while (done < b->len) {
    ssize_t n = write(fd, b->data + done, b->len - done);
    if (n < 0 && errno == EINTR) continue;
    if (n <= 0) die(path);
    done += (size_t)n;
  }
  if (close(fd) != 0) die(path);
}

static int cmp_str(const void* a, const void* b) {
  return strcmp(*(char* const*)a, *(char* const*)b);
}

struct listing list_dir(const char* dir) {
  struct listing l = {NULL, NULL, NULL, 0};
  DIR* d = opendir(dir);
  if (!d) die(dir);
  int cap = 0;
  struct dirent* e;
  while ((e = readdir(d))) {
    if (!strcmp(e->d_name, ".") || !strcmp(e->d_name, "..")) continue;
    if (l.n == cap) {
      cap = cap ? cap * 2 : 32;
      l.names = realloc(l.names, sizeof(char*) * cap);
    }
    l.names[l.n++] = strdup(e->d_name);
  }
  closedir(d);
  qsort(l.names, l.n, sizeof(char*), cmp_str);
  l.inos = calloc(l.n + 1, sizeof(ino_t));
  l.mtimes = calloc(l.n + 1, sizeof(int64_t));
  for (int i = 0; i < l.n; ++i) {
    struct stat st;
    char p[8200];
    snprintf(p, sizeof p, "%s/%s", dir, l.names[i]);
    if (lstat(p, &st) == 0) {
      l.inos[i] = st.st_ino;
      l.mtimes[i] = (int64_t)st.st_mtim.tv_sec * 1000000000 + st.st_mtim.tv_nsec;
    }
  }
  return l;
}

void free_listing(struct listing* l) {
  for (int i = 0; i < l->n; ++i) free(l->names[i]);
  free(l->names);
  free(l->inos);
  free(l->mtimes);
  l->n = 0;
}

int listing_has(const struct listing* l, const char* name, ino_t ino, int64_t mtime) {
  for (int i = 0; i < l->n; ++i)
    if (!strcmp(l->names[i], name) && l->inos[i] == ino && l->mtimes[i] == mtime) return 1;
  return 0;
}
