/* SPDX-License-Identifier: GPL-2.0-or-later */
/* Who drove a NAPI poll (issue 44, part 6): the sources napi_poll.bpf.c tells apart and the
 * counters it keeps per NAPI, shared with poll_attribution.cpp. Plain C: the BPF program
 * includes it too. */
#ifndef RINGLAB_POLL_SOURCES_H
#define RINGLAB_POLL_SOURCES_H

enum rl_poll_source {
    RL_POLL_SOFTIRQ = 0,  /* NET_RX softirq after an interrupt or a kick (napi_schedule) */
    RL_POLL_WATCHDOG = 1, /* NET_RX softirq scheduled by the NAPI's timer: gro_flush_timeout,
                             irq_suspend_timeout */
    RL_POLL_BUSY = 2,     /* an application's busy poll (socket, epoll) */
    RL_POLL_KTHREAD = 3,  /* the NAPI's kthread (threaded NAPI) */
    RL_POLL_OTHER = 4,    /* none of those (netpoll) */
    RL_POLL_SOURCES = 5
};

/* Per NAPI id and CPU (a per-CPU hash map): running totals since the program was loaded. */
struct rl_poll_counts {
    unsigned long long polls[RL_POLL_SOURCES];
    unsigned long long packets[RL_POLL_SOURCES];
};

/* Per CPU (a per-CPU array of one): the time this CPU spent in the NET_RX softirq, every
 * netdev's, and how many times it ran, since the program was loaded. */
struct rl_softirq_time {
    unsigned long long ns;
    unsigned long long runs;
};

#endif
