/* A stand-in web server for the critest images (built static by e2e_cri_critest.sh; no network
 * needed). Installed as /usr/sbin/nginx and as httpd, it looks to critest like the upstream
 * nginx/httpd test images:
 *   - as "nginx" it re-executes itself so that its command line reads
 *     "nginx: master process <exe> ..." (critest reads PID 1's cmdline) while its process name
 *     stays the executable's ("pidof nginx" finds it);
 *   - it logs "Command line: '<name> <args>'" (critest waits for "httpd -D FOREGROUND");
 *   - it writes its pid to /var/run/nginx.pid;
 *   - it serves /www on $WEB_PORT (default 80) through a busybox httpd child;
 *   - SIGTERM, SIGINT and SIGQUIT stop both at once. */
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

static pid_t child;

static void stop(int sig) {
  (void)sig;
  if (child > 0) kill(child, SIGTERM);
  _exit(0);
}

int main(int argc, char **argv) {
  static char exe[4096], title[4200];
  ssize_t n = readlink("/proc/self/exe", exe, sizeof exe - 1);
  if (n <= 0) return 1;
  exe[n] = 0;
  const char *slash = strrchr(exe, '/');
  const char *name = slash ? slash + 1 : exe;
  if (strcmp(name, "nginx") == 0 && strncmp(argv[0], "nginx: ", 7) != 0) {
    snprintf(title, sizeof title, "nginx: master process %s", exe);
    argv[0] = title;
    execv(exe, argv);
    return 1;
  }
  printf("Command line: '%s", name);
  for (int i = 1; i < argc; i++) printf(" %s", argv[i]);
  printf("'\n");
  fflush(stdout);
  FILE *f = fopen("/var/run/nginx.pid", "w");
  if (f) {
    fprintf(f, "%d\n", (int)getpid());
    fclose(f);
  }
  const char *port = getenv("WEB_PORT") ? getenv("WEB_PORT") : "80";
  signal(SIGTERM, stop);
  signal(SIGINT, stop);
  signal(SIGQUIT, stop);
  child = fork();
  if (child == 0) {
    execl("/bin/busybox", "httpd", "-f", "-p", port, "-h", "/www", (char *)NULL);
    _exit(127);
  }
  int status;
  while (waitpid(child, &status, 0) < 0) {
  }
  return 1;
}
