// SPDX-License-Identifier: GPL-2.0-or-later
#include "app/stop_signals.h"

#include <signal.h>
#include <sys/signalfd.h>

namespace ringlab {

int takeStopSignals()
{
    sigset_t mask;
    sigemptyset(&mask);
    sigaddset(&mask, SIGINT);
    sigaddset(&mask, SIGTERM);
    sigaddset(&mask, SIGHUP);
    pthread_sigmask(SIG_BLOCK, &mask, nullptr);
    return signalfd(-1, &mask, SFD_CLOEXEC);
}

} // namespace ringlab
