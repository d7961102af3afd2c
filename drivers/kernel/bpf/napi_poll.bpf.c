/* SPDX-License-Identifier: GPL-2.0-or-later */
/* Who drove each NAPI poll (issue 44, part 6). On the napi:napi_poll tracepoint, every poll
 * of every NAPI is counted, with the frames it handed up, under the context that ran it:
 *
 *   - inside a NET_RX softirq (irq:softirq_entry/exit with NET_RX, on any task, ksoftirqd
 *     included): the NAPI's timer (napi_watchdog: gro_flush_timeout, irq_suspend_timeout)
 *     if it fired for this NAPI since its last poll (timer:hrtimer_expire_entry), else an
 *     interrupt or a kick;
 *   - on a task named "napi/...": the NAPI's kthread (threaded NAPI, its busy mode too);
 *   - on any other user task: an application's busy poll (socket or epoll), the only
 *     path that polls a NAPI from a process outside a softirq;
 *   - else: other (netpoll, on a kernel thread).
 *
 * Tracepoints only: fentry/fexit need BPF trampolines, which some kernels and VMs refuse.
 * The address of napi_watchdog comes from user space (kallsyms) before load. Kernel
 * structures are read with CO-RE (the few fields named below, relocated against the running
 * kernel's BTF at load), so the object is built once and runs on any kernel with BTF and
 * these tracepoints; where one is missing, loading fails and the engine says so. */
#include <linux/bpf.h> /* first: the types the libbpf headers use */

#include <bpf/bpf_core_read.h>
#include <bpf/bpf_helpers.h>
#include <bpf/bpf_tracing.h>

#include "poll_sources.h"

struct hrtimer {
    void *function;
} __attribute__((preserve_access_index));

struct net_device {
    int ifindex;
} __attribute__((preserve_access_index));

struct napi_struct {
    unsigned long state;
    struct net_device *dev;
    struct hrtimer timer;
    unsigned int napi_id;
} __attribute__((preserve_access_index));

struct task_struct {
    unsigned int flags;
} __attribute__((preserve_access_index));

#define RL_PF_KTHREAD 0x00200000 /* include/linux/sched.h */
#define RL_NET_RX_SOFTIRQ 3      /* include/linux/interrupt.h */
#define RL_NAPI_STATE_SCHED 1ul  /* 1 << NAPI_STATE_SCHED, include/linux/netdevice.h */

/* Set by user space before load: napi_watchdog's address (/proc/kallsyms), and the ifindex
 * of the netdev whose NAPIs are counted (the others cost one read and are left alone). */
const volatile __u64 watchdog_fn = 0;
const volatile __u32 watch_ifindex = 0;

static __always_inline int watched(struct napi_struct *napi)
{
    return !watch_ifindex || BPF_CORE_READ(napi, dev, ifindex) == (int)watch_ifindex;
}

struct {
    __uint(type, BPF_MAP_TYPE_PERCPU_HASH);
    __uint(max_entries, 256); /* the watched netdev's NAPIs: one per channel */
    __type(key, __u32);       /* napi id */
    __type(value, struct rl_poll_counts);
} counts SEC(".maps");

struct {
    __uint(type, BPF_MAP_TYPE_PERCPU_ARRAY);
    __uint(max_entries, 1);
    __type(key, __u32);
    __type(value, __u64); /* while this CPU runs the NET_RX softirq: when it began (ns), else 0 */
} in_rx SEC(".maps");

struct {
    __uint(type, BPF_MAP_TYPE_PERCPU_ARRAY);
    __uint(max_entries, 1);
    __type(key, __u32);
    __type(value, struct rl_softirq_time);
} rx_time SEC(".maps");

struct {
    __uint(type, BPF_MAP_TYPE_LRU_HASH);
    __uint(max_entries, 256);
    __type(key, __u32); /* napi id the timer scheduled, until its next poll */
    __type(value, __u8);
} timer_kicked SEC(".maps");

/* A mark, not a depth: NET_RX does not nest on a CPU, and a mark heals at the next exit
 * where a depth would stay wrong forever after an entry or exit the attach missed. */
SEC("tp_btf/softirq_entry")
int BPF_PROG(softirq_entry, unsigned int vec)
{
    if (vec != RL_NET_RX_SOFTIRQ) return 0;
    __u32 zero = 0;
    __u64 *began = bpf_map_lookup_elem(&in_rx, &zero);
    if (began) *began = bpf_ktime_get_ns();
    return 0;
}

SEC("tp_btf/softirq_exit")
int BPF_PROG(softirq_exit, unsigned int vec)
{
    if (vec != RL_NET_RX_SOFTIRQ) return 0;
    __u32 zero = 0;
    __u64 *began = bpf_map_lookup_elem(&in_rx, &zero);
    if (!began) return 0;
    /* An exit whose entry the attach missed (began 0) adds nothing. */
    struct rl_softirq_time *t = bpf_map_lookup_elem(&rx_time, &zero);
    if (t && *began) {
        t->ns += bpf_ktime_get_ns() - *began;
        t->runs += 1;
    }
    *began = 0;
    return 0;
}

SEC("tp_btf/hrtimer_expire_entry")
int BPF_PROG(timer_fires, struct hrtimer *timer)
{
    if (!watchdog_fn || (__u64)BPF_CORE_READ(timer, function) != watchdog_fn) return 0;
    /* The timer is a member of its NAPI: container_of, with the member's offset relocated. */
    struct napi_struct *napi =
        (void *)((char *)timer - bpf_core_field_offset(struct napi_struct, timer));
    if (!watched(napi)) return 0;
    /* A NAPI already scheduled (a busy poller or a softirq holds it) is not scheduled by its
     * timer: napi_watchdog only marks it missed. The timer drives the next poll only when it
     * finds the NAPI idle. */
    if (BPF_CORE_READ(napi, state) & RL_NAPI_STATE_SCHED) return 0;
    __u32 id = BPF_CORE_READ(napi, napi_id);
    __u8 one = 1;
    if (id) bpf_map_update_elem(&timer_kicked, &id, &one, BPF_ANY);
    return 0;
}

static __always_inline int is_napi_kthread(void)
{
    char comm[16];
    /* "napi/IF-ID": the kernel's name for a NAPI's kthread (napi_kthread_create) */
    if (bpf_get_current_comm(comm, sizeof(comm))) return 0;
    return comm[0] == 'n' && comm[1] == 'a' && comm[2] == 'p' && comm[3] == 'i' && comm[4] == '/';
}

SEC("tp_btf/napi_poll")
int BPF_PROG(napi_poll, struct napi_struct *napi, int work, int budget)
{
    __u32 id = BPF_CORE_READ(napi, napi_id);
    if (!id || !watched(napi)) return 0; /* a CPU's backlog, another netdev's NAPI */

    __u32 zero = 0;
    __u64 *rx = bpf_map_lookup_elem(&in_rx, &zero);
    int source;
    /* The timer's mark lasts until the NAPI's next poll, whoever runs it. */
    const int timer = bpf_map_lookup_elem(&timer_kicked, &id) != 0;
    if (timer) bpf_map_delete_elem(&timer_kicked, &id);
    if (rx && *rx) {
        source = timer ? RL_POLL_WATCHDOG : RL_POLL_SOFTIRQ;
    } else if (is_napi_kthread()) {
        source = RL_POLL_KTHREAD; /* a timer that woke the kthread: counted as the kthread's */
    } else {
        struct task_struct *task = (struct task_struct *)bpf_get_current_task();
        source = BPF_CORE_READ(task, flags) & RL_PF_KTHREAD ? RL_POLL_OTHER : RL_POLL_BUSY;
    }

    struct rl_poll_counts *c = bpf_map_lookup_elem(&counts, &id);
    if (!c) {
        struct rl_poll_counts fresh = {};
        bpf_map_update_elem(&counts, &id, &fresh, BPF_NOEXIST);
        c = bpf_map_lookup_elem(&counts, &id);
        if (!c) return 0;
    }
    if (source >= 0 && source < RL_POLL_SOURCES) {
        c->polls[source] += 1;
        if (work > 0) c->packets[source] += (unsigned long long)work;
    }
    return 0;
}

char LICENSE[] SEC("license") = "GPL";
