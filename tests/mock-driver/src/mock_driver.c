/* Builds the mock's device table from the driver root:
 *   proc/driver/nvidia/version                 kernel module (RM) version
 *   proc/driver/nvidia/gpus/<bus>/information  model, UUID, bus location, minor
 *   proc/driver/nvidia/gpus/<bus>/nvct-mock    brand, compute capability, PCI ids, MIG facts
 *   proc/driver/nvidia/capabilities/gpu<minor>/mig/gi<g>/ci<c>/access   MIG device visible
 *   dev/nvidiactl, dev/nvidia<minor>           a GPU without its node is invisible
 * Inside a container only what the runtime injected exists, so the mock sees exactly that. */
#include "mock_driver.h"

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

enum { kFileBuffer = 16384 };

/* Result of probing a device node the way the real driver library does: by opening it. */
enum NodeState { kNodeAbsent, kNodeUsable, kNodeDenied };

static enum NodeState probe_node(const char *root, const char *rel) {
  char path[PATH_MAX];
  if (mock_path(path, sizeof path, root, rel) != 0) return kNodeAbsent;
  struct stat st;
  if (stat(path, &st) != 0) return kNodeAbsent;
  int fd = open(path, O_RDWR | O_CLOEXEC | O_NOCTTY | O_NONBLOCK);
  if (fd >= 0) {
    close(fd);
    return kNodeUsable;
  }
  /* A device cgroup that does not allow the node gives EPERM; ENXIO means the node is allowed
   * but no kernel driver answers it, which is the normal case on a machine without a GPU. */
  if (errno == EPERM || errno == EACCES) return kNodeDenied;
  return kNodeUsable;
}

static int parse_rm_version(const char *text, char *out, size_t size) {
  const char *p = strstr(text, "Kernel Module");
  if (p == NULL) return -1;
  p += strlen("Kernel Module");
  while (*p == ' ' || *p == '\t') p++;
  size_t n = strcspn(p, " \t\n");
  if (n == 0 || n >= size) return -1;
  memcpy(out, p, n);
  out[n] = '\0';
  return 0;
}

static void parse_extra(struct nvmlDevice_st *gpu, const char *text) {
  char value[128];
  gpu->brand = NVML_BRAND_UNKNOWN;
  if (mock_field(text, "Brand", value, sizeof value) == 0) gpu->brand = mock_brand_from_name(value);
  if (mock_field(text, "Compute Capability", value, sizeof value) == 0) {
    sscanf(value, "%d.%d", &gpu->cc_major, &gpu->cc_minor);
  }
  if (mock_field(text, "PCI Device Id", value, sizeof value) == 0) {
    gpu->pci_device_id = (unsigned)strtoul(value, NULL, 0);
  }
  if (mock_field(text, "PCI Subsystem Id", value, sizeof value) == 0) {
    gpu->pci_subsystem_id = (unsigned)strtoul(value, NULL, 0);
  }
  gpu->mig_mode = kMigUnsupported;
  if (mock_field(text, "MIG Mode", value, sizeof value) == 0) {
    if (strcmp(value, "Enabled") == 0) gpu->mig_mode = kMigEnabled;
    if (strcmp(value, "Disabled") == 0) gpu->mig_mode = kMigDisabled;
  }
  gpu->mig_max = 7;
  if (mock_field(text, "MIG Max Devices", value, sizeof value) == 0) {
    gpu->mig_max = (unsigned)strtoul(value, NULL, 10);
  }
}

static int compare_mig(const void *a, const void *b) {
  const struct nvmlDevice_st *x = *(struct nvmlDevice_st *const *)a;
  const struct nvmlDevice_st *y = *(struct nvmlDevice_st *const *)b;
  if (x->gi != y->gi) return x->gi < y->gi ? -1 : 1;
  return x->ci < y->ci ? -1 : (x->ci > y->ci);
}

/* "MIG Device: <gi> <ci> <MIG-uuid> <profile>" lines, kept when the CI access file exists. */
static void load_migs(struct MockDriver *driver, struct nvmlDevice_st *gpu, const char *text) {
  if (gpu->mig_mode != kMigEnabled) return;
  for (const char *line = strstr(text, "MIG Device:"); line != NULL;
       line = strstr(line + 1, "MIG Device:")) {
    if (line != text && line[-1] != '\n') continue;
    unsigned gi = 0, ci = 0;
    char uuid[NVML_DEVICE_UUID_V2_BUFFER_SIZE], profile[32];
    if (sscanf(line, "MIG Device: %u %u %95s %31s", &gi, &ci, uuid, profile) != 4) continue;
    char rel[128];
    snprintf(rel, sizeof rel, "proc/driver/nvidia/capabilities/gpu%u/mig/gi%u/ci%u/access",
             gpu->minor, gi, ci);
    char path[PATH_MAX];
    if (mock_path(path, sizeof path, driver->root, rel) != 0 || access(path, F_OK) != 0) continue;
    if (gpu->mig_count == kMockMaxMigPerGpu ||
        driver->mig_total == kMockMaxGpus * kMockMaxMigPerGpu) {
      break;
    }
    struct nvmlDevice_st *mig = &driver->migs[driver->mig_total++];
    *mig = *gpu;
    mig->is_mig = 1;
    mig->parent = gpu;
    mig->mig_count = 0;
    mig->gi = gi;
    mig->ci = ci;
    snprintf(mig->uuid, sizeof mig->uuid, "%s", uuid);
    char parent_name[NVML_DEVICE_NAME_V2_BUFFER_SIZE];
    memcpy(parent_name, gpu->name, sizeof parent_name);
    /* 38 + " MIG " + 20 fits the 64-byte name buffer. */
    snprintf(mig->name, sizeof mig->name, "%.38s MIG %.20s", parent_name, profile);
    gpu->migs[gpu->mig_count++] = mig;
  }
  qsort(gpu->migs, gpu->mig_count, sizeof gpu->migs[0], compare_mig);
}

/* Returns 1 if the GPU was added, 0 if it is invisible, -1 if its node is denied. */
static int load_gpu(struct MockDriver *driver, const char *bus_dir) {
  char rel[PATH_MAX], text[kFileBuffer];
  snprintf(rel, sizeof rel, "proc/driver/nvidia/gpus/%s/information", bus_dir);
  if (mock_read_file(driver->root, rel, text, sizeof text) != 0) return 0;
  struct nvmlDevice_st *gpu = &driver->gpus[driver->gpu_count];
  memset(gpu, 0, sizeof *gpu);
  char value[128];
  if (mock_field(text, "Model", gpu->name, sizeof gpu->name) != 0) return 0;
  if (mock_field(text, "GPU UUID", gpu->uuid, sizeof gpu->uuid) != 0) return 0;
  unsigned function = 0;
  if (mock_field(text, "Bus Location", value, sizeof value) != 0 ||
      sscanf(value, "%x:%x:%x.%x", &gpu->domain, &gpu->bus, &gpu->device, &function) != 4) {
    return 0;
  }
  if (mock_field(text, "Device Minor", value, sizeof value) != 0) return 0;
  gpu->minor = (unsigned)strtoul(value, NULL, 10);

  snprintf(rel, sizeof rel, "dev/nvidia%u", gpu->minor);
  enum NodeState node = probe_node(driver->root, rel);
  if (node == kNodeAbsent) return 0;
  if (node == kNodeDenied) return -1;

  snprintf(rel, sizeof rel, "proc/driver/nvidia/gpus/%s/nvct-mock", bus_dir);
  if (mock_read_file(driver->root, rel, text, sizeof text) != 0) text[0] = '\0';
  parse_extra(gpu, text);
  load_migs(driver, gpu, text);
  driver->gpu_count++;
  return 1;
}

static int compare_gpu(const void *a, const void *b) {
  const struct nvmlDevice_st *x = a, *y = b;
  unsigned long kx = ((unsigned long)x->domain << 16) | (x->bus << 8) | x->device;
  unsigned long ky = ((unsigned long)y->domain << 16) | (y->bus << 8) | y->device;
  return kx < ky ? -1 : (kx > ky);
}

nvmlReturn_t mock_driver_load(struct MockDriver *driver) {
  memset(driver, 0, sizeof *driver);
  if (mock_find_root(driver->root, sizeof driver->root) != 0) return NVML_ERROR_UNKNOWN;

  char text[kFileBuffer];
  if (mock_read_file(driver->root, "proc/driver/nvidia/version", text, sizeof text) != 0 ||
      parse_rm_version(text, driver->driver_version, sizeof driver->driver_version) != 0) {
    return NVML_ERROR_DRIVER_NOT_LOADED;
  }
  const char *library_version = mock_library_driver_version();
  if (library_version != NULL && strcmp(library_version, driver->driver_version) != 0) {
    return NVML_ERROR_LIB_RM_VERSION_MISMATCH;
  }
  switch (probe_node(driver->root, "dev/nvidiactl")) {
    case kNodeAbsent:
      return NVML_ERROR_DRIVER_NOT_LOADED;
    case kNodeDenied:
      return NVML_ERROR_UNKNOWN;
    case kNodeUsable:
      break;
  }

  char gpus_dir[PATH_MAX];
  if (mock_path(gpus_dir, sizeof gpus_dir, driver->root, "proc/driver/nvidia/gpus") != 0) {
    return NVML_ERROR_UNKNOWN;
  }
  DIR *dir = opendir(gpus_dir);
  if (dir == NULL) return NVML_SUCCESS; /* a driver without GPUs */
  nvmlReturn_t result = NVML_SUCCESS;
  for (struct dirent *entry; (entry = readdir(dir)) != NULL;) {
    if (entry->d_name[0] == '.') continue;
    if (driver->gpu_count == kMockMaxGpus) break;
    if (load_gpu(driver, entry->d_name) < 0) {
      result = NVML_ERROR_UNKNOWN;
      break;
    }
  }
  closedir(dir);
  if (result != NVML_SUCCESS) return result;
  /* NVML enumerates GPUs in PCI bus order; fix up MIG parents after moving GPUs around. */
  qsort(driver->gpus, driver->gpu_count, sizeof driver->gpus[0], compare_gpu);
  for (unsigned i = 0; i < driver->gpu_count; i++) {
    for (unsigned m = 0; m < driver->gpus[i].mig_count; m++) {
      driver->gpus[i].migs[m]->parent = &driver->gpus[i];
    }
  }
  return NVML_SUCCESS;
}
