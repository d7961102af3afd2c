// SPDX-License-Identifier: GPL-2.0-or-later
#include "app/fd_stream.h"

#include <unistd.h>

#include <cerrno>

namespace ringlab {

FdStreamBuf::FdStreamBuf(int fd) : fd_(fd)
{
    setp(buf_.data(), buf_.data() + buf_.size());
}

bool FdStreamBuf::drain()
{
    const char *p = pbase();
    while (p < pptr()) {
        const ssize_t n = ::write(fd_, p, static_cast<std::size_t>(pptr() - p));
        if (n < 0 && errno == EINTR) continue;
        if (n <= 0) {
            if (!error_) error_ = n < 0 ? errno : EIO;
            return false;
        }
        p += n;
    }
    setp(buf_.data(), buf_.data() + buf_.size());
    return true;
}

FdStreamBuf::int_type FdStreamBuf::overflow(int_type c)
{
    if (error_ || !drain()) return traits_type::eof();
    if (!traits_type::eq_int_type(c, traits_type::eof())) {
        *pptr() = traits_type::to_char_type(c);
        pbump(1);
    }
    return traits_type::not_eof(c);
}

int FdStreamBuf::sync()
{
    return !error_ && drain() ? 0 : -1;
}

} // namespace ringlab
