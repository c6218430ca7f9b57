/* What the mock NVML knows about the driver: everything is read at nvmlInit_v2 time from files
 * under the driver root the library was loaded from (see README.md for the file formats). */
#ifndef NVCT_MOCK_DRIVER_H
#define NVCT_MOCK_DRIVER_H

#include <limits.h>

#include "nvml_types.h"

enum { kMockMaxGpus = 64, kMockMaxMigPerGpu = 8 };

enum MockMigMode { kMigUnsupported = -1, kMigDisabled = 0, kMigEnabled = 1 };

struct nvmlDevice_st {
  int is_mig;
  struct nvmlDevice_st *parent; /* MIG devices only */
  unsigned minor;
  char name[NVML_DEVICE_NAME_V2_BUFFER_SIZE];
  char uuid[NVML_DEVICE_UUID_V2_BUFFER_SIZE];
  int brand;
  int cc_major, cc_minor;
  unsigned domain, bus, device;
  unsigned pci_device_id, pci_subsystem_id;
  int mig_mode;
  unsigned mig_max;
  unsigned gi, ci; /* MIG devices only */
  struct nvmlDevice_st *migs[kMockMaxMigPerGpu];
  unsigned mig_count;
};

struct MockDriver {
  char root[PATH_MAX]; /* "" for "/", else without trailing slash */
  char driver_version[NVML_SYSTEM_DRIVER_VERSION_BUFFER_SIZE];
  struct nvmlDevice_st gpus[kMockMaxGpus];
  unsigned gpu_count;
  struct nvmlDevice_st migs[kMockMaxGpus * kMockMaxMigPerGpu];
  unsigned mig_total;
};

/* Fills *driver from the files under its root; returns the nvmlInit_v2 result. */
nvmlReturn_t mock_driver_load(struct MockDriver *driver);

/* Finds the driver root from the location of this library (dladdr), by stripping its library
 * directory; writes "" for "/". Returns 0 on success. */
int mock_find_root(char *out, size_t size);

/* Reads <root>/<rel> into buf (NUL-terminated). Returns 0, or -1 with errno set. */
int mock_read_file(const char *root, const char *rel, char *buf, size_t size);

/* Joins <root>/<rel> into out. Returns 0, or -1 if it does not fit. */
int mock_path(char *out, size_t size, const char *root, const char *rel);

/* Copies the trimmed value of the first "<key>:" line of text into out. Returns 0 if found. */
int mock_field(const char *text, const char *key, char *out, size_t size);

/* The facts the driver-root builder patches into the installed library (build_facts.c). */
const char *mock_library_driver_version(void); /* NULL when not patched */
int mock_cuda_version(unsigned *out);          /* 0 when patched */

/* Brand name (request.md §10.4 spelling, case-insensitive) or number to nvmlBrandType_t. */
int mock_brand_from_name(const char *name);

#endif
