/* Mock nvidia-smi: loads libnvidia-ml.so.1 through the normal loader search (so inside a
 * container it finds the injected library through the container's ld.so.cache) and prints the
 * GPUs it sees. Depends on libc only: it must run in a busybox rootfs that has no libstdc++.
 *
 *   nvidia-smi          a short table: versions, then one row per GPU and per MIG device
 *   nvidia-smi -L       "GPU <i>: <name> (UUID: <uuid>)" and "  MIG <profile> Device <j>: ..."
 *   nvidia-smi --version */
#include <dlfcn.h>
#include <stdio.h>
#include <string.h>

#include "nvml_types.h"

struct Nvml {
  nvmlReturn_t (*init)(void);
  nvmlReturn_t (*shutdown)(void);
  const char *(*error_string)(nvmlReturn_t);
  nvmlReturn_t (*driver_version)(char *, unsigned);
  nvmlReturn_t (*cuda_version)(int *);
  nvmlReturn_t (*count)(unsigned *);
  nvmlReturn_t (*handle)(unsigned, nvmlDevice_t *);
  nvmlReturn_t (*name)(nvmlDevice_t, char *, unsigned);
  nvmlReturn_t (*uuid)(nvmlDevice_t, char *, unsigned);
  nvmlReturn_t (*pci)(nvmlDevice_t, nvmlPciInfo_t *);
  nvmlReturn_t (*mig_mode)(nvmlDevice_t, unsigned *, unsigned *);
  nvmlReturn_t (*mig_handle)(nvmlDevice_t, unsigned, nvmlDevice_t *);
  nvmlReturn_t (*gi)(nvmlDevice_t, unsigned *);
  nvmlReturn_t (*ci)(nvmlDevice_t, unsigned *);
};

static int load(struct Nvml *n) {
  void *lib = dlopen("libnvidia-ml.so.1", RTLD_NOW);
  if (lib == NULL) return -1;
    /* dlsym returns void*; POSIX guarantees the conversion to a function pointer works. */
#define SYM(field, name) *(void **)(&n->field) = dlsym(lib, name)
  SYM(init, "nvmlInit_v2");
  SYM(shutdown, "nvmlShutdown");
  SYM(error_string, "nvmlErrorString");
  SYM(driver_version, "nvmlSystemGetDriverVersion");
  SYM(cuda_version, "nvmlSystemGetCudaDriverVersion");
  SYM(count, "nvmlDeviceGetCount_v2");
  SYM(handle, "nvmlDeviceGetHandleByIndex_v2");
  SYM(name, "nvmlDeviceGetName");
  SYM(uuid, "nvmlDeviceGetUUID");
  SYM(pci, "nvmlDeviceGetPciInfo");
  SYM(mig_mode, "nvmlDeviceGetMigMode");
  SYM(mig_handle, "nvmlDeviceGetMigDeviceHandleByIndex");
  SYM(gi, "nvmlDeviceGetGpuInstanceId");
  SYM(ci, "nvmlDeviceGetComputeInstanceId");
#undef SYM
  void **fields = (void **)n;
  for (size_t i = 0; i < sizeof *n / sizeof(void *); i++) {
    if (fields[i] == NULL) return -2;
  }
  return 0;
}

/* "NVIDIA H100 80GB HBM3 MIG 1g.10gb" -> "1g.10gb" */
static const char *mig_profile(const char *name) {
  const char *p = strstr(name, " MIG ");
  return p ? p + 5 : name;
}

static const char *mig_mode_text(struct Nvml *n, nvmlDevice_t gpu) {
  unsigned current = 0, pending = 0;
  if (n->mig_mode(gpu, &current, &pending) != NVML_SUCCESS) return "N/A";
  return current == NVML_DEVICE_MIG_ENABLE ? "Enabled" : "Disabled";
}

static unsigned mig_devices(struct Nvml *n, nvmlDevice_t gpu, nvmlDevice_t *out, unsigned max) {
  unsigned current = 0, pending = 0, count = 0;
  if (n->mig_mode(gpu, &current, &pending) != NVML_SUCCESS || current != NVML_DEVICE_MIG_ENABLE) {
    return 0;
  }
  while (count < max && n->mig_handle(gpu, count, &out[count]) == NVML_SUCCESS) count++;
  return count;
}

static void list_gpus(struct Nvml *n, unsigned count) {
  for (unsigned i = 0; i < count; i++) {
    nvmlDevice_t gpu;
    char name[NVML_DEVICE_NAME_V2_BUFFER_SIZE] = "", uuid[NVML_DEVICE_UUID_V2_BUFFER_SIZE] = "";
    if (n->handle(i, &gpu) != NVML_SUCCESS) continue;
    n->name(gpu, name, sizeof name);
    n->uuid(gpu, uuid, sizeof uuid);
    printf("GPU %u: %s (UUID: %s)\n", i, name, uuid);
    nvmlDevice_t migs[8];
    unsigned mig_count = mig_devices(n, gpu, migs, 8);
    for (unsigned m = 0; m < mig_count; m++) {
      n->name(migs[m], name, sizeof name);
      n->uuid(migs[m], uuid, sizeof uuid);
      printf("  MIG %-12s Device %2u: (UUID: %s)\n", mig_profile(name), m, uuid);
    }
  }
}

static void print_table(struct Nvml *n, unsigned count, const char *driver, int cuda) {
  const char *rule = "+-----------------------------------------+------------------+----------+";
  printf("%s\n", rule);
  char versions[128];
  snprintf(versions, sizeof versions, "NVIDIA-SMI %s  Driver Version: %s  CUDA Version: %d.%d",
           driver, driver, cuda / 1000, (cuda % 100) / 10);
  printf("| %-69.69s |\n", versions);
  printf("%s\n", rule);
  printf("| GPU  Name                               | Bus-Id           | MIG M.   |\n");
  printf("%s\n", rule);
  for (unsigned i = 0; i < count; i++) {
    nvmlDevice_t gpu;
    char name[NVML_DEVICE_NAME_V2_BUFFER_SIZE] = "";
    nvmlPciInfo_t pci;
    if (n->handle(i, &gpu) != NVML_SUCCESS || n->pci(gpu, &pci) != NVML_SUCCESS) continue;
    n->name(gpu, name, sizeof name);
    printf("| %3u  %-34.34s | %-16s | %-8s |\n", i, name, pci.busId, mig_mode_text(n, gpu));
  }
  printf("%s\n", rule);
  int header = 0;
  for (unsigned i = 0; i < count; i++) {
    nvmlDevice_t gpu, migs[8];
    if (n->handle(i, &gpu) != NVML_SUCCESS) continue;
    unsigned mig_count = mig_devices(n, gpu, migs, 8);
    for (unsigned m = 0; m < mig_count; m++) {
      char name[NVML_DEVICE_NAME_V2_BUFFER_SIZE] = "";
      unsigned gi = 0, ci = 0;
      n->name(migs[m], name, sizeof name);
      n->gi(migs[m], &gi);
      n->ci(migs[m], &ci);
      if (!header) {
        printf("| MIG devices: GPU  GI  CI  MIG Dev  Profile                            |\n");
        header = 1;
      }
      printf("|              %3u %3u %3u  %7u  %-35.35s|\n", i, gi, ci, m, mig_profile(name));
    }
  }
  if (header) printf("%s\n", rule);
}

int main(int argc, char **argv) {
  int list = 0, version = 0;
  for (int i = 1; i < argc; i++) {
    if (strcmp(argv[i], "-L") == 0 || strcmp(argv[i], "--list-gpus") == 0) {
      list = 1;
    } else if (strcmp(argv[i], "--version") == 0) {
      version = 1;
    } else {
      fprintf(stderr,
              "Invalid combination of input arguments. Please run 'nvidia-smi -h' for help.\n");
      return 2;
    }
  }
  struct Nvml n;
  memset(&n, 0, sizeof n);
  int loaded = load(&n);
  if (loaded != 0) {
    printf(
        "NVIDIA-SMI couldn't find libnvidia-ml.so library in your system. Please make sure that "
        "the NVIDIA Display Driver is properly installed and present in your system.\n"
        "Please also try adding directory that contains libnvidia-ml.so to your system PATH.\n");
    return 12;
  }
  nvmlReturn_t r = n.init();
  if (r == NVML_ERROR_DRIVER_NOT_LOADED) {
    printf(
        "NVIDIA-SMI has failed because it couldn't communicate with the NVIDIA driver. Make sure "
        "that the latest NVIDIA driver is installed and running.\n\n");
    return 9;
  }
  if (r != NVML_SUCCESS) {
    printf("Failed to initialize NVML: %s\n", n.error_string(r));
    return r > 255 ? 255 : (int)r;
  }
  char driver[NVML_SYSTEM_DRIVER_VERSION_BUFFER_SIZE] = "";
  int cuda = 0;
  unsigned count = 0;
  n.driver_version(driver, sizeof driver);
  n.cuda_version(&cuda);
  n.count(&count);
  if (version) {
    printf(
        "NVIDIA-SMI version  : %s (nvct mock)\nDRIVER version      : %s\nCUDA Version        : "
        "%d.%d\n",
        driver, driver, cuda / 1000, (cuda % 100) / 10);
  } else if (list) {
    if (count == 0) printf("No devices found.\n");
    list_gpus(&n, count);
  } else {
    print_table(&n, count, driver, cuda);
  }
  n.shutdown();
  return list && count == 0 ? 6 : 0;
}
