/* fault_inject kill: SIGKILLs a writer at random moments and checks that its target is always
 * the old or the new complete version (options and classification: the comment at the top of
 * fault_inject.c; how the kills are placed: README.md). */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <sched.h>
#include <signal.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/inotify.h>
#include <sys/mount.h>
#include <sys/prctl.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <unistd.h>

#include "fault_inject.h"
#include "fault_inject_files.h"

/* ---- options ---- */

static const char* temp_prefixes[4];
static int n_temp_prefixes;
static const char *kind = "file", *target, *old_path, *new_path, *lock_suffix, *container_root,
                  *stdin_path, *log_path, *preload;
static int runs = 200, calibrate = 5, min_mid = 1, warmup = 0;
static char** cmd;
static char target_dir[4096];

static int is_temp(const char* name) {
  int match = 0;
  for (int i = 0; i < n_temp_prefixes && !match; ++i)
    match = !strncmp(name, temp_prefixes[i], strlen(temp_prefixes[i]));
  if (!match) return 0;
  if (lock_suffix) {
    size_t n = strlen(name), sl = strlen(lock_suffix);
    if (n >= sl && !strcmp(name + n - sl, lock_suffix)) return 0;
  }
  return 1;
}

/* ---- stand-in container ---- */

static pid_t start_container(void) {
  int ready[2];
  if (pipe2(ready, O_CLOEXEC) != 0) die("pipe");
  pid_t pid = fork();
  if (pid < 0) die("fork");
  if (pid == 0) {
    char p[4200];
    if (unshare(CLONE_NEWNS) != 0) _exit(10);
    if (mount(NULL, "/", NULL, MS_REC | MS_PRIVATE, NULL) != 0) _exit(11);
    if (mount(container_root, container_root, NULL, MS_BIND | MS_REC, NULL) != 0) _exit(12);
    snprintf(p, sizeof p, "%s/proc", container_root);
    if (mount("proc", p, "proc", MS_NOSUID | MS_NODEV | MS_NOEXEC, NULL) != 0) _exit(13);
    snprintf(p, sizeof p, "%s/proc/driver", container_root);
    if (mount("tmpfs", p, "tmpfs", MS_NOSUID | MS_NODEV | MS_NOEXEC, "mode=755") != 0) _exit(14);
    if (write(ready[1], "r", 1) != 1) _exit(15);
    for (;;) pause();
  }
  close(ready[1]);
  char c;
  ssize_t n;
  while ((n = read(ready[0], &c, 1)) < 0 && errno == EINTR) {
  }
  close(ready[0]);
  if (n != 1) {
    int st;
    waitpid(pid, &st, 0);
    fprintf(stderr, "fault_inject: the stand-in container failed to start (step %d)\n",
            WIFEXITED(st) ? WEXITSTATUS(st) : -1);
    exit(2);
  }
  return pid;
}

/* "{PID}" replaced by pid. */
static char* subst(const char* s, pid_t pid) {
  const char* at = strstr(s, "{PID}");
  if (!at) return strdup(s);
  char num[32];
  snprintf(num, sizeof num, "%d", (int)pid);
  size_t len = strlen(s) + strlen(num);
  char* out = malloc(len + 1);
  snprintf(out, len + 1, "%.*s%s%s", (int)(at - s), s, num, at + 5);
  char* again = subst(out, pid);
  free(out);
  return again;
}

static pid_t spawn(pid_t container, int quiet) {
  char* input = NULL;
  if (stdin_path) {
    struct buf b = read_all(stdin_path);
    if (!b.exists) usage("--stdin file missing");
    b.data = realloc(b.data, b.len + 1);
    b.data[b.len] = 0;
    input = subst(b.data, container);
    free(b.data);
  }
  int in[2] = {-1, -1};
  if (input && pipe2(in, O_CLOEXEC) != 0) die("pipe");
  pid_t pid = fork();
  if (pid < 0) die("fork");
  if (pid == 0) {
    int n = 0;
    while (cmd[n]) ++n;
    char** argv = calloc(n + 1, sizeof(char*));
    for (int i = 0; i < n; ++i) argv[i] = subst(cmd[i], container);
    int nul = open("/dev/null", O_RDWR);
    int out = nul;
    if (!quiet && log_path) out = open(log_path, O_WRONLY | O_CREAT | O_APPEND, 0644);
    dup2(input ? in[0] : nul, 0);
    dup2(out, 1);
    dup2(out, 2);
    signal(SIGPIPE, SIG_DFL);
    if (preload) setenv("LD_PRELOAD", preload, 1);
    execv(argv[0], argv);
    _exit(127);
  }
  if (input) {
    close(in[0]);
    size_t len = strlen(input), done = 0;
    signal(SIGPIPE, SIG_IGN);
    while (done < len) { /* states are far below the pipe's 64 KiB: never blocks */
      ssize_t w = write(in[1], input + done, len - done);
      if (w <= 0) break;
      done += (size_t)w;
    }
    close(in[1]);
    free(input);
  }
  return pid;
}

/* Taken right after the SIGKILL is sent (before the wait): where the kill landed. */
static struct listing at_kill;
static struct buf target_at_kill;
static int have_at_kill;

static volatile sig_atomic_t alarmed;
static void on_alarm(int sig) {
  (void)sig;
  alarmed = 1;
}

/* Waits for every remaining descendant (orphans come to this subreaper). 0: all gone. */
static int reap_all(int timeout_s) {
  struct sigaction sa;
  memset(&sa, 0, sizeof sa);
  sa.sa_handler = on_alarm; /* no SA_RESTART: the alarm interrupts waitpid */
  sigaction(SIGALRM, &sa, NULL);
  alarmed = 0;
  alarm((unsigned)timeout_s);
  int rc = 0;
  for (;;) {
    int st;
    pid_t p = waitpid(-1, &st, __WALL);
    if (p > 0) continue;
    if (errno == ECHILD) break;
    if (errno == EINTR && alarmed) {
      rc = -1;
      break;
    }
  }
  alarm(0);
  return rc;
}

/* One run: the exit status of CMD (or -1 if it was killed). kill_after_us == 0: not killed. */
/* With `window` (calibration): the moments, from the start, at which the first temp file
 * appeared and at which a temp file was renamed over the target (inotify on its directory). */
/* targeted: the delay counts from the moment the temp file appears, not from the start. */
static int one_run(uint64_t kill_after_us, int targeted, int* killed, uint64_t* lifetime_us,
                   uint64_t* window) {
  pid_t container = container_root ? start_container() : 0;
  int ino = -1;
  if (targeted) {
    ino = inotify_init1(IN_CLOEXEC | IN_NONBLOCK);
    if (ino < 0 || inotify_add_watch(ino, target_dir, IN_CREATE) < 0) die("inotify");
  }
  if (window) {
    window[0] = window[1] = 0;
    ino = inotify_init1(IN_CLOEXEC | IN_NONBLOCK);
    if (ino < 0 || inotify_add_watch(ino, target_dir, IN_CREATE | IN_MOVED_FROM) < 0)
      die("inotify");
  }
  uint64_t t0 = now_us();
  pid_t pid = spawn(container, kill_after_us != 0);
  int st = 0;
  int reaped = 0;
  if (targeted) {
    /* Waits (poll on the inotify fd and a pidfd of CMD) until a temp file appears or CMD ends.
     * Events are read before the exit is looked at, so a temp file is never missed. */
    int pfd_child = (int)syscall(SYS_pidfd_open, pid, 0);
    if (pfd_child < 0) die("pidfd_open");
    int seen = 0, ended = 0;
    while (!seen && !ended) {
      struct pollfd pfd[2] = {{ino, POLLIN, 0}, {pfd_child, POLLIN, 0}};
      if (poll(pfd, 2, -1) < 0 && errno != EINTR) die("poll");
      ended = pfd[1].revents != 0;
      char ev[8192] __attribute__((aligned(8)));
      ssize_t len = read(ino, ev, sizeof ev);
      for (ssize_t off = 0; len > 0 && off < len;) {
        struct inotify_event* e = (struct inotify_event*)(ev + off);
        if (e->len && is_temp(e->name)) seen = 1;
        off += (ssize_t)(sizeof *e + e->len);
      }
    }
    close(pfd_child);
    close(ino);
    ino = -1;
  }
  if (kill_after_us && !reaped) {
    if (kill_after_us < 5000) {
      uint64_t until = now_us() + kill_after_us; /* nanosleep's slack is larger than this */
      while (now_us() < until) {
      }
    } else {
      sleep_us(kill_after_us);
    }
    kill(pid, SIGKILL);
    at_kill = list_dir(target_dir);
    target_at_kill = read_all(target);
    have_at_kill = 1;
  }
  if (ino >= 0) {
    /* Blocks on the inotify fd and a pidfd of CMD together: exact times, no polling tick. */
    int pfd_child = (int)syscall(SYS_pidfd_open, pid, 0);
    if (pfd_child < 0) die("pidfd_open");
    for (;;) {
      struct pollfd pfd[2] = {{ino, POLLIN, 0}, {pfd_child, POLLIN, 0}};
      int n = poll(pfd, 2, -1);
      uint64_t at = now_us() - t0;
      if (n < 0 && errno == EINTR) continue;
      if (n < 0) die("poll");
      char ev[8192] __attribute__((aligned(8)));
      ssize_t len = read(ino, ev, sizeof ev);
      for (ssize_t off = 0; len > 0 && off < len;) {
        struct inotify_event* e = (struct inotify_event*)(ev + off);
        if (e->len && is_temp(e->name)) {
          if ((e->mask & IN_CREATE) && !window[0]) window[0] = at;
          if ((e->mask & IN_MOVED_FROM) && !window[1]) window[1] = at;
        }
        off += (ssize_t)(sizeof *e + e->len);
      }
      if (pfd[1].revents) break;
    }
    if (lifetime_us) *lifetime_us = now_us() - t0;
    close(pfd_child);
    close(ino);
  }
  while (!reaped && waitpid(pid, &st, 0) < 0 && errno == EINTR) {
  }
  if (lifetime_us && !window) *lifetime_us = now_us() - t0;
  *killed = WIFSIGNALED(st) && WTERMSIG(st) == SIGKILL;
  if (container) kill(container, SIGKILL);
  if (reap_all(20) != 0) {
    fprintf(stderr, "fault_inject[%s]: a helper of the killed run still runs after 20 s\n", kind);
    exit(1);
  }
  if (WIFEXITED(st)) return WEXITSTATUS(st);
  return -1;
}

static int cmp_u64(const void* a, const void* b) {
  uint64_t x = *(const uint64_t*)a, y = *(const uint64_t*)b;
  return x < y ? -1 : x > y;
}

static void print_listing_diff(const struct listing* want, const struct listing* got) {
  for (int i = 0; i < got->n; ++i) {
    int found = 0;
    for (int j = 0; j < want->n && !found; ++j) found = !strcmp(want->names[j], got->names[i]);
    if (!found) fprintf(stderr, "  left behind: %s/%s\n", target_dir, got->names[i]);
  }
  for (int j = 0; j < want->n; ++j) {
    int found = 0;
    for (int i = 0; i < got->n && !found; ++i) found = !strcmp(want->names[j], got->names[i]);
    if (!found) fprintf(stderr, "  missing: %s/%s\n", target_dir, want->names[j]);
  }
}

int kill_main(int argc, char** argv) {
  uint64_t seed = now_us() ^ ((uint64_t)getpid() << 32);
  int i = 0;
  for (; i < argc; ++i) {
    const char* a = argv[i];
    if (!strcmp(a, "--")) {
      ++i;
      break;
    }
    if (i + 1 >= argc) usage("option without a value");
    const char* v = argv[++i];
    if (!strcmp(a, "--kind"))
      kind = v;
    else if (!strcmp(a, "--runs"))
      runs = atoi(v);
    else if (!strcmp(a, "--target"))
      target = v;
    else if (!strcmp(a, "--old"))
      old_path = v;
    else if (!strcmp(a, "--new"))
      new_path = v;
    else if (!strcmp(a, "--temp") && n_temp_prefixes < 4)
      temp_prefixes[n_temp_prefixes++] = v;
    else if (!strcmp(a, "--lock"))
      lock_suffix = v;
    else if (!strcmp(a, "--container"))
      container_root = v;
    else if (!strcmp(a, "--stdin"))
      stdin_path = v;
    else if (!strcmp(a, "--log"))
      log_path = v;
    else if (!strcmp(a, "--preload"))
      preload = v;
    else if (!strcmp(a, "--calibrate"))
      calibrate = atoi(v);
    else if (!strcmp(a, "--warmup"))
      warmup = atoi(v);
    else if (!strcmp(a, "--seed"))
      seed = strtoull(v, NULL, 0);
    else if (!strcmp(a, "--min-mid"))
      min_mid = atoi(v);
    else
      usage(a);
  }
  if (i >= argc || !target || !old_path || !new_path || !n_temp_prefixes || calibrate < 1)
    usage("kill needs --target, --old, --new, --temp and a command after --");
  cmd = argv + i;
  rng_seed(seed);
  snprintf(target_dir, sizeof target_dir, "%s", target);
  char* slash = strrchr(target_dir, '/');
  if (!slash)
    snprintf(target_dir, sizeof target_dir, ".");
  else if (slash == target_dir)
    slash[1] = 0;
  else
    *slash = 0;
  if (prctl(PR_SET_CHILD_SUBREAPER, 1) != 0) die("PR_SET_CHILD_SUBREAPER");

  struct buf old = {NULL, 0, 0};
  if (strcmp(old_path, "-") != 0) {
    old = read_all(old_path);
    if (!old.exists) usage("--old file missing");
  }

  for (int w = 0; w < warmup; ++w) {
    write_whole(target, &old);
    int killed;
    int rc = one_run(0, 0, &killed, NULL, NULL);
    if (rc != 0) {
      fprintf(stderr, "fault_inject[%s]: warm-up run %d exited %d (log: %s)\n", kind, w, rc,
              log_path ? log_path : "none");
      return 1;
    }
  }
  /* Calibration: unkilled runs from the old file; all must give the same complete file. */
  uint64_t* lifetimes = calloc((size_t)calibrate, sizeof(uint64_t));
  uint64_t* creates = calloc((size_t)calibrate, sizeof(uint64_t));
  uint64_t* renames = calloc((size_t)calibrate, sizeof(uint64_t));
  struct buf fresh = {NULL, 0, 0};
  for (int c = 0; c < calibrate; ++c) {
    write_whole(target, &old);
    int killed;
    uint64_t w[2];
    int rc = one_run(0, 0, &killed, &lifetimes[c], w);
    creates[c] = w[0];
    renames[c] = w[1];
    if (rc != 0) {
      fprintf(stderr, "fault_inject[%s]: calibration run %d exited %d (log: %s)\n", kind, c, rc,
              log_path ? log_path : "none");
      return 1;
    }
    struct buf got = read_all(target);
    if (!got.exists || same(&got, &old)) {
      fprintf(stderr, "fault_inject[%s]: calibration run %d did not change %s\n", kind, c, target);
      return 1;
    }
    if (c == 0) {
      fresh = got;
    } else if (!same(&got, &fresh)) {
      char keep[4200];
      snprintf(keep, sizeof keep, "%s.first", new_path);
      write_whole(keep, &fresh);
      snprintf(keep, sizeof keep, "%s.other", new_path);
      write_whole(keep, &got);
      fprintf(stderr,
              "fault_inject[%s]: two unkilled runs wrote different %s (kept as %s.first "
              "and %s.other)\n",
              kind, target, new_path, new_path);
      return 1;
    } else {
      free(got.data);
    }
  }
  write_whole(new_path, &fresh);
  qsort(lifetimes, (size_t)calibrate, sizeof(uint64_t), cmp_u64);
  uint64_t lifetime = lifetimes[calibrate / 2];
  uint64_t spread = lifetime + lifetime / 4 + 1;
  /* Half the kills aim at the write itself (the temp file's life, widened by half its length
   * on both sides), half are spread over the whole lifetime. */
  qsort(creates, (size_t)calibrate, sizeof(uint64_t), cmp_u64);
  qsort(renames, (size_t)calibrate, sizeof(uint64_t), cmp_u64);
  uint64_t w_create = creates[calibrate / 2], w_rename = renames[calibrate / 2];
  if (w_create && !w_rename) {
    /* Never renamed (a writer that copies over its target in place): aim at the rest of the
     * run; the kills will show what such a writer leaves. */
    fprintf(stderr, "fault_inject[%s]: the temp file was never renamed over the target\n", kind);
    w_rename = lifetime > w_create ? lifetime : w_create + 1;
  }
  if (!w_create || w_rename < w_create) {
    fprintf(stderr,
            "fault_inject[%s]: no temp file '%s*' was seen created and renamed in %s "
            "during the calibration runs (wrong --temp?)\n",
            kind, temp_prefixes[0], target_dir);
    return 1;
  }
  uint64_t w_len = w_rename - w_create;
  uint64_t w_span = w_len + w_len / 4 > 400 ? w_len + w_len / 4 : 400;
  struct listing baseline = list_dir(target_dir);

  int before = 0, mid = 0, after = 0, done = 0, violations = 0, swept = 0;
  for (int k = 0; k < runs; ++k) {
    write_whole(target, &old);
    struct listing pre = list_dir(target_dir);
    int targeted = k % 2;
    uint64_t delay = 1 + rng_next() % (targeted ? w_span : spread);
    int killed;
    int rc = one_run(delay, targeted, &killed, NULL, NULL);
    struct buf got = read_all(target);
    int is_old = same(&got, &old), is_new = same(&got, &fresh);
    struct listing post = list_dir(target_dir);
    int own_temp = 0, temp_at_kill = 0;
    for (int j = 0; j < pre.n; ++j)
      if (is_temp(pre.names[j]) && !listing_has(&post, pre.names[j], pre.inos[j], pre.mtimes[j]))
        ++swept;
    for (int j = 0; j < post.n; ++j)
      if (is_temp(post.names[j]) && !listing_has(&pre, post.names[j], post.inos[j], post.mtimes[j]))
        own_temp = 1;
    int new_at_kill = 0;
    if (have_at_kill) {
      for (int j = 0; j < at_kill.n; ++j)
        if (is_temp(at_kill.names[j]) &&
            !listing_has(&pre, at_kill.names[j], at_kill.inos[j], at_kill.mtimes[j]))
          temp_at_kill = 1;
      new_at_kill = same(&target_at_kill, &fresh);
      free_listing(&at_kill);
      free(target_at_kill.data);
      target_at_kill.data = NULL;
      have_at_kill = 0;
    }
    if (getenv("FAULT_DEBUG"))
      fprintf(stderr,
              "kill %d: %s delay %llu us: killed %d exit %d temp-at-kill %d new-at-kill %d old %d "
              "new %d\n",
              k, targeted ? "targeted" : "uniform", (unsigned long long)delay, killed, rc,
              temp_at_kill, new_at_kill, is_old, is_new);
    const char* bad = NULL;
    if (!is_old && !is_new)
      bad = "the file is neither the old nor the new version";
    else if (!killed && rc != 0)
      bad = "an unkilled run failed";
    else if (!killed && (!is_new || own_temp))
      bad = "an unkilled run left an old file or a temp";
    if (bad) {
      ++violations;
      char keep[4200];
      snprintf(keep, sizeof keep, "%s.violation.%d", new_path, violations);
      write_whole(keep, &got);
      fprintf(stderr, "VIOLATION [%s] kill %d at %llu us (exit %d, killed %d): %s (kept as %s)\n",
              kind, k, (unsigned long long)delay, rc, killed, bad, keep);
    } else if (!killed) {
      ++done;
    } else if (temp_at_kill) {
      ++mid;
    } else if (new_at_kill) {
      ++after;
    } else {
      ++before;
    }
    free(got.data);
    free_listing(&pre);
    free_listing(&post);
  }

  /* The next run removes what the killed ones left. */
  struct listing left = list_dir(target_dir);
  int stale = 0;
  for (int j = 0; j < left.n; ++j) {
    int in_base = 0;
    for (int b = 0; b < baseline.n && !in_base; ++b)
      in_base = !strcmp(baseline.names[b], left.names[j]);
    if (!in_base) ++stale;
  }
  free_listing(&left);
  write_whole(target, &old);
  int killed;
  int rc = one_run(0, 0, &killed, NULL, NULL);
  struct buf final = read_all(target);
  struct listing end = list_dir(target_dir);
  int clean = end.n == baseline.n;
  for (int j = 0; clean && j < end.n; ++j) clean = !strcmp(end.names[j], baseline.names[j]);
  int final_ok = rc == 0 && same(&final, &fresh) && clean;
  if (!final_ok) {
    fprintf(stderr, "VIOLATION [%s] the run after the kills: exit %d, %s, %s\n", kind, rc,
            same(&final, &fresh) ? "new file" : "NOT the new file",
            clean ? "directory clean" : "directory NOT as before the kills:");
    if (!clean) print_listing_diff(&baseline, &end);
  }
  printf(
      "faults[%s]: kills=%d before=%d mid-write=%d after-rename=%d finished-first=%d "
      "violations=%d lifetime_us=%llu temp_file_us=%llu..%llu seed=%llu stale-swept-by-next-run=%d "
      "stale-at-end=%d final-run-cleaned=%s\n",
      kind, runs, before, mid, after, done, violations, (unsigned long long)lifetime,
      (unsigned long long)w_create, (unsigned long long)w_rename, (unsigned long long)seed, swept,
      stale, clean ? "all" : "NO");
  if (mid < min_mid)
    fprintf(stderr,
            "fault_inject[%s]: only %d kills landed mid-write (want >= %d): the delays "
            "miss the write\n",
            kind, mid, min_mid);
  return violations || !final_ok || mid < min_mid ? 1 : 0;
}
