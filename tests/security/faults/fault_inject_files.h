/* File helpers of the kill mode (fault_inject_kill.c): whole-file contents to compare and put
 * back, and directory listings that tell a run's own temp files from the ones already there. */
#ifndef NVCT_FAULT_INJECT_FILES_H
#define NVCT_FAULT_INJECT_FILES_H

#include <stddef.h>
#include <stdint.h>
#include <sys/types.h>

struct buf {
  char* data;
  size_t len;
  int exists;
};

/* exists == 0: the file is missing (ENOENT); any other error dies. */
struct buf read_all(const char* path);
int same(const struct buf* a, const struct buf* b);
/* A buf that does not exist removes the file. */
void write_whole(const char* path, const struct buf* b);

/* The entries of a directory as "name ino mtime" lines, sorted. */
struct listing {
  char** names;
  ino_t* inos;
  int64_t* mtimes;
  int n;
};

struct listing list_dir(const char* dir);
void free_listing(struct listing* l);
/* 1 if the listing holds this very file: same name, inode and mtime (not a later namesake). */
int listing_has(const struct listing* l, const char* name, ino_t ino, int64_t mtime);

#endif
