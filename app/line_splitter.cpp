// SPDX-License-Identifier: GPL-2.0-or-later
#include "app/line_splitter.h"

namespace ringlab {

void LineSplitter::feed(std::string_view chunk, std::vector<std::string> &lines,
                        std::vector<std::string> &errors)
{
    while (!chunk.empty()) {
        const auto nl = chunk.find('\n');
        const std::string_view part = chunk.substr(0, nl);
        if (!discarding_) {
            if (pending_.size() + part.size() > kMaxLine) {
                errors.push_back("input line longer than " + std::to_string(kMaxLine) +
                                 " bytes, ignored");
                pending_.clear();
                discarding_ = true;
            } else {
                pending_.append(part);
            }
        }
        if (nl == std::string_view::npos) return;
        if (!discarding_) lines.push_back(std::move(pending_));
        pending_.clear();
        discarding_ = false;
        chunk.remove_prefix(nl + 1);
    }
}

void LineSplitter::finish(std::vector<std::string> &lines)
{
    if (!discarding_ && !pending_.empty()) lines.push_back(std::move(pending_));
    pending_.clear();
    discarding_ = false;
}

} // namespace ringlab
