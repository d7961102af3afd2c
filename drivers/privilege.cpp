// SPDX-License-Identifier: GPL-2.0-or-later
#include "drivers/privilege.h"

#include <linux/capability.h>
#include <sys/syscall.h>
#include <unistd.h>

namespace ringlab {

bool mayOpenRawPorts()
{
    __user_cap_header_struct header{_LINUX_CAPABILITY_VERSION_3, 0};
    __user_cap_data_struct data[_LINUX_CAPABILITY_U32S_3]{};
    if (syscall(SYS_capget, &header, data) != 0) return geteuid() == 0;
    const auto has = [&](int cap) { return (data[cap / 32].effective >> (cap % 32)) & 1U; };
    return has(CAP_NET_ADMIN) && has(CAP_NET_RAW);
}

} // namespace ringlab
