/* Finding the driver root and reading its files. The library is either installed in a mock
 * driver root on the host (root = that directory) or bind-mounted into a container (root = /),
 * so the root is derived from where the dynamic loader found this very library. */
#include <dlfcn.h>
#include <errno.h>
#include <fcntl.h>
#include <sys/stat.h>
#include <stdio.h>
#include <string.h>
#include <strings.h>
#include <unistd.h>

#include "mock_driver.h"

/* Library directories a driver or container may install the library into, longest first.
 * Debian's driver packages keep the libraries in nvidia/current (nvidia/tesla for the Tesla
 * variants) and reach them through alternatives symlinks; a loader that resolves those links
 * loads the mock from there. */
static const char *const kLibraryDirs[] = {
    "/usr/lib/x86_64-linux-gnu/nvidia/current",
    "/usr/lib/i386-linux-gnu/nvidia/current",
    "/usr/lib/x86_64-linux-gnu/nvidia/tesla",
    "/usr/lib/i386-linux-gnu/nvidia/tesla",
    "/usr/lib/x86_64-linux-gnu",
    "/usr/lib/i386-linux-gnu",
    "/lib/x86_64-linux-gnu",
    "/usr/lib64",
    "/usr/lib32",
    "/usr/lib",
    "/lib64",
    "/lib",
};

int mock_find_root(char *out, size_t size) {
  Dl_info info;
  if (dladdr((const void *)&mock_find_root, &info) == 0 || info.dli_fname == NULL) return -1;
  char dir[PATH_MAX];
  if (info.dli_fname[0] == '/') {
    if ((size_t)snprintf(dir, sizeof dir, "%s", info.dli_fname) >= sizeof dir) return -1;
  } else {
    /* LD_LIBRARY_PATH may hold relative directories. */
    char cwd[PATH_MAX];
    if (getcwd(cwd, sizeof cwd) == NULL) return -1;
    if ((size_t)snprintf(dir, sizeof dir, "%s/%s", cwd, info.dli_fname) >= sizeof dir) return -1;
  }
  char *slash = strrchr(dir, '/');
  if (slash == NULL) return -1;
  *slash = '\0';
  while (slash != dir && slash[-1] == '/') *--slash = '\0'; /* "//usr/lib" style paths */
  size_t len = strlen(dir);
  for (size_t i = 0; i < sizeof kLibraryDirs / sizeof kLibraryDirs[0]; i++) {
    size_t n = strlen(kLibraryDirs[i]);
    if (len >= n && strcmp(dir + len - n, kLibraryDirs[i]) == 0) {
      dir[len - n] = '\0';
      break;
    }
  }
  /* Not in a known library directory (e.g. the CMake build tree): the host is the root. */
  if (strcmp(dir, "/") == 0) dir[0] = '\0';
  if ((size_t)snprintf(out, size, "%s", dir) >= size) return -1;
  return 0;
}

int mock_path(char *out, size_t size, const char *root, const char *rel) {
  while (*rel == '/') rel++;
  return (size_t)snprintf(out, size, "%s/%s", root, rel) >= size ? -1 : 0;
}

int mock_read_file(const char *root, const char *rel, char *buf, size_t size) {
  char path[PATH_MAX];
  if (mock_path(path, sizeof path, root, rel) != 0) {
    errno = ENAMETOOLONG;
    return -1;
  }
  /* Like the kernel's procfs, never block or read a device: a FIFO or device planted in the
     mock root (tests/security/hostile) is an I/O error, as an unreadable file would be. */
  int fd = open(path, O_RDONLY | O_CLOEXEC | O_NONBLOCK | O_NOCTTY);
  if (fd < 0) return -1;
  struct stat st;
  if (fstat(fd, &st) != 0 || !S_ISREG(st.st_mode)) {
    close(fd);
    errno = EIO;
    return -1;
  }
  size_t used = 0;
  while (used + 1 < size) {
    ssize_t n = read(fd, buf + used, size - 1 - used);
    if (n < 0 && errno == EINTR) continue;
    if (n < 0) {
      int saved = errno;
      close(fd);
      errno = saved;
      return -1;
    }
    if (n == 0) break;
    used += (size_t)n;
  }
  buf[used] = '\0';
  close(fd);
  return 0;
}

int mock_field(const char *text, const char *key, char *out, size_t size) {
  size_t key_len = strlen(key);
  for (const char *line = text; line != NULL && *line != '\0';) {
    const char *end = strchr(line, '\n');
    size_t line_len = end ? (size_t)(end - line) : strlen(line);
    if (line_len > key_len && strncmp(line, key, key_len) == 0 && line[key_len] == ':') {
      const char *v = line + key_len + 1;
      const char *v_end = line + line_len;
      while (v < v_end && (*v == ' ' || *v == '\t')) v++;
      while (v_end > v && (v_end[-1] == ' ' || v_end[-1] == '\t' || v_end[-1] == '\r')) v_end--;
      size_t n = (size_t)(v_end - v);
      if (n >= size) n = size - 1;
      memcpy(out, v, n);
      out[n] = '\0';
      return 0;
    }
    line = end ? end + 1 : NULL;
  }
  return -1;
}

int mock_brand_from_name(const char *name) {
  static const char *const kNames[NVML_BRAND_COUNT] = {
      "Unknown",   "Quadro",    "Tesla",  "NVS",        "GRID",     "GeForce",
      "TITAN",     "VApps",     "VPC",    "VCS",        "VWS",      "CloudGaming",
      "QuadroRTX", "NvidiaRTX", "Nvidia", "GeForceRTX", "TitanRTX",
  };
  for (int i = 0; i < NVML_BRAND_COUNT; i++) {
    if (strcasecmp(name, kNames[i]) == 0) return i;
  }
  int n = 0;
  if (sscanf(name, "%d", &n) == 1 && n >= 0 && n < NVML_BRAND_COUNT) return n;
  return NVML_BRAND_UNKNOWN;
}
