// SPDX-License-Identifier: GPL-2.0-or-later
// threads.*: the engine's threads run where the tunables place them, read back from /proc;
// a live change moves them; a CPU that is offline or outside the process's set is refused
// with a message naming the tunable, the value and what is allowed; fifo is applied where the
// process may take it and refused where it may not.
#include <QtTest>
#include <fstream>
#include <sched.h>
#include <sstream>
#include <thread>

#include "engine/common/cpu_list.h"
#include "engine/datapath/thread_placement.h"
#include "test_support.h"

using namespace ringlab;
using namespace ringlab::test;

namespace {

std::string procLine(pid_t tid, const std::string &key)
{
    std::ifstream in("/proc/self/task/" + std::to_string(tid) + "/status");
    for (std::string line; std::getline(in, line);)
        if (line.rfind(key + ":", 0) == 0) {
            const auto at = line.find_first_not_of(" \t", key.size() + 1);
            return at == std::string::npos ? std::string() : line.substr(at);
        }
    return {};
}

// Cpus_allowed_list of a thread of this process, as the kernel shows it.
std::string allowedOf(pid_t tid)
{
    return procLine(tid, "Cpus_allowed_list");
}

// The policy (0 other, 1 fifo) and real-time priority of a thread: fields 41 and 40 of stat.
std::pair<int, int> policyOf(pid_t tid)
{
    std::ifstream in("/proc/self/task/" + std::to_string(tid) + "/stat");
    std::string stat((std::istreambuf_iterator<char>(in)), {});
    const auto close = stat.rfind(')');
    if (close == std::string::npos) return {-1, -1};
    std::istringstream rest(stat.substr(close + 2)); // field 3 on
    std::vector<std::string> f{"", "", ""};
    for (std::string w; rest >> w;)
        f.push_back(w);
    if (f.size() <= 41) return {-1, -1};
    return {std::stoi(f[41]), std::stoi(f[40])};
}

std::vector<int> processCpus()
{
    cpu_set_t s;
    CPU_ZERO(&s);
    sched_getaffinity(0, sizeof s, &s);
    std::vector<int> cpus;
    for (int c = 0; c < CPU_SETSIZE; ++c)
        if (CPU_ISSET(c, &s)) cpus.push_back(c);
    return cpus;
}

pid_t tidOf(const Engine &e, const std::string &name)
{
    for (const auto &t : e.threadIds())
        if (t.name == name) return t.tid;
    return 0;
}

// A run with a poll, a TX clean and a refill thread, at a rate that leaves the CPUs idle.
Assignments quietRun(Assignments more = {})
{
    Assignments a{{"load.rate_pps", "20000"}, {"refill.context", "thread"}};
    a.insert(a.end(), more.begin(), more.end());
    return a;
}

} // namespace

class TstPlacement : public QObject {
    Q_OBJECT
  private slots:
    void cpuListsReadAndWrite();
    void unplacedThreadsMayUseEveryAllowedCpu();
    void threadsRunWhereTheTunablesPlaceThem();
    void aLiveChangeMovesTheRunningThreads();
    void badCpusAreRefusedAndChangeNothing();
    void fifoIsAppliedOrRefusedByPrivilege();
};

void TstPlacement::cpuListsReadAndWrite()
{
    std::vector<int> cpus;
    QVERIFY(parseCpuList("0-2,5\n", cpus));
    QCOMPARE(cpus, (std::vector<int>{0, 1, 2, 5}));
    QCOMPARE(cpuListText({5, 2, 0, 1, 1}), std::string("0-2,5"));
    for (const char *bad : {"-1", "3-1", "0-", "0,,1", "1,", "x", "0-99999", "1 2"})
        QVERIFY2(!parseCpuList(bad, cpus), bad);
    QVERIFY(parseCpuList("", cpus) && cpus.empty());
}

void TstPlacement::unplacedThreadsMayUseEveryAllowedCpu()
{
    Engine engine(params(quietRun()), simFactory(), EngineOptions{50'000'000});
    auto c = std::make_shared<Collector>();
    engine.subscribe(c);
    QVERIFY(engine.start().ok());
    QVERIFY(c->waitSamples(2));
    const std::string all = cpuListText(processCpus());
    for (const char *name : {"poll", "txclean", "refill", "sampler"}) {
        const pid_t tid = tidOf(engine, name);
        QVERIFY2(tid > 0, name);
        QCOMPARE(allowedOf(tid), all);
        QCOMPARE(policyOf(tid).first, SCHED_OTHER);
    }
    engine.stop();
}

void TstPlacement::threadsRunWhereTheTunablesPlaceThem()
{
    const auto cpus = processCpus();
    if (cpus.size() < 2) QSKIP("this process may use one CPU only: nothing to place apart");
    const std::string a = std::to_string(cpus[0]), b = std::to_string(cpus[1]);
    Engine engine(params(quietRun({{"threads.poll_cpu", b},
                                   {"threads.clean_cpu", a},
                                   {"threads.refill_cpu", a},
                                   {"threads.sampler_cpu", a}})),
                  simFactory(), EngineOptions{50'000'000});
    auto c = std::make_shared<Collector>();
    engine.subscribe(c);
    QVERIFY(engine.start().ok());
    QVERIFY(c->waitSamples(2));
    QCOMPARE(allowedOf(tidOf(engine, "poll")), b);
    QCOMPARE(allowedOf(tidOf(engine, "txclean")), a);
    QCOMPARE(allowedOf(tidOf(engine, "refill")), a);
    QCOMPARE(allowedOf(tidOf(engine, "sampler")), a);
    // The environment the session stores reads the same.
    engine.stop();
    bool found = false;
    for (const auto &f : engine.threadPlacement().facts)
        if (f.key == "thread.affinity[poll]") {
            QCOMPARE(f.value, b);
            found = true;
        }
    QVERIFY(found);
}

void TstPlacement::aLiveChangeMovesTheRunningThreads()
{
    const auto cpus = processCpus();
    const std::string first = std::to_string(cpus.front()), last = std::to_string(cpus.back());
    Engine engine(params(quietRun()), simFactory(), EngineOptions{50'000'000});
    auto c = std::make_shared<Collector>();
    engine.subscribe(c);
    QVERIFY(engine.start().ok());
    QVERIFY(c->waitSamples(2));
    const pid_t poll = tidOf(engine, "poll"), clean = tidOf(engine, "txclean");
    Status st = engine.apply({{"threads.poll_cpu", last}, {"threads.clean_cpu", first}}, "test");
    QVERIFY2(st.ok(), st.error.c_str());
    // The same threads, moved: nothing was restarted.
    QCOMPARE(tidOf(engine, "poll"), poll);
    QCOMPARE(allowedOf(poll), last);
    QCOMPARE(allowedOf(clean), first);
    // A restart rebuilds the datapath: its new threads start where the tunables say.
    st = engine.apply({{"rx.ring_size", "2048"}}, "test");
    QVERIFY2(st.ok(), st.error.c_str());
    // The new threads enter the registry as they start, after apply() returned.
    QTRY_VERIFY_WITH_TIMEOUT(tidOf(engine, "poll") > 0 && tidOf(engine, "poll") != poll &&
                                 tidOf(engine, "txclean") > 0 && tidOf(engine, "txclean") != clean,
                             10000);
    QCOMPARE(allowedOf(tidOf(engine, "poll")), last);
    QCOMPARE(allowedOf(tidOf(engine, "txclean")), first);
    // Back to any: every allowed CPU again.
    st = engine.apply({{"threads.poll_cpu", "any"}, {"threads.clean_cpu", "any"}}, "test");
    QVERIFY2(st.ok(), st.error.c_str());
    QCOMPARE(allowedOf(tidOf(engine, "poll")), cpuListText(cpus));
    QCOMPARE(engine.params().text(TunableId::ThreadsPollCpu), std::string("any"));
    QVERIFY(c->waitSamples(c->samples().size() + 2)); // and the run goes on
    engine.stop();
    const auto ev = c->events();
    QVERIFY(std::any_of(ev.begin(), ev.end(), [](const Event &e) {
        return e.kind == "param" && e.tunable == "threads.poll_cpu" && e.after == "any";
    }));
}

void TstPlacement::badCpusAreRefusedAndChangeNothing()
{
    // Parsing: words and numbers outside the range name what is allowed.
    ParamSet ps;
    Status st = ps.set("threads.poll_cpu", "two");
    QVERIFY(!st.ok());
    QVERIFY2(st.error.find("any or 0..1023") != std::string::npos, st.error.c_str());
    QVERIFY(!ps.set("threads.poll_cpu", "-2").ok());
    QVERIFY(!ps.set("threads.poll_cpu", "1024").ok());

    // A CPU this machine does not have (or this process may not use).
    const auto cpus = processCpus();
    int missing = 0;
    while (std::find(cpus.begin(), cpus.end(), missing) != cpus.end())
        ++missing;
    const std::string m = std::to_string(missing);
    Engine refused(params(quietRun({{"threads.clean_cpu", m}})), simFactory(),
                   EngineOptions{50'000'000});
    st = refused.start();
    QVERIFY(!st.ok());
    QVERIFY(!refused.running());
    QVERIFY2(st.error.find("threads.clean_cpu: CPU " + m + " is") != std::string::npos,
             st.error.c_str());
    QVERIFY2(st.error.find("offline") != std::string::npos ||
                 st.error.find("outside the CPUs this process may use") != std::string::npos,
             st.error.c_str());

    // Live: refused, every value and every thread as it was.
    Engine engine(params(quietRun()), simFactory(), EngineOptions{50'000'000});
    auto c = std::make_shared<Collector>();
    engine.subscribe(c);
    QVERIFY(engine.start().ok());
    QVERIFY(c->waitSamples(2));
    const std::string before = allowedOf(tidOf(engine, "poll"));
    st = engine.apply(
        {{"threads.poll_cpu", std::to_string(cpus.front())}, {"threads.sampler_cpu", m}}, "test");
    QVERIFY(!st.ok());
    QVERIFY2(st.error.find("threads.sampler_cpu: CPU " + m) != std::string::npos, st.error.c_str());
    QCOMPARE(engine.params().text(TunableId::ThreadsPollCpu), std::string("any"));
    QCOMPARE(allowedOf(tidOf(engine, "poll")), before);
    engine.stop();
}

void TstPlacement::fifoIsAppliedOrRefusedByPrivilege()
{
    Engine engine(params(quietRun()), simFactory(), EngineOptions{50'000'000});
    auto c = std::make_shared<Collector>();
    engine.subscribe(c);
    QVERIFY(engine.start().ok());
    QVERIFY(c->waitSamples(2));
    const pid_t poll = tidOf(engine, "poll");
    // The poll thread sleeps between passes at this rate: fifo does not take a CPU away.
    const Status st =
        engine.apply({{"threads.poll_policy", "fifo"}, {"threads.poll_priority", "10"}}, "test");
    // Whether this process may take fifo at 10, asked of the kernel on a thread of its own.
    bool allowed = false;
    std::thread([&] {
        sched_param sp{};
        sp.sched_priority = 10;
        allowed = sched_setscheduler(0, SCHED_FIFO, &sp) == 0;
    }).join();
    if (allowed) {
        QVERIFY2(st.ok(), st.error.c_str());
        QCOMPARE(policyOf(poll), std::make_pair(int(SCHED_FIFO), 10));
        QCOMPARE(policyOf(tidOf(engine, "txclean")).first, SCHED_OTHER); // the poll thread only
        QVERIFY(engine.apply({{"threads.poll_policy", "other"}}, "test").ok());
        QCOMPARE(policyOf(poll), std::make_pair(int(SCHED_OTHER), 0));
    } else {
        QVERIFY(!st.ok());
        QVERIFY2(st.error.find("threads.poll_policy: fifo") != std::string::npos &&
                     st.error.find("CAP_SYS_NICE") != std::string::npos,
                 st.error.c_str());
        QCOMPARE(policyOf(poll).first, SCHED_OTHER);
    }
    QVERIFY(c->waitSamples(c->samples().size() + 2));
    engine.stop();
}

QTEST_GUILESS_MAIN(TstPlacement)
#include "tst_placement.moc"
