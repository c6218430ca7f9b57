# Compiler options shared by every nvct target, carried by the interface target nvct_options.
add_library(nvct_options INTERFACE)
target_compile_options(nvct_options INTERFACE
  -Wall -Wextra -Wshadow -Wnon-virtual-dtor -Wcast-align -Woverloaded-virtual
  -Wformat=2 -Wimplicit-fallthrough)
target_compile_definitions(nvct_options INTERFACE _GNU_SOURCE)
# One section per function and object, so that the binaries that start once per container
# (the static shim, the hook) can be linked with --gc-sections: the shim's text is a third
# smaller and its peak RSS (file pages faulted in around the code it runs) 0.8 MiB lower.
target_compile_options(nvct_options INTERFACE -ffunction-sections -fdata-sections)
if(NVCT_WERROR)
  target_compile_options(nvct_options INTERFACE -Werror)
endif()
if(NVCT_SANITIZE)
  target_compile_options(nvct_options INTERFACE -fsanitize=address,undefined -fno-omit-frame-pointer
                                                -fno-sanitize-recover=undefined)
  target_link_options(nvct_options INTERFACE -fsanitize=address,undefined)
endif()
# The fuzz preset: coverage instrumentation for libFuzzer in every library (the harnesses link
# with -fsanitize=fuzzer, tests/fuzz/CMakeLists.txt). clang only.
if(NVCT_FUZZ)
  target_compile_options(nvct_options INTERFACE -fsanitize=fuzzer-no-link)
endif()
