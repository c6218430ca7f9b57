/* The 18 NVML entry points libnvidia-container looks up (driver.md §11.3). Only these are
 * exported (the library is built with -fvisibility=hidden), so a caller that needs anything
 * else fails the way it would against a driver that lacks the symbol. */
#include <fcntl.h>
#include <pthread.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

#include "mock_driver.h"

#define NVML_EXPORT __attribute__((visibility("default")))

static pthread_mutex_t g_lock = PTHREAD_MUTEX_INITIALIZER;
static unsigned g_init_count;
static struct MockDriver g_driver;

static int initialized(void) {
  pthread_mutex_lock(&g_lock);
  int yes = g_init_count > 0;
  pthread_mutex_unlock(&g_lock);
  return yes;
}

static int valid_handle(nvmlDevice_t device) {
  if (device == NULL) return 0;
  for (unsigned i = 0; i < g_driver.gpu_count; i++) {
    if (device == &g_driver.gpus[i]) return 1;
  }
  for (unsigned i = 0; i < g_driver.mig_total; i++) {
    if (device == &g_driver.migs[i] && device->parent != NULL) return 1;
  }
  return 0;
}

/* The common prologue: library initialised, handle one of ours. */
static nvmlReturn_t check(nvmlDevice_t device) {
  if (!initialized()) return NVML_ERROR_UNINITIALIZED;
  if (!valid_handle(device)) return NVML_ERROR_INVALID_ARGUMENT;
  return NVML_SUCCESS;
}

static nvmlReturn_t copy_string(char *out, unsigned int length, const char *value) {
  if (out == NULL) return NVML_ERROR_INVALID_ARGUMENT;
  if (strlen(value) + 1 > length) return NVML_ERROR_INSUFFICIENT_SIZE;
  memcpy(out, value, strlen(value) + 1);
  return NVML_SUCCESS;
}

/* Test hook: when the driver root has a file nvct-mock-nvml-init.log (a test creates it, mode
 * 0666 since NVML runs as the unprivileged NVML user), every nvmlInit_v2 appends one line to it,
 * so a test can prove that NVML was (not) initialised. Never created here: no file, no log. */
static void log_init(nvmlReturn_t result) {
  char root[PATH_MAX], path[PATH_MAX];
  if (mock_find_root(root, sizeof root) != 0 ||
      mock_path(path, sizeof path, root, "nvct-mock-nvml-init.log") != 0)
    return;
  int fd = open(path, O_WRONLY | O_APPEND | O_NOFOLLOW | O_CLOEXEC | O_NONBLOCK);
  if (fd < 0) return;
  char line[64];
  int n = snprintf(line, sizeof line, "nvmlInit_v2 pid=%ld result=%d\n", (long)getpid(), (int)result);
  if (n > 0) (void)!write(fd, line, (size_t)n);
  close(fd);
}

NVML_EXPORT nvmlReturn_t nvmlInit_v2(void) {
  nvmlReturn_t result = NVML_SUCCESS;
  pthread_mutex_lock(&g_lock);
  if (g_init_count == 0) result = mock_driver_load(&g_driver);
  log_init(result);
  if (result == NVML_SUCCESS) g_init_count++;
  pthread_mutex_unlock(&g_lock);
  return result;
}

NVML_EXPORT nvmlReturn_t nvmlShutdown(void) {
  nvmlReturn_t result = NVML_SUCCESS;
  pthread_mutex_lock(&g_lock);
  if (g_init_count == 0) {
    result = NVML_ERROR_UNINITIALIZED;
  } else if (--g_init_count == 0) {
    memset(&g_driver, 0, sizeof g_driver);
  }
  pthread_mutex_unlock(&g_lock);
  return result;
}

NVML_EXPORT nvmlReturn_t nvmlSystemGetDriverVersion(char *version, unsigned int length) {
  if (!initialized()) return NVML_ERROR_UNINITIALIZED;
  return copy_string(version, length, g_driver.driver_version);
}

NVML_EXPORT nvmlReturn_t nvmlSystemGetCudaDriverVersion(int *cuda_version) {
  if (cuda_version == NULL) return NVML_ERROR_INVALID_ARGUMENT;
  unsigned v = 0;
  /* Like the real call, this works without nvmlInit: the value is a property of the library. */
  if (mock_cuda_version(&v) != 0) return NVML_ERROR_LIBRARY_NOT_FOUND;
  *cuda_version = (int)v;
  return NVML_SUCCESS;
}

NVML_EXPORT nvmlReturn_t nvmlDeviceGetCount_v2(unsigned int *count) {
  if (!initialized()) return NVML_ERROR_UNINITIALIZED;
  if (count == NULL) return NVML_ERROR_INVALID_ARGUMENT;
  *count = g_driver.gpu_count;
  return NVML_SUCCESS;
}

NVML_EXPORT nvmlReturn_t nvmlDeviceGetHandleByIndex_v2(unsigned int index, nvmlDevice_t *device) {
  if (!initialized()) return NVML_ERROR_UNINITIALIZED;
  if (device == NULL || index >= g_driver.gpu_count) return NVML_ERROR_INVALID_ARGUMENT;
  *device = &g_driver.gpus[index];
  return NVML_SUCCESS;
}

NVML_EXPORT nvmlReturn_t nvmlDeviceGetMinorNumber(nvmlDevice_t device, unsigned int *minor) {
  nvmlReturn_t r = check(device);
  if (r != NVML_SUCCESS) return r;
  if (minor == NULL) return NVML_ERROR_INVALID_ARGUMENT;
  if (device->is_mig) return NVML_ERROR_NOT_SUPPORTED;
  *minor = device->minor;
  return NVML_SUCCESS;
}

NVML_EXPORT nvmlReturn_t nvmlDeviceGetUUID(nvmlDevice_t device, char *uuid, unsigned int length) {
  nvmlReturn_t r = check(device);
  return r != NVML_SUCCESS ? r : copy_string(uuid, length, device->uuid);
}

NVML_EXPORT nvmlReturn_t nvmlDeviceGetName(nvmlDevice_t device, char *name, unsigned int length) {
  nvmlReturn_t r = check(device);
  return r != NVML_SUCCESS ? r : copy_string(name, length, device->name);
}

NVML_EXPORT nvmlReturn_t nvmlDeviceGetPciInfo(nvmlDevice_t device, nvmlPciInfo_t *pci) {
  nvmlReturn_t r = check(device);
  if (r != NVML_SUCCESS) return r;
  if (pci == NULL) return NVML_ERROR_INVALID_ARGUMENT;
  const struct nvmlDevice_st *gpu = device->is_mig ? device->parent : device;
  memset(pci, 0, sizeof *pci);
  pci->domain = gpu->domain;
  pci->bus = gpu->bus;
  pci->device = gpu->device;
  pci->pciDeviceId = gpu->pci_device_id;
  pci->pciSubSystemId = gpu->pci_subsystem_id;
  snprintf(pci->busIdLegacy, sizeof pci->busIdLegacy, "%04x:%02x:%02x.0", gpu->domain & 0xffffu,
           gpu->bus & 0xffu, gpu->device & 0xffu);
  snprintf(pci->busId, sizeof pci->busId, "%08x:%02x:%02x.0", gpu->domain, gpu->bus & 0xffu,
           gpu->device & 0xffu);
  return NVML_SUCCESS;
}

NVML_EXPORT nvmlReturn_t nvmlDeviceGetBrand(nvmlDevice_t device, nvmlBrandType_t *brand) {
  nvmlReturn_t r = check(device);
  if (r != NVML_SUCCESS) return r;
  if (brand == NULL) return NVML_ERROR_INVALID_ARGUMENT;
  *brand = (nvmlBrandType_t)device->brand;
  return NVML_SUCCESS;
}

NVML_EXPORT nvmlReturn_t nvmlDeviceGetCudaComputeCapability(nvmlDevice_t device, int *major,
                                                            int *minor) {
  nvmlReturn_t r = check(device);
  if (r != NVML_SUCCESS) return r;
  if (major == NULL || minor == NULL) return NVML_ERROR_INVALID_ARGUMENT;
  *major = device->cc_major;
  *minor = device->cc_minor;
  return NVML_SUCCESS;
}

NVML_EXPORT nvmlReturn_t nvmlDeviceGetMigMode(nvmlDevice_t device, unsigned int *current,
                                              unsigned int *pending) {
  nvmlReturn_t r = check(device);
  if (r != NVML_SUCCESS) return r;
  if (current == NULL || pending == NULL) return NVML_ERROR_INVALID_ARGUMENT;
  if (device->is_mig || device->mig_mode == kMigUnsupported) return NVML_ERROR_NOT_SUPPORTED;
  *current = *pending = (unsigned)device->mig_mode;
  return NVML_SUCCESS;
}

NVML_EXPORT nvmlReturn_t nvmlDeviceGetMaxMigDeviceCount(nvmlDevice_t device, unsigned int *count) {
  nvmlReturn_t r = check(device);
  if (r != NVML_SUCCESS) return r;
  if (count == NULL) return NVML_ERROR_INVALID_ARGUMENT;
  if (device->is_mig) return NVML_ERROR_NOT_SUPPORTED;
  /* As the real library: zero on a GPU without MIG support (NVIDIA's 1.13.1 `cdi generate`
   * stops at any error here). */
  *count = device->mig_mode == kMigUnsupported ? 0 : device->mig_max;
  return NVML_SUCCESS;
}

NVML_EXPORT nvmlReturn_t nvmlDeviceGetMigDeviceHandleByIndex(nvmlDevice_t device,
                                                             unsigned int index,
                                                             nvmlDevice_t *mig) {
  nvmlReturn_t r = check(device);
  if (r != NVML_SUCCESS) return r;
  if (mig == NULL || device->is_mig) return NVML_ERROR_INVALID_ARGUMENT;
  if (device->mig_mode == kMigUnsupported) return NVML_ERROR_NOT_SUPPORTED;
  if (index >= device->mig_max) return NVML_ERROR_INVALID_ARGUMENT;
  if (index >= device->mig_count) return NVML_ERROR_NOT_FOUND;
  *mig = device->migs[index];
  return NVML_SUCCESS;
}

/* Beyond libnvidia-container's 18: what NVIDIA's toolkit (go-nvml) calls on MIG roots. */
NVML_EXPORT nvmlReturn_t nvmlDeviceIsMigDeviceHandle(nvmlDevice_t device, unsigned int *is_mig) {
  nvmlReturn_t r = check(device);
  if (r != NVML_SUCCESS) return r;
  if (is_mig == NULL) return NVML_ERROR_INVALID_ARGUMENT;
  *is_mig = device->is_mig ? 1 : 0;
  return NVML_SUCCESS;
}

NVML_EXPORT nvmlReturn_t nvmlDeviceGetGpuInstanceId(nvmlDevice_t device, unsigned int *id) {
  nvmlReturn_t r = check(device);
  if (r != NVML_SUCCESS) return r;
  if (id == NULL) return NVML_ERROR_INVALID_ARGUMENT;
  if (!device->is_mig) return NVML_ERROR_NOT_SUPPORTED;
  *id = device->gi;
  return NVML_SUCCESS;
}

NVML_EXPORT nvmlReturn_t nvmlDeviceGetComputeInstanceId(nvmlDevice_t device, unsigned int *id) {
  nvmlReturn_t r = check(device);
  if (r != NVML_SUCCESS) return r;
  if (id == NULL) return NVML_ERROR_INVALID_ARGUMENT;
  if (!device->is_mig) return NVML_ERROR_NOT_SUPPORTED;
  *id = device->ci;
  return NVML_SUCCESS;
}
