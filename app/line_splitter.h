// SPDX-License-Identifier: GPL-2.0-or-later
// Cuts standard input into command lines, whatever the chunks it arrives in. A line longer
// than kMaxLine is dropped whole, with a message, however long it goes on.
#pragma once

#include <string>
#include <string_view>
#include <vector>

namespace ringlab {

class LineSplitter {
  public:
    static constexpr std::size_t kMaxLine = 64 * 1024; // bytes, without the newline

    // Appends the lines that `chunk` completes to `lines`, and a message per dropped line to
    // `errors`.
    void feed(std::string_view chunk, std::vector<std::string> &lines,
              std::vector<std::string> &errors);
    // End of input: a last line without a newline.
    void finish(std::vector<std::string> &lines);

  private:
    std::string pending_;
    bool discarding_ = false; // inside a line already found too long
};

} // namespace ringlab
