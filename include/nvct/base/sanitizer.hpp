#pragma once
// NVCT_ASAN_BUILD: 1 in an AddressSanitizer build (NVCT_SANITIZE, the asan and fuzz presets, the
// hostile table's asan run), with g++ (__SANITIZE_ADDRESS__) or clang (__has_feature). The
// seccomp sandboxes allow the few extra syscalls the ASan runtime makes only then.
#if defined(__SANITIZE_ADDRESS__)
#define NVCT_ASAN_BUILD 1
#elif defined(__has_feature)
#if __has_feature(address_sanitizer)
#define NVCT_ASAN_BUILD 1
#endif
#endif
#ifndef NVCT_ASAN_BUILD
#define NVCT_ASAN_BUILD 0
#endif
