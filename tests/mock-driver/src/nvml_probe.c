/* nvct-mock-nvml-probe [LIBRARY]: test tool that loads an NVML library (default
 * "libnvidia-ml.so.1" through the loader search) and prints every value and return code of the
 * 18 entry points as "key=value" lines, including the error paths (small buffers, bad indices,
 * calls before nvmlInit), so tests can compare the mock's C ABI behaviour as text. */
#include <dlfcn.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "nvml_types.h"

typedef nvmlReturn_t (*VoidFn)(void);
typedef nvmlReturn_t (*StrFn)(char *, unsigned);
typedef nvmlReturn_t (*IntFn)(int *);
typedef nvmlReturn_t (*UintFn)(unsigned *);
typedef nvmlReturn_t (*IndexFn)(unsigned, nvmlDevice_t *);
typedef nvmlReturn_t (*DevStrFn)(nvmlDevice_t, char *, unsigned);
typedef nvmlReturn_t (*DevUintFn)(nvmlDevice_t, unsigned *);
typedef nvmlReturn_t (*DevUint2Fn)(nvmlDevice_t, unsigned *, unsigned *);
typedef nvmlReturn_t (*DevInt2Fn)(nvmlDevice_t, int *, int *);
typedef nvmlReturn_t (*DevPciFn)(nvmlDevice_t, nvmlPciInfo_t *);
typedef nvmlReturn_t (*DevBrandFn)(nvmlDevice_t, nvmlBrandType_t *);
typedef nvmlReturn_t (*DevIndexFn)(nvmlDevice_t, unsigned, nvmlDevice_t *);
typedef const char *(*ErrFn)(nvmlReturn_t);

static void *g_lib;

static void *sym(const char *name) {
  void *p = dlsym(g_lib, name);
  if (p == NULL) {
    printf("missing_symbol=%s\n", name);
    exit(3);
  }
  return p;
}

#define FN(type, name) ((type)sym(name))

static void print_device(const char *prefix, nvmlDevice_t d) {
  char buf[128];
  unsigned u = 0, v = 0;
  int a = 0, b = 0;
  nvmlReturn_t r;
  r = FN(DevStrFn, "nvmlDeviceGetName")(d, buf, NVML_DEVICE_NAME_V2_BUFFER_SIZE);
  printf("%s.name=%s\n", prefix, r == NVML_SUCCESS ? buf : "(error)");
  r = FN(DevStrFn, "nvmlDeviceGetUUID")(d, buf, NVML_DEVICE_UUID_V2_BUFFER_SIZE);
  printf("%s.uuid=%s\n", prefix, r == NVML_SUCCESS ? buf : "(error)");
  r = FN(DevUintFn, "nvmlDeviceGetMinorNumber")(d, &u);
  if (r == NVML_SUCCESS)
    printf("%s.minor=%u\n", prefix, u);
  else
    printf("%s.minor.rc=%d\n", prefix, r);
  nvmlPciInfo_t pci;
  memset(&pci, 0x55, sizeof pci);
  r = FN(DevPciFn, "nvmlDeviceGetPciInfo")(d, &pci);
  printf("%s.pci.rc=%d\n", prefix, r);
  printf("%s.pci=%s %s %x:%x:%x 0x%08x 0x%08x\n", prefix, pci.busId, pci.busIdLegacy, pci.domain,
         pci.bus, pci.device, pci.pciDeviceId, pci.pciSubSystemId);
  nvmlBrandType_t brand = NVML_BRAND_COUNT;
  r = FN(DevBrandFn, "nvmlDeviceGetBrand")(d, &brand);
  printf("%s.brand=%d rc=%d\n", prefix, (int)brand, r);
  r = FN(DevInt2Fn, "nvmlDeviceGetCudaComputeCapability")(d, &a, &b);
  printf("%s.cc=%d.%d rc=%d\n", prefix, a, b, r);
  r = FN(DevUint2Fn, "nvmlDeviceGetMigMode")(d, &u, &v);
  if (r == NVML_SUCCESS)
    printf("%s.mig_mode=%u/%u\n", prefix, u, v);
  else
    printf("%s.mig_mode.rc=%d\n", prefix, r);
  r = FN(DevUintFn, "nvmlDeviceGetMaxMigDeviceCount")(d, &u);
  if (r == NVML_SUCCESS)
    printf("%s.mig_max=%u\n", prefix, u);
  else
    printf("%s.mig_max.rc=%d\n", prefix, r);
  r = FN(DevUintFn, "nvmlDeviceGetGpuInstanceId")(d, &u);
  if (r == NVML_SUCCESS)
    printf("%s.gi=%u\n", prefix, u);
  else
    printf("%s.gi.rc=%d\n", prefix, r);
  r = FN(DevUintFn, "nvmlDeviceGetComputeInstanceId")(d, &u);
  if (r == NVML_SUCCESS)
    printf("%s.ci=%u\n", prefix, u);
  else
    printf("%s.ci.rc=%d\n", prefix, r);
}

int main(int argc, char **argv) {
  g_lib = dlopen(argc > 1 ? argv[1] : "libnvidia-ml.so.1", RTLD_NOW);
  if (g_lib == NULL) {
    printf("dlopen=%s\n", dlerror());
    return 1;
  }
  unsigned count = 0;
  char buf[128];
  int cuda = 0;
  ErrFn error_string = FN(ErrFn, "nvmlErrorString");
  printf("before_init.count.rc=%d\n", FN(UintFn, "nvmlDeviceGetCount_v2")(&count));
  printf("before_init.shutdown.rc=%d\n", FN(VoidFn, "nvmlShutdown")());
  nvmlReturn_t r = FN(VoidFn, "nvmlInit_v2")();
  printf("init.rc=%d (%s)\n", r, error_string(r));
  if (r != NVML_SUCCESS) return 2;
  r = FN(StrFn, "nvmlSystemGetDriverVersion")(buf, NVML_SYSTEM_DRIVER_VERSION_BUFFER_SIZE);
  printf("driver_version=%s rc=%d\n", r == NVML_SUCCESS ? buf : "", r);
  printf("driver_version.small.rc=%d\n", FN(StrFn, "nvmlSystemGetDriverVersion")(buf, 4));
  r = FN(IntFn, "nvmlSystemGetCudaDriverVersion")(&cuda);
  printf("cuda_version=%d rc=%d\n", cuda, r);
  r = FN(UintFn, "nvmlDeviceGetCount_v2")(&count);
  printf("count=%u rc=%d\n", count, r);
  nvmlDevice_t d;
  printf("handle.out_of_range.rc=%d\n", FN(IndexFn, "nvmlDeviceGetHandleByIndex_v2")(count, &d));
  for (unsigned i = 0; i < count; i++) {
    char prefix[32];
    snprintf(prefix, sizeof prefix, "gpu%u", i);
    if (FN(IndexFn, "nvmlDeviceGetHandleByIndex_v2")(i, &d) != NVML_SUCCESS) continue;
    print_device(prefix, d);
    printf("%s.uuid.small.rc=%d\n", prefix, FN(DevStrFn, "nvmlDeviceGetUUID")(d, buf, 8));
    printf("%s.name.small.rc=%d\n", prefix, FN(DevStrFn, "nvmlDeviceGetName")(d, buf, 8));
    unsigned m = 0;
    for (;; m++) {
      nvmlDevice_t mig;
      r = FN(DevIndexFn, "nvmlDeviceGetMigDeviceHandleByIndex")(d, m, &mig);
      if (r != NVML_SUCCESS) break;
      snprintf(prefix, sizeof prefix, "gpu%u.mig%u", i, m);
      print_device(prefix, mig);
    }
    printf("gpu%u.mig_end=%u rc=%d\n", i, m, r);
  }
  printf("error_string.18=%s\n", error_string(NVML_ERROR_LIB_RM_VERSION_MISMATCH));
  printf("error_string.9=%s\n", error_string(NVML_ERROR_DRIVER_NOT_LOADED));
  printf("shutdown.rc=%d\n", FN(VoidFn, "nvmlShutdown")());
  printf("after_shutdown.count.rc=%d\n", FN(UintFn, "nvmlDeviceGetCount_v2")(&count));
  return 0;
}
