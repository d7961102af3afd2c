// SPDX-License-Identifier: GPL-2.0-or-later
#include "drivers/dpdk/eal.h"

#include "drivers/privilege.h"
#include "engine/common/port_facts.h"
#include "engine/common/words.h"

#include <net/if.h>
#include <pthread.h>
#include <rte_bus.h>
#include <rte_dev.h>
#include <rte_eal.h>
#include <rte_errno.h>
#include <rte_ethdev.h>
#include <rte_lcore.h>
#include <rte_log.h>
#include <rte_version.h>
#include <sched.h>
#include <sys/mman.h>
#include <unistd.h>

#include <algorithm>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <deque>
#include <filesystem>
#include <fstream>
#include <mutex>
#include <sstream>

namespace ringlab::dpdk {

namespace {

std::mutex g_mutex; // every EAL call here
bool g_tried = false;
std::string g_failure;
std::vector<std::string> g_args; // as initialised, for messages
std::vector<std::string> g_user; // the --eal part of them

// DPDK logs through a stream of ours: the last lines are kept for error messages, and shown
// on stderr only when RINGLAB_DPDK_LOG is set (the tap PMD's missing-qdisc notice is noise).
struct LogCapture {
    std::mutex m;
    std::deque<std::string> lines;
    std::string partial;
    bool echo = std::getenv("RINGLAB_DPDK_LOG") != nullptr;
};
LogCapture &logCapture()
{
    static LogCapture c;
    return c;
}

ssize_t logWrite(void *, const char *buf, size_t n)
{
    LogCapture &c = logCapture();
    if (c.echo) [[maybe_unused]]
        auto r = fwrite(buf, 1, n, stderr);
    std::lock_guard lock(c.m);
    c.partial.append(buf, n);
    for (std::size_t nl; (nl = c.partial.find('\n')) != std::string::npos;) {
        c.lines.push_back(c.partial.substr(0, nl));
        c.partial.erase(0, nl + 1);
        if (c.lines.size() > 12) c.lines.pop_front();
    }
    if (c.partial.size() > 4096) c.partial.clear();
    return static_cast<ssize_t>(n);
}

void installLogStream()
{
    static FILE *stream = [] {
        cookie_io_functions_t io{};
        io.write = logWrite;
        FILE *f = fopencookie(nullptr, "w", io);
        if (f) setvbuf(f, nullptr, _IOLBF, 0);
        return f;
    }();
    if (stream) rte_openlog_stream(stream);
}

std::uint64_t hugepagesFree()
{
    std::ifstream in("/proc/meminfo");
    std::string key;
    std::uint64_t value = 0;
    while (in >> key >> value) {
        if (key == "HugePages_Free:") return value;
        in.ignore(256, '\n');
    }
    return 0;
}

bool hasAny(const std::vector<std::string> &args, std::initializer_list<const char *> opts)
{
    for (const auto &a : args)
        for (const char *o : opts)
            if (a == o || a.rfind(std::string(o) + "=", 0) == 0) return true;
    return false;
}

std::string lastLogLines(std::size_t n)
{
    LogCapture &c = logCapture();
    std::lock_guard lock(c.m);
    std::string s;
    const std::size_t from = c.lines.size() > n ? c.lines.size() - n : 0;
    for (std::size_t k = from; k < c.lines.size(); ++k)
        s += (s.empty() ? "" : " | ") + c.lines[k];
    return s;
}

// A later init: the earlier one's failure, or whether what it started with covers this.
Status coveredByFirstInit(const std::vector<std::string> &pci,
                          const std::vector<std::string> &userArgs)
{
    if (!g_failure.empty()) return Status{g_failure};
    // The EAL cannot be started twice: what it was started with must cover the request.
    for (const auto &a : pci)
        if (std::find(g_args.begin(), g_args.end(), a) == g_args.end())
            return Status{"PCI device " + a +
                          " was not allow-listed when DPDK started in this process (EAL "
                          "arguments: " +
                          joinWords(g_args) + "); start the program again to use it"};
    if (!userArgs.empty() && userArgs != g_user)
        return Status{"--eal \"" + joinWords(userArgs) +
                      "\": DPDK is already running in this process with \"" + joinWords(g_args) +
                      "\"; EAL arguments can only be given before the first DPDK device"};
    return Status::success();
}

// The program's name, then the memory and the devices, each unless the user's arguments
// say it.
std::vector<std::string> memoryAndDeviceArguments(const std::vector<std::string> &pci,
                                                  const std::vector<std::string> &userArgs)
{
    std::vector<std::string> args{"ringlab"};
    if (!hasAny(userArgs, {"--no-huge", "--socket-mem", "-m", "--huge-dir", "--in-memory",
                           "--legacy-mem", "--socket-limit"})) {
        // Without hugepages DPDK 22.11 refuses --in-memory: plain memory, no shared files.
        if (hugepagesFree() > 0)
            args.insert(args.end(), {"--in-memory"});
        else
            args.insert(args.end(), {"--no-huge", "-m", "512", "--no-shconf"});
    }
    if (!hasAny(userArgs, {"-a", "--allow", "-b", "--block", "--no-pci"})) {
        if (pci.empty()) args.push_back("--no-pci");
        for (const auto &a : pci)
            args.insert(args.end(), {"-a", a});
    }
    return args;
}

// The first CPU in `allowed` (0 without an affinity).
int firstAllowedCpu(bool haveAffinity, const cpu_set_t &allowed)
{
    int first = 0;
    while (haveAffinity && first < CPU_SETSIZE && !CPU_ISSET(first, &allowed))
        ++first;
    return first;
}

// rte_eal_init with `args`. The EAL prints its usage and getopt's complaints straight to
// stdout and stderr: keep them out of the user's output, and in `printed` for the message.
int initQuietly(std::vector<std::string> &args, std::string &printed)
{
    std::vector<char *> argv;
    for (auto &a : args)
        argv.push_back(a.data());
    argv.push_back(nullptr);
    std::fflush(stdout);
    std::fflush(stderr);
    const int out = dup(STDOUT_FILENO), err = dup(STDERR_FILENO);
    const int capture = memfd_create("ringlab-eal", MFD_CLOEXEC);
    if (capture >= 0) {
        dup2(capture, STDOUT_FILENO);
        dup2(capture, STDERR_FILENO);
    }
    const int r = rte_eal_init(static_cast<int>(argv.size() - 1), argv.data());
    std::fflush(stdout);
    std::fflush(stderr);
    dup2(out, STDOUT_FILENO);
    dup2(err, STDERR_FILENO);
    close(out);
    close(err);
    if (capture >= 0) {
        char buf[4096];
        for (ssize_t n;
             (n = pread(capture, buf, sizeof buf, static_cast<off_t>(printed.size()))) > 0;)
            printed.append(buf, static_cast<std::size_t>(n));
        close(capture);
    }
    if (logCapture().echo) [[maybe_unused]]
        auto w = write(STDERR_FILENO, printed.data(), printed.size());
    return r;
}

// Why the EAL did not start (rte_errno `err`): getopt's complaint or DPDK's last lines, and
// what to do about it.
std::string startFailure(int err, const std::string &printed,
                         const std::vector<std::string> &userArgs)
{
    std::string why;
    std::istringstream lines(printed);
    for (std::string line; std::getline(lines, line);)
        if (line.rfind("ringlab: ", 0) == 0 && why.find(line.substr(9)) == std::string::npos)
            why += (why.empty() ? "" : " | ") + line.substr(9); // getopt's complaint
    if (why.empty()) why = lastLogLines(3);
    std::string failure = "DPDK could not start (EAL arguments: " + joinWords(g_args) +
                          "): " + rte_strerror(err) + (why.empty() ? "" : " [" + why + "]");
    if (err == EACCES || err == EPERM)
        failure += "; run as root or with CAP_SYS_ADMIN and CAP_NET_ADMIN";
    else if (hasAny(userArgs, {"--socket-mem", "--huge-dir"}) && hugepagesFree() == 0)
        failure += "; this machine has no free hugepages (see /proc/meminfo), drop "
                   "--socket-mem to run without them";
    return failure;
}

} // namespace

bool isPciAddress(const std::string &s)
{
    unsigned d = 0, b = 0, dev = 0, f = 0;
    char tail = 0;
    return std::sscanf(s.c_str(), "%x:%x:%x.%x%c", &d, &b, &dev, &f, &tail) == 4 ||
           std::sscanf(s.c_str(), "%x:%x.%x%c", &b, &dev, &f, &tail) == 3;
}

bool Eal::initialised()
{
    std::lock_guard lock(g_mutex);
    return g_tried && g_failure.empty();
}

Status Eal::init(const std::vector<std::string> &pci, const std::vector<std::string> &userArgs)
{
    std::lock_guard lock(g_mutex);
    if (g_tried) return coveredByFirstInit(pci, userArgs);
    g_tried = true;
    g_user = userArgs;
    installLogStream();

    std::vector<std::string> args = memoryAndDeviceArguments(pci, userArgs);
    // One lcore, the first CPU this process may use; the calling thread's CPU set is put
    // back afterwards, since the EAL pins its main lcore and every thread started later would
    // inherit the pin.
    cpu_set_t saved;
    CPU_ZERO(&saved);
    const bool haveAffinity = pthread_getaffinity_np(pthread_self(), sizeof saved, &saved) == 0;
    if (!hasAny(userArgs, {"-l", "-c", "--lcores"}))
        args.insert(args.end(), {"-l", std::to_string(firstAllowedCpu(haveAffinity, saved))});
    args.insert(args.end(), userArgs.begin(), userArgs.end());
    g_args.assign(args.begin() + 1, args.end());

    std::string printed;
    const int rc = initQuietly(args, printed);
    if (haveAffinity) pthread_setaffinity_np(pthread_self(), sizeof saved, &saved);
    if (rc < 0) {
        g_failure = startFailure(rte_errno, printed, userArgs);
        return Status{g_failure};
    }
    return Status::success();
}

const char *pmdsDir()
{
#ifdef RINGLAB_DPDK_PMDS_DIR
    return RINGLAB_DPDK_PMDS_DIR;
#else
    return RTE_EAL_PMD_PATH;
#endif
}

namespace {
// The PMDs this DPDK can load, from its plugin directory: "net_null", "net_tap", ...
std::vector<std::string> availablePmds()
{
    std::vector<std::string> out;
    std::error_code ec;
    for (const auto &e : std::filesystem::directory_iterator(pmdsDir(), ec)) {
        const std::string f = e.path().filename().string();
        if (f.rfind("librte_net_", 0) == 0 && f.ends_with(".so"))
            out.push_back("net_" + f.substr(11, f.size() - 11 - 3));
    }
    std::sort(out.begin(), out.end()); // as `ls` listed them
    return out;
}
} // namespace

Status Eal::attach(const std::string &devarg, std::uint16_t &port)
{
    std::lock_guard lock(g_mutex);
    const std::string name = devarg.substr(0, devarg.find(','));
    if (isPciAddress(name)) {
        if (rte_eth_dev_get_port_by_name(name.c_str(), &port) == 0) return Status::success();
        return Status{"PCI device " + name +
                      " has no DPDK port: is it bound to vfio-pci or uio_pci_generic "
                      "(dpdk-devbind.py --status), and does it exist (lspci -s " +
                      name + ")?"};
    }
    if (rte_eth_dev_get_port_by_name(name.c_str(), &port) == 0)
        return Status{"port " + name + " is already in use in this process"};
    const int rc = rte_dev_probe(devarg.c_str());
    if (rc == 0 && rte_eth_dev_get_port_by_name(name.c_str(), &port) == 0) return Status::success();
    std::string why = lastLogLines(2);
    std::string msg = "cannot attach \"" + devarg + "\": " + rte_strerror(-rc);
    if (!why.empty()) msg += " [" + why + "]";
    const auto pmds = availablePmds();
    const bool known = std::any_of(pmds.begin(), pmds.end(), [&](const std::string &p) {
        return name.rfind(p, 0) == 0 && name.size() > p.size() &&
               std::isdigit(static_cast<unsigned char>(name[p.size()]));
    });
    if (!known) {
        msg += "; a virtual device is named after its PMD and an instance number (net_null0, "
               "net_tap1); PMDs here: ";
        for (std::size_t k = 0; k < pmds.size(); ++k)
            msg += (k ? ", " : "") + pmds[k];
    } else if (!mayOpenRawPorts() &&
               (name.rfind("net_tap", 0) == 0 || name.rfind("net_af_packet", 0) == 0)) {
        msg += "; " + name.substr(0, name.find_last_not_of("0123456789") + 1) +
               " needs root (or CAP_NET_ADMIN and CAP_NET_RAW); net_null and net_ring do not";
    }
    return Status{msg};
}

void Eal::detach(std::uint16_t port)
{
    std::lock_guard lock(g_mutex);
    char name[RTE_ETH_NAME_MAX_LEN] = {};
    if (rte_eth_dev_get_name_by_port(port, name) != 0) return;
    rte_eth_dev_stop(port);
    rte_eth_dev_close(port);
    if (!isPciAddress(name)) rte_eal_hotplug_remove("vdev", name);
}

PortDescription Eal::describe(std::uint16_t port)
{
    PortDescription d;
    d.id = port;
    char name[RTE_ETH_NAME_MAX_LEN] = {};
    rte_eth_dev_get_name_by_port(port, name);
    d.name = name;
    rte_eth_dev_info info{};
    if (rte_eth_dev_info_get(port, &info) == 0) {
        d.driver = info.driver_name ? info.driver_name : "";
        d.maxRxDesc = info.rx_desc_lim.nb_max;
        d.maxTxDesc = info.tx_desc_lim.nb_max;
    }
    rte_eth_link link{};
    if (rte_eth_link_get_nowait(port, &link) == 0) {
        d.linkUp = link.link_status == RTE_ETH_LINK_UP;
        d.speedMbps = link.link_speed == RTE_ETH_SPEED_NUM_UNKNOWN ? 0 : link.link_speed;
    }
    d.rxInterrupts = rte_eth_dev_rx_intr_ctl_q_get_fd(port, 0) >= 0;
    return d;
}

void Eal::describeFacts(std::uint16_t port, Environment &env)
{
    std::lock_guard lock(g_mutex);
    char name[RTE_ETH_NAME_MAX_LEN] = {};
    const std::string inst = rte_eth_dev_get_name_by_port(port, name) == 0 && name[0]
                                 ? std::string(name)
                                 : "port " + std::to_string(port);
    auto put = [&](const char *spec, const std::string &value) {
        env.set({factKey(spec, inst), value, {}});
    };
    put("port.dpdk_version", rte_version());
    put("port.eal_args", joinWords(g_args));
    rte_eth_dev_info info{};
    if (rte_eth_dev_info_get(port, &info) != 0) {
        markPortFactsAbsent(inst, "rte_eth_dev_info_get failed", env);
        return;
    }
    char ifname[IF_NAMESIZE] = {};
    if (info.if_index > 0 && if_indextoname(info.if_index, ifname)) {
        // The kernel's view of the interface behind the PMD; the PMD names the driver.
        captureKernelPort(inst, ifname, env);
        const Fact *kernel = env.find(factKey("port.driver", inst));
        put("port.driver", std::string(info.driver_name ? info.driver_name : "?") +
                               " (DPDK PMD) over kernel interface " + ifname +
                               (kernel && kernel->present() ? " (" + kernel->value + ")" : ""));
        return;
    }
    put("port.driver", std::string(info.driver_name ? info.driver_name : "?") + " (DPDK PMD)");
    put("port.bus", inst);
    put("port.rings", "rx max " + std::to_string(info.rx_desc_lim.nb_max) + ", tx max " +
                          std::to_string(info.tx_desc_lim.nb_max));
    markPortFactsAbsent(inst,
                        info.if_index > 0 ? "the PMD's kernel interface (ifindex " +
                                                std::to_string(info.if_index) +
                                                ") is not in this network namespace"
                                          : "a DPDK port with no kernel interface behind it",
                        env);
}

std::vector<PortDescription> Eal::ports()
{
    std::lock_guard lock(g_mutex);
    std::vector<PortDescription> out;
    if (!g_tried || !g_failure.empty()) return out;
    std::uint16_t p = 0;
    RTE_ETH_FOREACH_DEV(p)
    out.push_back(describe(p));
    return out;
}

std::string Eal::recentLog()
{
    return lastLogLines(4);
}

void Eal::registerThread()
{
    struct Registration {
        bool on = false;
        ~Registration()
        {
            if (on) rte_thread_unregister();
        }
    };
    thread_local Registration reg;
    if (reg.on || rte_lcore_id() != LCORE_ID_ANY) return;
    reg.on = rte_thread_register() == 0;
}

} // namespace ringlab::dpdk
