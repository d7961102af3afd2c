// SPDX-License-Identifier: GPL-2.0-or-later
#include <QtTest>
#include <set>

#include "drivers/kernel/udp_app_device.h"
#include "drivers/sim/sim_nic.h"
#include "engine/datapath/device.h"
#include "engine/datapath/live_params.h"
#include "engine/datapath/tunables.h"

using namespace ringlab;

class TstTunables : public QObject {
    Q_OBJECT
  private slots:
    void everyTunable_data();
    void everyTunable();
    void namesAreUniqueAndCanonical();
    void aFamilysTunableIsIgnoredElsewhere();
    void unknownNameSuggests();
    void crossFieldRules();
    void rejectionKeepsOldValue();
    void batchIsAllOrNothing();
    void changesAreReported();
    void liveParamsMirrorValues();
    void poolIsCappedAtTwiceWhatCanBeInFlight();
};

void TstTunables::everyTunable_data()
{
    QTest::addColumn<int>("index");
    for (const auto &t : tunables())
        QTest::newRow(std::string(t.name).c_str()) << static_cast<int>(t.id);
}

static std::string fmt(double v)
{
    char b[64];
    std::snprintf(b, sizeof b, "%.17g", v);
    return b;
}

void TstTunables::everyTunable()
{
    QFETCH(int, index);
    const TunableInfo &t = tunables()[static_cast<std::size_t>(index)];
    QCOMPARE(static_cast<int>(t.id), index);
    QVERIFY2(!t.help.empty() && helpText(t).size() > 40, "every tunable explains itself");
    if (t.type == Type::Choice) {
        // A strategy family's table gives every member a phrase; its values are the range.
        QVERIFY(t.choiceHelp.empty() || t.choiceHelp.size() == t.choices.size());
        for (auto h : t.choiceHelp)
            QVERIFY(h.size() > 5);
        QCOMPARE(t.max, static_cast<double>(t.choices.size() - 1));
    }
    QVERIFY(!t.group.empty());

    // The default is valid: setting it explicitly is accepted and changes nothing.
    ParamSet ps;
    std::vector<Change> changes;
    const std::string def = ps.text(t.id);
    QVERIFY2(ps.set(t.name, def, &changes).ok(), def.c_str());
    QVERIFY(changes.empty());

    auto expectRejected = [&](const std::string &value) {
        ParamSet p;
        const std::string before = p.text(t.id);
        const Status st = p.set(t.name, value);
        QVERIFY2(!st.ok(), (std::string(t.name) + "=" + value + " was accepted").c_str());
        QVERIFY2(st.error.find(std::string(t.name)) != std::string::npos, st.error.c_str());
        QVERIFY2(st.error.find(value) != std::string::npos, st.error.c_str());
        QVERIFY2(st.error.find("allowed") != std::string::npos, st.error.c_str());
        QCOMPARE(p.text(t.id), before);
    };

    switch (t.type) {
    case Type::Integer:
        expectRejected(fmt(t.min - 1));
        expectRejected(fmt(t.max + 1));
        expectRejected("abc");
        expectRejected("12x");
        expectRejected("1.5");
        break;
    case Type::Real:
        expectRejected(fmt(t.min - 1));
        expectRejected(fmt(t.max + 1));
        expectRejected("abc");
        expectRejected("nan");
        break;
    case Type::Choice:
        expectRejected("no_such_choice");
        expectRejected("1");
        for (auto c : t.choices) {
            ParamSet p;
            std::vector<Change> ch;
            // Every choice is accepted on its own (cross rules never involve choices).
            QVERIFY2(p.set(t.name, c, &ch).ok(), std::string(c).c_str());
            QCOMPARE(p.text(t.id), std::string(c));
        }
        break;
    case Type::Flag:
        expectRejected("maybe");
        expectRejected("2");
        break;
    }
}

void TstTunables::namesAreUniqueAndCanonical()
{
    std::set<std::string_view> names;
    for (const auto &t : tunables())
        QVERIFY2(names.insert(t.name).second, std::string(t.name).c_str());
    // The canonical names of DESIGN.md.
    for (const char *n :
         {"load.rate_pps",     "load.frame_bytes",  "load.pattern",       "load.burst_on_us",
          "load.burst_off_us", "link.mbps",         "probe.rate_hz",      "rx.ring_size",
          "rx.pool_buffers",   "refill.context",    "refill.threshold",   "refill.batch",
          "refill.retry_ms",   "poll.mode",         "poll.sleep_min_us",  "poll.sleep_max_us",
          "poll.tick_hz",      "poll.budget",       "irq.usecs",          "irq.frames",
          "tx.ring_size",      "tx.coalesce_usecs", "tx.coalesce_frames", "tx.timer_policy",
          "handoff.mode",      "handoff.queue_len", "workqueue.threads",  "proc.ns_per_packet",
          "proc.copy",         "tx.header",         "stress.threads",     "stress.duty_pct"})
        QVERIFY2(findTunable(n) != nullptr, n);
    QCOMPARE(info(TunableId::RxRingSize).apply, Apply::Restart);
    QCOMPARE(info(TunableId::RefillThreshold).apply, Apply::Live);
}

void TstTunables::unknownNameSuggests()
{
    ParamSet ps;
    const Status st = ps.set("poll.mod", "busy");
    QVERIFY(!st.ok());
    QVERIFY2(st.error.find("unknown tunable \"poll.mod\"") != std::string::npos, st.error.c_str());
    QVERIFY2(st.error.find("did you mean poll.mode") != std::string::npos, st.error.c_str());
    const Status far = ps.set("completely.wrong", "1");
    QVERIFY(!far.ok());
    QVERIFY2(far.error.find("ringlab-engine params") != std::string::npos, far.error.c_str());
}

void TstTunables::crossFieldRules()
{
    ParamSet ps;
    QVERIFY(
        ps.set({{"poll.sleep_min_us", "300"}, {"poll.sleep_max_us", "300"}}).ok()); // min == max
    Status st = ps.set("poll.sleep_min_us", "301");
    QVERIFY(!st.ok());
    QVERIFY2(st.error.find("poll.sleep_min_us") != std::string::npos, st.error.c_str());
    QVERIFY2(st.error.find("poll.sleep_max_us (300)") != std::string::npos, st.error.c_str());

    st = ps.set("refill.threshold", "1024"); // == rx.ring_size
    QVERIFY(!st.ok());
    QVERIFY2(st.error.find("less than rx.ring_size (1024)") != std::string::npos, st.error.c_str());
    QVERIFY(ps.set("refill.threshold", "1023").ok());
    // Shrinking the ring below the threshold is refused too.
    QVERIFY(!ps.set("rx.ring_size", "512").ok());
    QVERIFY(ps.set({{"rx.ring_size", "512"}, {"refill.threshold", "100"}}).ok());

    QVERIFY(!ps.set("tx.coalesce_frames", "1024").ok());
    QVERIFY(!ps.set("rx.ring_size", "1000").ok()); // not a power of two
    QVERIFY(!ps.set("tx.ring_size", "3000").ok());
    QVERIFY(ps.set("tx.ring_size", "4096").ok());
}

void TstTunables::rejectionKeepsOldValue()
{
    ParamSet ps;
    QVERIFY(ps.set("poll.budget", "128").ok());
    QVERIFY(!ps.set("poll.budget", "0").ok());
    QCOMPARE(ps.integer(TunableId::PollBudget), 128);
    QVERIFY(!ps.set("poll.mode", "spin").ok());
    QCOMPARE(ps.choice<PollMode>(TunableId::PollMode), PollMode::Sleep);
}

void TstTunables::poolIsCappedAtTwiceWhatCanBeInFlight()
{
    // 1048576 buffers once took 16-30 s of page faults and 4.3 GB before a 1 s run. The
    // rings and the hand-off queue at their largest hold 131072; the cap is twice that.
    const TunableInfo &rx = *findTunable("rx.ring_size");
    const TunableInfo &tx = *findTunable("tx.ring_size");
    const TunableInfo &q = *findTunable("handoff.queue_len");
    const TunableInfo &pool = *findTunable("rx.pool_buffers");
    QCOMPARE(pool.max, 2 * (rx.max + tx.max + q.max));
    ParamSet ps;
    QVERIFY(ps.set("rx.pool_buffers", "262144").ok());
    const Status st = ps.set("rx.pool_buffers", "1048576");
    QCOMPARE(st.error,
             std::string("rx.pool_buffers: \"1048576\" is out of range (allowed: 64..262144 "
                         "buffers)"));
    QCOMPARE(ps.integer(TunableId::RxPoolBuffers), 262144);
}

void TstTunables::batchIsAllOrNothing()
{
    ParamSet ps;
    const Status st = ps.set({{"poll.budget", "32"}, {"irq.frames", "0"}});
    QVERIFY(!st.ok());
    QCOMPARE(ps.integer(TunableId::PollBudget), 64); // the valid half was not applied
    QVERIFY(ps.set({{"poll.sleep_min_us", "2000"}, {"poll.sleep_max_us", "3000"}}).ok());
    QCOMPARE(ps.integer(TunableId::PollSleepMinUs), 2000);
}

void TstTunables::changesAreReported()
{
    ParamSet ps;
    std::vector<Change> ch;
    QVERIFY(ps.set({{"poll.mode", "busy"}, {"poll.budget", "64"}, {"stress.duty_pct", "12.5"}}, &ch)
                .ok());
    QCOMPARE(ch.size(), std::size_t{2}); // poll.budget kept its value
    QCOMPARE(ch[0].id, TunableId::PollMode);
    QCOMPARE(ParamSet::format(info(TunableId::PollMode), ch[0].before), std::string("sleep"));
    QCOMPARE(ParamSet::format(info(TunableId::PollMode), ch[0].after), std::string("busy"));
    QCOMPARE(ps.real(TunableId::StressDutyPct), 12.5);
    QCOMPARE(ps.text(TunableId::StressDutyPct), std::string("12.5"));
}

void TstTunables::liveParamsMirrorValues()
{
    ParamSet ps;
    QVERIFY(
        ps.set({{"stress.duty_pct", "33.25"}, {"proc.copy", "true"}, {"tx.header", "per_packet"}})
            .ok());
    LiveParams live(ps);
    QCOMPARE(live.real(TunableId::StressDutyPct), 33.25);
    QVERIFY(live.flag(TunableId::ProcCopy));
    QCOMPARE(live.choice<HeaderMode>(TunableId::TxHeader), HeaderMode::PerPacket);
    QCOMPARE(live.integer(TunableId::RxRingSize), 1024);
}

// A tunable that one family of devices applies (the registry's onlyOn, the kernel groups) is
// ignored by every other device without a word of theirs, with the registry's reason; a
// device's own row for it wins.
void TstTunables::aFamilysTunableIsIgnoredElsewhere()
{
    auto supportOf = [](const std::vector<TunableSupport> &list, std::string_view name) {
        const TunableId id = findTunable(name)->id;
        for (const TunableSupport &s : list)
            if (s.id == id) return std::optional<TunableSupport>(s);
        return std::optional<TunableSupport>();
    };
    const auto sim = completeSupport(DeviceFamily::Simulated, {});
    const auto dpdk = completeSupport(DeviceFamily::Dpdk, {});
    const auto kernel = completeSupport(DeviceFamily::Kernel, {});
    for (const char *name : {"fwd.direct_pass", "rx.pool_memory"}) {
        QVERIFY(!supportOf(dpdk, name));
        for (const auto *other : {&sim, &kernel}) {
            const auto s = supportOf(*other, name);
            QVERIFY2(s && s->support == Support::Ignored, name);
            QVERIFY2(s->reason == findTunable(name)->elsewhere, s->reason.c_str());
        }
    }
    QVERIFY(!supportOf(kernel, "sock.busy_poll_us"));
    QVERIFY(supportOf(sim, "sock.busy_poll_us")->reason.find("kernel") != std::string::npos);
    QVERIFY(supportOf(dpdk, "napi.threaded").has_value());
    // Every device applies the engine's own tunables.
    for (const auto *list : {&sim, &dpdk, &kernel})
        QVERIFY(!supportOf(*list, "poll.sleep_min_us"));
    // A device that says something of a family's tunable keeps its word.
    const auto fixed =
        completeSupport(DeviceFamily::Simulated,
                        {{findTunable("fwd.direct_pass")->id, Support::Fixed, "only 0 here"}});
    QCOMPARE(supportOf(fixed, "fwd.direct_pass")->support, Support::Fixed);
    // The devices themselves: the simulated NIC ignores the DPDK and kernel tunables, the
    // kernel lab applies its own and ignores DPDK's.
    ParamSet ps;
    LiveParams live(ps);
    const auto simNic = sim::SimNic(ps, live).support();
    for (const char *name : {"fwd.direct_pass", "rx.pool_memory", "sock.busy_poll_us"})
        QVERIFY2(supportOf(simNic, name) && supportOf(simNic, name)->support == Support::Ignored,
                 name);
    const auto lab = kernel::UdpAppDevice::supportFor(true);
    QVERIFY(supportOf(lab, "fwd.direct_pass")->support == Support::Ignored);
    for (const char *name : {"sock.busy_poll_us", "napi.threaded", "poll.sleep_min_us"}) {
        const auto s = supportOf(lab, name);
        QVERIFY2(!s || s->support != Support::Ignored, name);
    }
    // Every tunable of one family says why the others ignore it.
    for (const TunableInfo &t : tunables())
        if (appliedOnlyBy(t) != DeviceFamily::Any)
            QVERIFY2(!ignoredElsewhereWhy(t).empty(), std::string(t.name).c_str());
}

QTEST_GUILESS_MAIN(TstTunables)
#include "tst_tunables.moc"
