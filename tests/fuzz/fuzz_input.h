#pragma once

// Shared by the fuzz targets: every target is `LLVMFuzzerTestOneInput`, built with libFuzzer in
// the fuzz preset and with replay_main.cpp (replaying seeds and crash fixtures) elsewhere.

#include <cstddef>
#include <cstdint>
#include <string>

namespace portolan::fuzz {

// The folder holding guides/, schemas/, targets/: the source tree's, since fuzz binaries are
// never installed.
inline const char* resources()
{
    return PORTOLAN_FUZZ_RESOURCES;
}

} // namespace portolan::fuzz
