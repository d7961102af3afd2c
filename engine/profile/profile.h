// SPDX-License-Identifier: GPL-2.0-or-later
// Profiles: JSON files naming a device and values for tunables. Data, not code.
#pragma once

#include <cstddef>
#include <filesystem>
#include <string>
#include <vector>

#include "engine/common/status.h"
#include "engine/datapath/tunables.h"

namespace ringlab {

struct Profile {
    std::string name;
    std::string description;
    std::string device = "sim";
    std::filesystem::path file;
    std::vector<std::pair<std::string, std::string>> values; // in file order
};

// A profile is a few hundred bytes; a larger file is refused unread.
inline constexpr std::size_t kMaxProfileBytes = 1024 * 1024;

// Parses a profile file (a regular file of at most kMaxProfileBytes). Refused with a message
// naming the file, the tunable and the reason; every value is checked against the registry.
Result<Profile> loadProfile(const std::filesystem::path &file);
Result<Profile> parseProfile(const std::string &text, const std::filesystem::path &file);

// Where profiles are looked up by name, in order: $RINGLAB_PROFILE_DIR, the build tree, the
// installed data directory.
std::vector<std::filesystem::path> profileDirs();
// A name ("default") or a path ("./my.json"); refused, naming the profiles there are, when
// not found.
Result<std::filesystem::path> findProfile(const std::string &nameOrPath);
// The profiles of the first directory that has any; files that do not load are left out,
// each with its error in `problems` when given.
std::vector<Profile> listProfiles(std::vector<std::string> *problems = nullptr);

} // namespace ringlab
