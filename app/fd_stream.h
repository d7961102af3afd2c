// SPDX-License-Identifier: GPL-2.0-or-later
// An output stream over a file descriptor that remembers why its first write failed (ENOSPC
// on a full disk or /dev/full, EPIPE, EIO), so that an export can say so and fail.
#pragma once

#include <array>
#include <ostream>
#include <streambuf>

namespace ringlab {

class FdStreamBuf final : public std::streambuf {
  public:
    explicit FdStreamBuf(int fd);
    // The errno of the first write that failed; 0 while every write has succeeded.
    int error() const { return error_; }

  protected:
    int_type overflow(int_type c) override;
    int sync() override;

  private:
    bool drain();
    int fd_;
    int error_ = 0;
    std::array<char, 65536> buf_{};
};

class FdOStream final : public std::ostream {
  public:
    explicit FdOStream(int fd) : std::ostream(nullptr), buf_(fd) { rdbuf(&buf_); }
    int error() const { return buf_.error(); }

  private:
    FdStreamBuf buf_;
};

} // namespace ringlab
