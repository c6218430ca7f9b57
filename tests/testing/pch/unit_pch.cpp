// Compiled once to build the precompiled header that every unit test executable reuses
// (nvct_unit_pch in cmake/NvctModule.cmake); GoogleTest's gtest_main gives the program its main.
