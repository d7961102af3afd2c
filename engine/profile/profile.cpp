// SPDX-License-Identifier: GPL-2.0-or-later
#include "engine/profile/profile.h"

#include <algorithm>
#include <cstdlib>
#include <nlohmann/json.hpp>
#include <optional>

#include "engine/common/regular_file.h"
#include "engine/common/utf8_text.h"
#include "engine/profile/strict_json.h"
#include "engine/version.h"

namespace ringlab {

namespace fs = std::filesystem;
using nlohmann::json;

namespace {
constexpr int kMaxDepth = 16;

// Deepest nesting of arrays and objects, strings skipped; stops counting past the limit.
int nestingDepth(const std::string &text)
{
    int depth = 0, deepest = 0;
    bool inString = false, escaped = false;
    for (char c : text) {
        if (inString) {
            if (escaped)
                escaped = false;
            else if (c == '\\')
                escaped = true;
            else if (c == '"')
                inString = false;
        } else if (c == '"') {
            inString = true;
        } else if (c == '{' || c == '[') {
            deepest = std::max(deepest, ++depth);
            if (deepest > kMaxDepth) break;
        } else if (c == '}' || c == ']') {
            --depth;
        }
    }
    return deepest;
}

std::string shown(const json &v)
{
    return v.dump(-1, ' ', false, json::error_handler_t::replace);
}
} // namespace

Result<Profile> parseProfile(const std::string &text, const fs::path &file)
{
    const std::string where = "profile " + file.string();
    // A profile is flat: refuse deep nesting before the parser (and every later walk of the
    // document) recurses into it.
    if (const int depth = nestingDepth(text); depth > kMaxDepth)
        return Status::refused(
            where + ": nested more than " + std::to_string(kMaxDepth) +
            " levels deep (a profile is an object with \"params\" holding plain values)");
    json doc;
    if (std::string why; !parseStrictJson(text, doc, why))
        return Status::refused(where + ": not valid JSON: " + utf8OrEscaped(why));
    if (!doc.is_object())
        return Status::refused(where + ": the top level must be an object with \"params\"");
    Profile p;
    p.file = file;
    p.name = file.stem().string();
    for (const auto &[key, value] : doc.items()) {
        if (key == "name" && value.is_string()) {
            p.name = value.get<std::string>();
        } else if (key == "description" && value.is_string()) {
            p.description = value.get<std::string>();
        } else if (key == "device" && value.is_string()) {
            p.device = value.get<std::string>();
        } else if (key == "params" && value.is_object()) {
            for (const auto &[name, v] : value.items()) {
                std::string textValue;
                if (v.is_string())
                    textValue = v.get<std::string>();
                else if (v.is_boolean())
                    textValue = v.get<bool>() ? "true" : "false";
                else if (v.is_number_integer())
                    textValue = std::to_string(v.get<long long>());
                else if (v.is_number())
                    textValue = shown(v);
                else
                    return Status::refused(where + ": " + utf8OrEscaped(name) + ": value " +
                                           shown(v) + " must be a number, a string or a boolean");
                p.values.emplace_back(name, textValue);
            }
        } else {
            return Status::refused(where + ": unknown or malformed key \"" + utf8OrEscaped(key) +
                                   "\" (allowed: name, description, device, params)");
        }
    }
    // Which devices exist is the device registry's to say (drivers/), when the run starts.
    if (p.device.empty())
        return Status::refused(where + ": device \"\" is empty (see 'ringlab-engine devices')");
    // Every value through the registry, cross-field rules included.
    ParamSet check;
    if (auto st = check.set(p.values); !st.ok()) return st.within(where + ": ");
    return p;
}

Result<Profile> loadProfile(const fs::path &file)
{
    std::string text;
    if (auto st = readRegularFile(file, kMaxProfileBytes, text); !st.ok())
        return st.within("profile " + file.string() + ": ");
    return parseProfile(text, file);
}

std::vector<fs::path> profileDirs()
{
    std::vector<fs::path> dirs;
    if (const char *env = std::getenv("RINGLAB_PROFILE_DIR"); env && *env) dirs.emplace_back(env);
    std::error_code ec;
    const fs::path exe = fs::read_symlink("/proc/self/exe", ec);
    if (!ec) {
        dirs.push_back(exe.parent_path() / "../share/ringlab/profiles");
        dirs.push_back(exe.parent_path() / "../resources/profiles"); // build tree
    }
    dirs.emplace_back(RINGLAB_SOURCE_PROFILE_DIR);
    dirs.emplace_back(RINGLAB_INSTALL_PROFILE_DIR);
    return dirs;
}

Result<fs::path> findProfile(const std::string &nameOrPath)
{
    std::error_code ec;
    // A FIFO or a device under a profile's name is refused at once, with what it is.
    const auto special = [](const fs::path &f) -> std::optional<Status> {
        const std::string kind = specialFileKind(f);
        if (kind.empty()) return std::nullopt;
        return Status::refused("profile " + f.string() + ": is " + kind + ", not a regular file");
    };
    if (nameOrPath.find('/') != std::string::npos || nameOrPath.ends_with(".json")) {
        if (fs::is_regular_file(nameOrPath, ec)) return fs::path(nameOrPath);
        if (auto st = special(nameOrPath)) return *st;
        return Status::refused("profile " + nameOrPath + ": no such file");
    }
    for (const auto &dir : profileDirs()) {
        const fs::path f = dir / (nameOrPath + ".json");
        if (fs::is_regular_file(f, ec)) return fs::weakly_canonical(f, ec);
        if (auto st = special(f)) return *st;
    }
    std::string names;
    for (const auto &p : listProfiles())
        names += (names.empty() ? "" : ", ") + p.name;
    return Status::refused("profile \"" + nameOrPath + "\" not found (available: " +
                           (names.empty() ? "none" : names) + "; or give a path to a .json file)");
}

std::vector<Profile> listProfiles(std::vector<std::string> *problems)
{
    std::vector<Profile> out;
    std::error_code ec;
    for (const auto &dir : profileDirs()) {
        if (!fs::is_directory(dir, ec)) continue;
        std::vector<fs::path> files;
        for (const auto &e : fs::directory_iterator(dir, ec))
            if (e.path().extension() == ".json") files.push_back(e.path());
        std::sort(files.begin(), files.end());
        for (const auto &f : files) {
            auto p = loadProfile(f);
            if (p.ok())
                out.push_back(std::move(p).value());
            else if (problems)
                problems->push_back(p.error());
        }
        if (!out.empty()) break; // the first directory that has profiles wins
    }
    return out;
}

} // namespace ringlab
