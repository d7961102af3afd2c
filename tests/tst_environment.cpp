// SPDX-License-Identifier: GPL-2.0-or-later
// The environment a session ran on (issue 24): capture on this machine and on a fake tree
// (every fact a value or absent with a reason), the threads' placement, storage, export and
// import, the import check, compare's caveats, `sessions show`, and an old database.
#include <sched.h>
#include <sys/resource.h>
#include <sys/utsname.h>
#include <unistd.h>

#include <QProcess>
#include <QRegularExpression>
#include <QTemporaryDir>
#include <QtTest>
#include <fstream>
#include <nlohmann/json.hpp>
#include <random>
#include <set>
#include <sstream>
#include <thread>

#include "drivers/registry_devices.h"
#include "engine/common/cpu_list.h"
#include "engine/common/environment_capture.h"
#include "engine/common/port_facts.h"
#include "engine/run/run_service.h"
#include "engine/store/environment_json.h"
#include "engine/store/run_load.h"
#include "engine/store/session_compare.h"
#include "engine/store/session_report.h"
#include "engine/store/session_store.h"
#include "test_support.h"

using namespace ringlab;
namespace fs = std::filesystem;

class TstEnvironment : public QObject {
    Q_OBJECT
  private slots:
    void init() { QVERIFY(dir_.isValid()); }
    void factTableIsConsistent();
    void captureOnThisMachine();
    void aKernelPortIsDescribedByTheKernel();
    void captureOnAFakeTreeSaysWhyFactsAreAbsent();
    void threadsPlacementIsReadBack();
    void storeExportAndImportRoundTrip();
    void importRefusesFactsItCannotTrust();
    void compareListsEveryDifferenceRanked();
    void aLongDifferenceSaysOnlyWhatDiffers();
    void showAndCompareOnTheCommandLine();
    void aVersion4DatabaseMigrates();
    void aRunRecordsTheMachineAndItsThreads();
    void aBusyNeighbourShowsInTheSamples();
    void jobsWarnWhenTheMachinesLoadDiffered();

  private:
    fs::path db(const char *name) const { return fs::path(dir_.path().toStdString()) / name; }
    static void checkEveryFact(const Environment &env)
    {
        QVERIFY(env.recorded());
        for (const auto &f : env.facts) {
            const std::string what = f.key + " = \"" + f.value + "\" / absent \"" + f.absent + "\"";
            QVERIFY2(findFactSpec(f.key), what.c_str());
            // A value, or absent with the reason: never both, never neither.
            QVERIFY2(f.present() ? true : f.value.empty(), what.c_str());
            if (!f.present())
                QVERIFY2(f.absent.rfind("not present", 0) == 0 ||
                             f.absent.rfind("unreadable", 0) == 0,
                         what.c_str());
        }
    }
    static std::string valueOf(const Environment &env, const std::string &key)
    {
        const Fact *f = env.find(key);
        return f ? f->shown() : "(missing " + key + ")";
    }
    static void write(const fs::path &file, const std::string &text)
    {
        fs::create_directories(file.parent_path());
        std::ofstream(file) << text;
    }
    QTemporaryDir dir_;
};

void TstEnvironment::factTableIsConsistent()
{
    std::set<std::string_view> keys;
    for (const auto &s : factSpecs()) {
        QVERIFY2(keys.insert(s.key).second, std::string(s.key).c_str()); // once each
        QVERIFY(!s.label.empty() && !s.source.empty());
        const std::string key =
            s.scope == FactScope::Machine ? std::string(s.key) : factKey(s.key, "0");
        QCOMPARE(findFactSpec(key), &s);
    }
    QCOMPARE(findFactSpec("cpu.governor"), nullptr); // a per-CPU fact needs its CPU
    QCOMPARE(findFactSpec("kernel.release[1]"), nullptr);
    QCOMPARE(findFactSpec("no.such.fact"), nullptr);
    QCOMPARE(factInstance("thread.policy[q:stdout]"), std::string("q:stdout"));
    QCOMPARE(factLabel("cpu.governor[1]"), std::string("frequency governor (CPU 1)"));
    QCOMPARE(cpuListText({3, 0, 1, 2, 6, 8, 7}), std::string("0-3,6-8"));
}

void TstEnvironment::captureOnThisMachine()
{
    const Environment env = captureMachine();
    checkEveryFact(env);
    // Every machine fact once; one per allowed CPU for the per-CPU ones.
    cpu_set_t set;
    CPU_ZERO(&set);
    QCOMPARE(sched_getaffinity(0, sizeof set, &set), 0);
    const int allowed = CPU_COUNT(&set);
    for (const auto &s : factSpecs()) {
        int n = 0;
        for (const auto &f : env.facts)
            n += findFactSpec(f.key) == &s;
        if (s.scope == FactScope::Machine)
            QVERIFY2(n == 1, std::string(s.key).c_str());
        else if (s.scope == FactScope::Cpu)
            QVERIFY2(n == allowed, std::string(s.key).c_str());
        else if (s.scope == FactScope::Each)
            QVERIFY2(n >= 1, std::string(s.key).c_str());
    }
    // What this machine certainly has, as the kernel tells it.
    utsname u{};
    QCOMPARE(uname(&u), 0);
    QCOMPARE(valueOf(env, "kernel.release"), std::string(u.release));
    QCOMPARE(valueOf(env, "cpu.online_count"), std::to_string(sysconf(_SC_NPROCESSORS_ONLN)));
    std::string boot;
    std::getline(std::ifstream("/proc/sys/kernel/random/boot_id"), boot);
    QCOMPARE(valueOf(env, "kernel.boot_id"), boot);
    QVERIFY(env.find("mem.total_kb")->present());
    QVERIFY(std::stoll(env.find("mem.total_kb")->value) > 0);
    QVERIFY(env.find("load.per_cpu")->present());
    QVERIFY(env.find("sysctl.net.core.netdev_budget")->present());
}

void TstEnvironment::aKernelPortIsDescribedByTheKernel()
{
    // The loopback interface, through the ethtool ioctl: every port fact once, a value or
    // absent with the reason; loopback reports its offloads and has no IRQ.
    Environment env;
    captureKernelPort("lo", "lo", env);
    for (const auto &s : factSpecs()) {
        if (s.scope != FactScope::Port) continue;
        const Fact *f = env.find(factKey(s.key, "lo"));
        QVERIFY2(f, s.key.data());
        QVERIFY2(f->present() || f->absent.size() > 5, s.key.data());
    }
    QCOMPARE(env.facts.size(), std::size_t{11});
    const Fact *offloads = env.find("port.offloads[lo]");
    QVERIFY2(offloads->present(), offloads->absent.c_str());
    QVERIFY2(offloads->value.find("tx-checksum o") != std::string::npos, offloads->value.c_str());
    QVERIFY(offloads->value.find("scatter-gather o") != std::string::npos);
    QVERIFY2(env.find("port.irqs[lo]")->absent.find("no IRQ of lo") == 0,
             env.find("port.irqs[lo]")->absent.c_str());
    QCOMPARE(env.find("port.dpdk_version[lo]")->absent, std::string("not a DPDK port"));
    QCOMPARE(factLabel("port.rings[lo]"), std::string("port lo: rings (rx/tx, of max)"));

    // An interface this namespace does not have: all absent, the reason names it.
    Environment gone;
    captureKernelPort("p0", "rl-no-such0", gone);
    QCOMPARE(gone.facts.size(), std::size_t{11});
    for (const auto &f : gone.facts)
        QVERIFY2(!f.present() &&
                     f.absent.rfind("interface rl-no-such0 is not in this network namespace", 0) ==
                         0,
                 f.absent.c_str());
}

void TstEnvironment::captureOnAFakeTreeSaysWhyFactsAreAbsent()
{
    const fs::path root = db("root");
    write(root / "proc/sys/kernel/osrelease", "6.1.0-fake\n");
    write(root / "proc/cpuinfo", "model name\t: Fake CPU @ 1 GHz\nflags\t\t: fpu hypervisor sse\n");
    write(root / "sys/class/dmi/id/sys_vendor", "QEMU\n");
    write(root / "sys/devices/system/cpu/online", "0-63\n");
    write(root / "sys/devices/system/cpu/isolated", "\n");
    fs::create_directories(root / "sys/devices/system/cpu/smt/active"); // not a file
    write(root / "sys/devices/system/cpu/cpu0/cpufreq/scaling_governor", "performance\n");
    write(root / "sys/devices/system/cpu/cpu0/cpuidle/state0/name", "POLL\n");
    write(root / "sys/devices/system/cpu/cpu0/cpuidle/state0/disable", "0\n");
    write(root / "sys/devices/system/cpu/cpu0/cpuidle/state1/name", "C1\n");
    write(root / "sys/devices/system/cpu/cpu0/cpuidle/state1/disable", "1\n");
    write(root / "proc/meminfo", "MemTotal:  1000 kB\nHugePages_Total:  4\n");
    write(root / "proc/sys/net/core/busy_poll", "50\n");
    write(root / "proc/loadavg", "1.50 1.00 0.50 2/100 42\n");
    const Environment env = captureMachine(root);
    checkEveryFact(env);
    QCOMPARE(valueOf(env, "kernel.release"), std::string("6.1.0-fake"));
    QCOMPARE(valueOf(env, "cpu.model"), std::string("Fake CPU @ 1 GHz"));
    QCOMPARE(valueOf(env, "kernel.virtualisation"), std::string("virtual machine (QEMU)"));
    QCOMPARE(valueOf(env, "cpu.online_count"), std::string("64"));
    QCOMPARE(valueOf(env, "cpu.isolated"), std::string("none"));
    QCOMPARE(valueOf(env, "load.average"), std::string("1.50 1.00 0.50"));
    QCOMPARE(valueOf(env, "load.per_cpu"), std::string("0.02"));
    QCOMPARE(valueOf(env, "mem.total_kb"), std::string("1000"));
    QCOMPARE(valueOf(env, "mem.hugepages_total"), std::string("4"));
    QCOMPARE(valueOf(env, "sysctl.net.core.busy_poll"), std::string("50"));
    // Absent, each with its reason: a missing file, a file that is a directory, a missing line.
    QCOMPARE(valueOf(env, "kernel.cmdline"),
             std::string("absent: not present on this kernel: /proc/cmdline missing"));
    QCOMPARE(valueOf(env, "cpu.smt"),
             std::string("absent: unreadable: /sys/devices/system/cpu/smt/active is a "
                         "directory, not a file"));
    QCOMPARE(valueOf(env, "mem.available_kb"),
             std::string("absent: not present on this kernel: /proc/meminfo has no MemAvailable"));
    QVERIFY(valueOf(env, "cpu.nohz_full").find("CONFIG_NO_HZ_FULL") != std::string::npos);
    QVERIFY(valueOf(env, "sysctl.kernel.sched").find("no /proc/sys/kernel/sched_*") !=
            std::string::npos);
    // CPU 0, if this process may run there, has what the tree says.
    if (env.find("cpu.governor[0]")) {
        QCOMPARE(valueOf(env, "cpu.governor[0]"), std::string("performance"));
        QCOMPARE(valueOf(env, "cpu.idle_states[0]"), std::string("POLL"));
        QVERIFY(valueOf(env, "cpu.freq_max_khz[0]").find("missing") != std::string::npos);
    }
}

void TstEnvironment::threadsPlacementIsReadBack()
{
    const pid_t me = gettid();
    pid_t ended = 0;
    std::thread([&ended] { ended = gettid(); }).join();
    // The sampler found "test" on CPU 0 for 100 ns of its CPU time and on CPU 1 for 300.
    const Environment env = captureThreads({{"test", me, {100, 300}}, {"ended", ended, {}}});
    checkEveryFact(env);
    cpu_set_t set;
    CPU_ZERO(&set);
    QCOMPARE(sched_getaffinity(me, sizeof set, &set), 0);
    std::vector<int> cpus;
    for (int c = 0; c < CPU_SETSIZE; ++c)
        if (CPU_ISSET(c, &set)) cpus.push_back(c);
    QCOMPARE(valueOf(env, "thread.affinity[test]"), cpuListText(cpus));
    QCOMPARE(valueOf(env, "thread.policy[test]"), std::string("other"));
    QCOMPARE(valueOf(env, "thread.priority[test]"),
             "nice " + std::to_string(getpriority(PRIO_PROCESS, 0)));
    const int lastCpu = std::stoi(valueOf(env, "thread.last_cpu[test]"));
    QVERIFY(lastCpu >= 0 && lastCpu < CPU_SETSIZE);
    QCOMPARE(valueOf(env, "thread.most_cpu[test]"), std::string("1 (75 %)"));
    // A thread that has ended: each fact absent, saying so.
    for (const char *spec : {"thread.affinity", "thread.policy", "thread.priority",
                             "thread.last_cpu", "thread.most_cpu"}) {
        const Fact *f = env.find(factKey(spec, "ended"));
        QVERIFY(f);
        QVERIFY2(!f->present() &&
                     f->absent.find("tid " + std::to_string(ended)) != std::string::npos,
                 f->absent.c_str());
    }
}

void TstEnvironment::storeExportAndImportRoundTrip()
{
    SessionStore store(db("a.db"));
    SessionInfo info = test::simSession("with environment");
    const auto id = store.createSession(info, ParamSet{});
    Environment env = captureMachine();
    env.facts.push_back({factKey("thread.policy", "poll"), "fifo", {}});
    env.facts.push_back({factKey("thread.affinity", "gone"), {}, "unreadable: gone"});
    store.setEnvironment(id, env);
    // Facts added later (the threads') go with the machine's; one given again is replaced.
    Environment later;
    later.facts.push_back({factKey("thread.policy", "poll"), "other", {}});
    store.setEnvironment(id, later);
    env.set({factKey("thread.policy", "poll"), "other", {}});
    auto same = [](const Environment &x, const Environment &y) {
        if (x.facts.size() != y.facts.size()) return false;
        for (std::size_t k = 0; k < x.facts.size(); ++k)
            if (x.facts[k].key != y.facts[k].key || x.facts[k].value != y.facts[k].value ||
                x.facts[k].absent != y.facts[k].absent)
                return false;
        return true;
    };
    const Environment back = store.environment(id);
    std::set<std::string> keysBack, keysIn;
    for (const auto &f : back.facts)
        keysBack.insert(f.key + "=" + f.value + "|" + f.absent);
    for (const auto &f : env.facts)
        keysIn.insert(f.key + "=" + f.value + "|" + f.absent);
    QVERIFY(keysBack == keysIn);

    // JSON export: every fact with its label and rank, a value or the reason.
    std::ostringstream js;
    exportJson(store, id, js);
    const auto j = nlohmann::json::parse(js.str());
    QCOMPARE(j["environment"]["recorded"].get<bool>(), true);
    QCOMPARE(j["environment"]["facts"].size(), back.facts.size());
    for (std::size_t k = 0; k < back.facts.size(); ++k) {
        const auto &f = j["environment"]["facts"][k];
        QCOMPARE(f["key"].get<std::string>(), back.facts[k].key);
        QCOMPARE(f.contains("value"), back.facts[k].present());
        QCOMPARE(f.contains("absent"), !back.facts[k].present());
        QVERIFY(!f["label"].get<std::string>().empty());
    }
    // CSV: a header and one row per fact.
    std::ostringstream csv;
    QVERIFY(writeExport(store, id, "environment", csv).ok());
    std::istringstream lines(csv.str());
    std::string header;
    std::getline(lines, header);
    QCOMPARE(header, std::string("key,label,rank,value,absent"));
    std::size_t rows = 0;
    for (std::string l; std::getline(lines, l);)
        ++rows;
    QCOMPARE(rows, back.facts.size());
    QVERIFY(csv.str().find("thread.affinity[gone],thread gone: CPU affinity,placement,,"
                           "unreadable: gone") != std::string::npos);

    // The SQLite export, imported elsewhere, brings it along.
    {
        std::ofstream out(db("one.db"), std::ios::binary);
        out << store.exportSession(id);
    }
    SessionStore other(db("b.db"));
    QCOMPARE(other.importFrom(db("one.db")).imported, 1);
    QVERIFY(same(other.environment(other.list().at(0).id), back));
    // Deleting the session deletes its environment.
    QVERIFY(store.deleteSession(id));
    QVERIFY(!store.environment(id).recorded());
}

void TstEnvironment::importRefusesFactsItCannotTrust()
{
    struct Bad {
        const char *sql, *expected;
    };
    const Bad bad[] = {
        {"INSERT INTO session_environment VALUES (1, 'kernel.colour', 'blue', '', 0)",
         "\"kernel.colour\" is not a fact Ringlab records"},
        {"INSERT INTO session_environment VALUES (1, 'kernel.release', '6.1', 'unreadable', 0)",
         "hold both a value and a reason for its absence"},
        {"INSERT INTO session_environment VALUES (1, 'kernel.release', X'00ff', '', 0)",
         "column value: 1 row(s) hold something other than text"},
    };
    int k = 0;
    for (const auto &b : bad) {
        const fs::path file = db(("bad" + std::to_string(k++) + ".db").c_str());
        {
            SessionStore s(file);
            SessionInfo info = test::simSession("x");
            s.createSession(info, ParamSet{});
            s.db().exec(b.sql);
        }
        SessionStore into(db("into.db"));
        try {
            (void)into.importFrom(file);
            QFAIL(b.sql);
        } catch (const DbError &e) {
            QVERIFY2(std::string(e.what()).find(b.expected) != std::string::npos, e.what());
        }
        QCOMPARE(into.list().size(), std::size_t{0});
    }
}

void TstEnvironment::compareListsEveryDifferenceRanked()
{
    SessionStore store(db("c.db"));
    SessionInfo ia = test::simSession("A"), ib = test::simSession("B");
    const auto a = store.createSession(ia, ParamSet{});
    const auto b = store.createSession(ib, ParamSet{});
    SessionInfo io = test::simSession("old");
    const auto old = store.createSession(io, ParamSet{}); // no environment: not recorded
    Environment ea, eb;
    ea.facts = {{"kernel.release", "6.1.0-test", {}},
                {"cpu.model", "Same CPU", {}},
                {"kernel.boot_id", "one", {}},
                {factKey("cpu.governor", "0"), "performance", {}},
                {"mem.available_kb", "1000", {}},
                {"load.per_cpu", "0.05", {}},
                {"sysctl.net.core.busy_poll", "0", {}},
                {factKey("thread.affinity", "poll"), "0-1", {}},
                {factKey("thread.most_cpu", "poll"), "0 (90 %)", {}},
                {factKey("thread.most_cpu", "txclean"), "1 (70 %)", {}},
                {factKey("port.driver", "net_null0"), "net_null (DPDK PMD)", {}}};
    eb = ea;
    eb.set({factKey("thread.most_cpu", "poll"), "1 (95 %)", {}});    // another CPU
    eb.set({factKey("thread.most_cpu", "txclean"), "1 (55 %)", {}}); // the same, less often
    eb.set({factKey("port.driver", "net_null0"), "net_ring (DPDK PMD)", {}});
    eb.set({"kernel.release", "6.5.0-test", {}});
    eb.set({"kernel.boot_id", "two", {}});                        // kept for the record only
    eb.set({"mem.available_kb", "2000", {}});                     // so is this
    eb.set({factKey("cpu.governor", "0"), {}, "unreadable: no"}); // a value against absent
    eb.set({"load.per_cpu", "0.50", {}});                         // a busy neighbour
    eb.set({"sysctl.net.core.busy_poll", "50", {}});
    eb.set({factKey("thread.affinity", "poll"), "1", {}});
    store.setEnvironment(a, ea);
    store.setEnvironment(b, eb);
    const auto sideA = loadCompareSide(store, std::to_string(a), 1);
    const auto sideB = loadCompareSide(store, std::to_string(b), 1);
    const auto sideOld = loadCompareSide(store, std::to_string(old), 1);
    QVERIFY(sideA.ok() && sideB.ok() && sideOld.ok());
    const CompareSide &sa = sideA.value(), &sb = sideB.value(), &so = sideOld.value();
    const auto caveats = environmentCaveats(store, sa, sb);
    std::vector<std::string> keys;
    for (const auto &c : caveats)
        keys.push_back(c.key);
    const std::vector<std::string> expected = {
        "kernel.release",           "cpu.governor[0]", "thread.affinity[poll]",
        "thread.most_cpu[poll]",    "load.per_cpu",    "port.driver[net_null0]",
        "sysctl.net.core.busy_poll"};
    QCOMPARE(keys, expected);
    QCOMPARE(caveats[0].text(), std::string("kernel release: A 6.1.0-test, B 6.5.0-test"));
    QCOMPARE(caveats[1].b, std::string("absent: unreadable: no"));
    // A load within the tolerance is alike.
    eb.set({"load.per_cpu", "0.12", {}});
    for (const auto &d : environmentDifferences(ea, eb))
        QVERIFY(d.key != "load.per_cpu");
    // A session without an environment is one caveat: nothing to compare.
    const auto none = environmentCaveats(store, sa, so);
    QCOMPARE(none.size(), std::size_t{1});
    QCOMPARE(none[0].b, std::string(kNotRecorded));
    QVERIFY(environmentCaveats(store, so, so).empty());
    // A significant verdict carries the first caveat; another does not.
    std::vector<CompareRow> rows(2);
    for (auto &r : rows) {
        r.a.batches = r.b.batches = 3;
        r.verdict = "v";
    }
    rows[0].diff.significant = true;
    addEnvironmentCaveat(rows, caveats);
    QCOMPARE(rows[0].verdict,
             "v; but the environment differs (kernel): " + caveats[0].text() + " and 6 more");
    QCOMPARE(rows[1].verdict, std::string("v"));
}

// Two kernel command lines of 600 characters that differ in one word buried the caveat that
// decided a comparison (issue 46): a long list of words is said by the words that differ.
void TstEnvironment::aLongDifferenceSaysOnlyWhatDiffers()
{
    std::string common;
    for (int k = 0; k < 40; ++k)
        common += " opt" + std::to_string(k) + "=1";
    EnvironmentDifference d{"kernel.cmdline", FactRank::Kernel, "BOOT_IMAGE=/a" + common + " quiet",
                            "BOOT_IMAGE=/b" + common};
    QCOMPARE(d.text(), std::string("kernel command line: only in A BOOT_IMAGE=/a quiet; only in B "
                                   "BOOT_IMAGE=/b"));
    d.b = common + " BOOT_IMAGE=/a quiet";
    QCOMPARE(d.text(), std::string("kernel command line: the same words in another order"));
    d.b = "BOOT_IMAGE=/a quiet";
    QCOMPARE(d.text(), std::string("kernel command line: only in A opt0=1 opt1=1 opt2=1 opt3=1 "
                                   "opt4=1 opt5=1 and 34 more; only in B nothing"));
    // Short values are said whole.
    const EnvironmentDifference r{"kernel.release", FactRank::Kernel, "6.1.0 x", "6.5.0 x"};
    QCOMPARE(r.text(), std::string("kernel release: A 6.1.0 x, B 6.5.0 x"));
}

void TstEnvironment::showAndCompareOnTheCommandLine()
{
    const fs::path file = db("cli.db");
    std::int64_t a = 0, b = 0, old = 0;
    {
        SessionStore store(file);
        SessionInfo i1 = test::simSession("A"), i2 = test::simSession("B"),
                    i3 = test::simSession("old");
        a = store.createSession(i1, ParamSet{});
        b = store.createSession(i2, ParamSet{});
        old = store.createSession(i3, ParamSet{});
        Environment e = captureMachine();
        store.setEnvironment(a, e);
        e.set({"kernel.release", "0.0.1-other", {}});
        store.setEnvironment(b, e);
        for (auto id : {a, b, old})
            store.finishSession(id, "completed");
    }
    auto run = [&](const QStringList &args) {
        QProcess p;
        p.start(RINGLAB_ENGINE_BIN,
                QStringList{"sessions", "--db", QString::fromStdString(file.string())} + args);
        if (!p.waitForFinished(60000)) p.kill();
        return QString::fromUtf8(p.readAllStandardOutput());
    };
    const QString show = run({"show", QString::number(a)});
    QVERIFY2(show.contains("\nenvironment:\n"), qPrintable(show));
    QVERIFY2(show.contains(QRegularExpression(
                 "  kernel release +" + QRegularExpression::escape(QString::fromStdString(
                                            captureMachine().find("kernel.release")->value)))),
             qPrintable(show));
    QVERIFY2(show.contains("frequency governor (CPU "), qPrintable(show));
    const QString showOld = run({"show", QString::number(old)});
    QVERIFY2(showOld.contains("environment:\n  not recorded"), qPrintable(showOld));

    QProcess p;
    p.start(RINGLAB_ENGINE_BIN, {"compare", "--db", QString::fromStdString(file.string()),
                                 QString::number(a), QString::number(b)});
    QVERIFY(p.waitForFinished(60000));
    const QString cmp = QString::fromUtf8(p.readAllStandardOutput());
    QVERIFY2(cmp.contains("caveat (kernel): kernel release: A "), qPrintable(cmp));
    QVERIFY2(cmp.contains(", B 0.0.1-other"), qPrintable(cmp));
}

void TstEnvironment::aVersion4DatabaseMigrates()
{
    const fs::path file = db("v4.db");
    {
        SessionStore s(file);
        SessionInfo info = test::simSession("before the environment");
        s.createSession(info, ParamSet{});
        // The schema as version 4 had it.
        s.db().exec("DROP TABLE session_environment; PRAGMA user_version = 4;");
    }
    fs::copy_file(file, db("v4-copy.db"));
    SessionStore store(file);
    QCOMPARE(store.schemaVersion(), kSchemaVersion);
    const auto id = store.list().at(0).id;
    QVERIFY(!store.environment(id).recorded()); // not recorded, and not made up
    std::ostringstream js;
    exportJson(store, id, js);
    const auto j = nlohmann::json::parse(js.str());
    QCOMPARE(j["environment"]["recorded"].get<bool>(), false);
    QCOMPARE(j["environment"]["facts"].size(), std::size_t{0});
    // Its sessions can take one now, and a version 4 file imports.
    store.setEnvironment(id, captureMachine());
    QVERIFY(store.environment(id).recorded());
    SessionStore other(db("v5.db"));
    QCOMPARE(other.importFrom(db("v4-copy.db")).imported, 1);
    QVERIFY(!other.environment(other.list().at(0).id).recorded());
}

void TstEnvironment::aRunRecordsTheMachineAndItsThreads()
{
    SessionStore store(db("run.db"));
    RunService service(registryDevices());
    RunSetup setup;
    setup.params = test::params({});
    setup.profile = "default";
    QVERIFY(service.start(setup, &store).ok());
    const auto id = service.sessionId();
    // The machine's facts are there from the start.
    QVERIFY(store.environment(id).find("kernel.release"));
    QTRY_VERIFY_WITH_TIMEOUT(service.engine().threadIds().size() >= 2, 10000);
    std::vector<std::string> names;
    for (const auto &t : service.engine().threadIds())
        names.push_back(t.name);
    // The sampler has attributed some of the poll thread's CPU time to a CPU.
    auto pollMeasured = [&] {
        for (const auto &t : service.engine().threadIds())
            if (t.name == "poll" && !t.cpuNsOn.empty()) return true;
        return false;
    };
    QTRY_VERIFY_WITH_TIMEOUT(pollMeasured(), 10000);
    // Halted first, as `run` does at its end: the placement was read as it stopped.
    service.engine().halt();
    QVERIFY(service.stop().session == id);
    const Environment env = store.environment(id);
    checkEveryFact(env);
    for (const auto &n : names) {
        const Fact *policy = env.find(factKey("thread.policy", n));
        QVERIFY2(policy && policy->present(), n.c_str());
        QVERIFY2(env.find(factKey("thread.affinity", n))->present(), n.c_str());
    }
    // The CPU the poll thread ran on most, one it was allowed, with its share.
    const std::string most = valueOf(env, "thread.most_cpu[poll]");
    static const QRegularExpression shape(R"(^(\d+) \((\d+) %\)$)");
    const auto m = shape.match(QString::fromStdString(most));
    QVERIFY2(m.hasMatch(), most.c_str());
    std::vector<int> allowed;
    QVERIFY(parseCpuList(valueOf(env, "thread.affinity[poll]"), allowed));
    QVERIFY(std::count(allowed.begin(), allowed.end(), m.captured(1).toInt()) == 1);
    QVERIFY(m.captured(2).toInt() >= 1 && m.captured(2).toInt() <= 100);
}

// The machine's CPU outside this process is a sample metric: a busy process beside the run
// shows in it, and the engine's own busy poll thread does not.
void TstEnvironment::aBusyNeighbourShowsInTheSamples()
{
    using test::Collector;
    auto medianNeighbour = [](const std::vector<std::shared_ptr<const Sample>> &s,
                              std::size_t from) {
        std::vector<double> v;
        for (std::size_t k = from; k < s.size(); ++k)
            if (s[k]->neighbourCpuMsPerS >= 0) v.push_back(s[k]->neighbourCpuMsPerS);
        if (v.size() < 5) qFatal("only %zu samples with the neighbour's CPU", v.size());
        std::sort(v.begin(), v.end());
        return v[v.size() / 2];
    };
    // A busy poll thread: a core's worth of the engine's CPU, none of it a neighbour's.
    {
        Engine engine(test::params({{"poll.mode", "busy"}, {"load.rate_pps", "20000"}}),
                      test::simFactory(), EngineOptions{100'000'000});
        auto c = std::make_shared<Collector>();
        engine.subscribe(c);
        QVERIFY(engine.start().ok());
        QVERIFY(c->waitSamples(20));
        engine.stop();
        const auto s = c->samples();
        QVERIFY(s.back()->engineCpuMsPerS > 500);
        const double own = medianNeighbour(s, 12);
        QVERIFY2(own < 400, qPrintable(QString::number(own)));
    }
    // A process spinning beside a quiet run: most of a CPU, outside this process.
    QProcess spin;
    spin.start("timeout", {"20", "sh", "-c", "while :; do :; done"});
    QVERIFY(spin.waitForStarted());
    Engine engine(test::params({{"load.rate_pps", "20000"}}), test::simFactory(),
                  EngineOptions{100'000'000});
    auto c = std::make_shared<Collector>();
    engine.subscribe(c);
    QVERIFY(engine.start().ok());
    QVERIFY(c->waitSamples(20));
    engine.stop();
    spin.terminate(); // timeout passes SIGTERM on to the shell (a SIGKILL would leave it)
    QVERIFY(spin.waitForFinished(5000));
    const double busy = medianNeighbour(c->samples(), 12);
    QVERIFY2(busy > 600, qPrintable(QString::number(busy)));
}

// Sweeps, tunes and reproductions compare runs made minutes apart: when other processes took
// more than kLoadSpreadMsPerS more CPU during one run than another, they say so.
void TstEnvironment::jobsWarnWhenTheMachinesLoadDiffered()
{
    SessionStore store(db("load.db"));
    auto session = [&](double neighbour, double engineCpu = 0) {
        SessionInfo info = test::simSession("run");
        const auto id = store.createSession(info, ParamSet{});
        std::vector<std::shared_ptr<const Sample>> samples;
        for (int k = 1; k <= 20; ++k) {
            auto s = std::make_shared<Sample>();
            s->seq = static_cast<std::uint64_t>(k);
            s->t = 0.1 * k;
            s->interval = 0.1;
            s->neighbourCpuMsPerS = neighbour;
            s->engineCpuMsPerS = engineCpu;
            samples.push_back(s);
        }
        store.append(id, samples, {});
        return id;
    };
    const auto quiet = session(20), alike = session(90), busy = session(620);
    const auto before = session(-1); // recorded before the metric: left out

    const LoadSpread near = loadSpread(store, {quiet, alike, before}, 0.5);
    QCOMPARE(near.measured, 2);
    QCOMPARE(loadSpreadWarning(near), std::string());

    const LoadSpread far = loadSpread(store, {quiet, alike, busy, before}, 0.5);
    QCOMPARE(far.measured, 3);
    QCOMPARE(far.minSession, quiet);
    QCOMPARE(far.maxSession, busy);
    QVERIFY(std::fabs(far.maxMsPerS - 620) < 1e-6);
    const std::string w = loadSpreadWarning(far);
    QVERIFY2(w.find("took 20 ms/s of CPU during session " + std::to_string(quiet)) !=
                     std::string::npos &&
                 w.find("620 ms/s during session " + std::to_string(busy)) != std::string::npos &&
                 w.find("more than 100 ms/s apart") != std::string::npos,
             w.c_str());

    // compare gives it as a caveat of rank load, measured during the runs; not within 100.
    auto caveats = [&](std::int64_t x, std::int64_t y) {
        const auto sx = loadCompareSide(store, std::to_string(x), 0.5);
        const auto sy = loadCompareSide(store, std::to_string(y), 0.5);
        if (!sx.ok() || !sy.ok()) qFatal("%s", (sx.ok() ? sy : sx).error().c_str());
        return environmentCaveats(store, sx.value(), sy.value());
    };
    const auto differ = caveats(quiet, busy);
    QCOMPARE(differ.size(), std::size_t{1});
    QCOMPARE(differ[0].key, std::string("neighbour_cpu_ms_per_s"));
    QCOMPARE(differ[0].rank, FactRank::Load);
    QCOMPARE(differ[0].text(), std::string("other processes' CPU during the run (more than 100 "
                                           "ms/s apart): A 20 ms/s, B 620 ms/s"));
    QVERIFY(caveats(quiet, alike).empty());
    QVERIFY(caveats(quiet, before).empty()); // not measured on one side: nothing to compare

    // Issue 46: the hogs' session against a quiet one, the engine's threads also placed
    // differently. Other processes took 1,643 ms/s more CPU, more than the engine's own
    // difference: that caveat comes first, ahead of the placement's (a higher rank), so the
    // verdict's note names it and not "CPU placement ... and 1 more".
    Environment placedA, placedB;
    placedA.set({"cpu.nohz_full", "0-1", {}});
    placedB.set({"cpu.nohz_full", "1", {}});
    auto run = [&](double neighbour, double engineCpu, const Environment &env) {
        const auto id = session(neighbour, engineCpu);
        store.setEnvironment(id, env);
        return id;
    };
    const auto hogs = run(1831, 420, placedA), calm = run(188, 380, placedB);
    auto ranked = caveats(hogs, calm);
    QVERIFY2(ranked.size() >= 2, "a placement and a neighbour caveat");
    QCOMPARE(ranked[0].key, std::string("neighbour_cpu_ms_per_s"));
    QVERIFY(std::any_of(ranked.begin(), ranked.end(),
                        [](const auto &d) { return d.rank == FactRank::Placement; }));
    std::vector<CompareRow> rows(1);
    rows[0].a.mean = 420;
    rows[0].a.batches = 5;
    rows[0].a.ciHalf = 5;
    rows[0].b = rows[0].a;
    rows[0].b.mean = 380;
    rows[0].diff = compareEstimates(rows[0].a, rows[0].b);
    QVERIFY(rows[0].diff.significant);
    addEnvironmentCaveat(rows, ranked);
    QVERIFY2(rows[0].verdict.find("(load): other processes' CPU") != std::string::npos,
             rows[0].verdict.c_str());
    // A neighbour that differs by less than the engine's own CPU stays at its rank (load),
    // behind the placement.
    const auto small = run(300, 900, placedA), big = run(120, 100, placedB);
    ranked = caveats(small, big);
    QVERIFY(ranked.size() >= 2);
    QCOMPARE(ranked[0].rank, FactRank::Placement);
}

QTEST_GUILESS_MAIN(TstEnvironment)
#include "tst_environment.moc"
