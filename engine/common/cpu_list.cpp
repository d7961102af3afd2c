// SPDX-License-Identifier: GPL-2.0-or-later
#include "engine/common/cpu_list.h"

#include <algorithm>
#include <charconv>

namespace ringlab {
namespace {

bool readCpu(std::string_view &in, int &cpu)
{
    const auto [end, ec] = std::from_chars(in.data(), in.data() + in.size(), cpu);
    if (ec != std::errc() || cpu < 0 || cpu >= kMaxCpus) return false;
    in.remove_prefix(static_cast<std::size_t>(end - in.data()));
    return true;
}

} // namespace

bool parseCpuList(std::string_view text, std::vector<int> &out)
{
    out.clear();
    if (!text.empty() && text.back() == '\n') text.remove_suffix(1);
    while (!text.empty()) {
        int from = 0, to = 0;
        if (!readCpu(text, from)) return false;
        to = from;
        if (!text.empty() && text.front() == '-') {
            text.remove_prefix(1);
            if (!readCpu(text, to) || to < from) return false;
        }
        for (int c = from; c <= to; ++c)
            out.push_back(c);
        if (text.empty()) break;
        if (text.front() != ',' || text.size() == 1) return false;
        text.remove_prefix(1);
    }
    return true;
}

std::string cpuListText(std::vector<int> cpus)
{
    std::sort(cpus.begin(), cpus.end());
    cpus.erase(std::unique(cpus.begin(), cpus.end()), cpus.end());
    std::string out;
    for (std::size_t i = 0; i < cpus.size();) {
        std::size_t j = i;
        while (j + 1 < cpus.size() && cpus[j + 1] == cpus[j] + 1)
            ++j;
        out += (out.empty() ? "" : ",") + std::to_string(cpus[i]);
        if (j > i) out += "-" + std::to_string(cpus[j]);
        i = j + 1;
    }
    return out;
}

} // namespace ringlab
