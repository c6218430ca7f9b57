/* nvct-bind-floor PID ROOTFS SOURCE N: the floor under the hook's mounts. Joins PID's mount
 * namespace, then N times: creates an empty target file in ROOTFS, bind-mounts SOURCE on it and
 * remounts it read-only (MS_BIND|MS_REMOUNT|MS_RDONLY|MS_NOSUID|MS_NODEV), the two mount calls
 * every read-only bind needs. No checks, no path resolution: nothing a hook can do with less. */
#define _GNU_SOURCE
#include <fcntl.h>
#include <sched.h>
#include <stdio.h>
#include <stdlib.h>
#include <sys/mount.h>
#include <unistd.h>

int main(int argc, char** argv) {
  if (argc != 5) {
    fprintf(stderr, "usage: nvct-bind-floor PID ROOTFS SOURCE N\n");
    return 2;
  }
  char path[4096];
  snprintf(path, sizeof path, "/proc/%s/ns/mnt", argv[1]);
  int ns = open(path, O_RDONLY | O_CLOEXEC);
  if (ns < 0 || setns(ns, CLONE_NEWNS) != 0) {
    perror("join the mount namespace");
    return 1;
  }
  int n = atoi(argv[4]);
  for (int i = 0; i < n; ++i) {
    snprintf(path, sizeof path, "%s/.nvct-bind-floor-%d", argv[2], i);
    int fd = open(path, O_WRONLY | O_CREAT | O_CLOEXEC, 0644);
    if (fd < 0) {
      perror(path);
      return 1;
    }
    close(fd);
    if (mount(argv[3], path, NULL, MS_BIND, NULL) != 0 ||
        mount(NULL, path, NULL, MS_BIND | MS_REMOUNT | MS_RDONLY | MS_NOSUID | MS_NODEV, NULL) != 0) {
      perror("mount");
      return 1;
    }
  }
  return 0;
}
