// SPDX-License-Identifier: GPL-2.0-or-later
// A fuzz target is a function of one input. Built with -DRINGLAB_LIBFUZZER it is also
// libFuzzer's entry point (tests/fuzz, in the dev-asan tree); in the ordinary build,
// tst_fuzz_corpus runs every committed input through it, so each crash once found stays a
// regression test.
#pragma once

#include <cstddef>
#include <cstdint>
#include <string_view>

namespace ringlab::fuzz {

using Target = int (*)(const std::uint8_t *data, std::size_t size);

struct TargetInfo {
    std::string_view name; // the corpus folder: tests/fuzz/corpus/<name>
    Target run;
};

int profile(const std::uint8_t *data, std::size_t size);
int tunableValues(const std::uint8_t *data, std::size_t size);
int console(const std::uint8_t *data, std::size_t size);
int deviceSpec(const std::uint8_t *data, std::size_t size);
int database(const std::uint8_t *data, std::size_t size);
int sweepSpec(const std::uint8_t *data, std::size_t size);
int httpRequest(const std::uint8_t *data, std::size_t size);

inline constexpr TargetInfo kTargets[] = {
    {"profile", profile},   {"tunable_values", tunableValues},
    {"console", console},   {"device_spec", deviceSpec},
    {"database", database}, {"sweep_spec", sweepSpec},
    {"http_request", httpRequest},
};

inline std::string_view text(const std::uint8_t *data, std::size_t size)
{
    return {reinterpret_cast<const char *>(data), size};
}

} // namespace ringlab::fuzz

#ifdef RINGLAB_LIBFUZZER
#define RINGLAB_FUZZ_ENTRY(fn)                                                                     \
    extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t *data, std::size_t size)              \
    {                                                                                              \
        return ringlab::fuzz::fn(data, size);                                                      \
    }
#else
#define RINGLAB_FUZZ_ENTRY(fn)
#endif
