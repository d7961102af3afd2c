// SPDX-License-Identifier: GPL-2.0-or-later
// The run service, the one place a run is set up: a profile and overrides resolved with
// errors that name the culprit; a recorded run from start to its session's final status,
// with live changes, a refusal and a mark; and starts that fail leave nothing behind.
#include <QTemporaryDir>
#include <QtTest>
#include <algorithm>
#include <fstream>
#include <mutex>

#include "drivers/registry.h"
#include "drivers/registry_devices.h"
#include "engine/run/run_service.h"
#include "test_support.h"

using namespace ringlab;
using namespace ringlab::test;

class TstRunService : public QObject {
    Q_OBJECT
  private slots:
    void init();
    void profileAndOverridesResolve();
    void badProfilesAndOverridesAreNamed();
    void devicesStartFromTheirOwnDefaults();
    void recordedRunFromStartToStop();
    void aSessionDeletedWhileRecordedIsSaidOnce();
    void unrecordedRunKeepsNoSession();
    void refusedDeviceLeavesNothing();
    void readOnlyDatabaseIsRefusedBeforeTheDevice();
    void secondStartWhileRunningIsRefused();
    void goneWithAnExceptionTheSessionFailed();

  private:
    std::filesystem::path writeProfile(const std::string &name, const std::string &text);
    std::unique_ptr<QTemporaryDir> dir_;
};

void TstRunService::init()
{
    dir_ = std::make_unique<QTemporaryDir>();
    QVERIFY(dir_->isValid());
}

std::filesystem::path TstRunService::writeProfile(const std::string &name, const std::string &text)
{
    const std::filesystem::path file = dir_->filePath(QString::fromStdString(name)).toStdString();
    std::ofstream(file) << text;
    return file;
}

void TstRunService::profileAndOverridesResolve()
{
    const auto file = writeProfile("p.json", R"({"name": "p", "device": "dpdk:net_null0",
        "params": {"poll.mode": "sleep", "poll.sleep_min_us": 100, "poll.sleep_max_us": 200}})");
    Assignments overrides;
    QVERIFY(parseAssignments({"poll.sleep_min_us=1000", "poll.sleep_max_us=2000"}, overrides).ok());
    ResolvedProfile r;
    // The pair moves in the order given: validated together, not one by one.
    const Status st = resolveProfile(file.string(), overrides, r, {}, deviceDefaults);
    QVERIFY2(st.ok(), st.error.c_str());
    QCOMPARE(r.profile.name, std::string("p"));
    QCOMPARE(r.profile.device, std::string("dpdk:net_null0")); // the profile's device is kept
    QCOMPARE(r.params.text(TunableId::PollSleepMinUs), std::string("1000"));
    QCOMPARE(r.params.text(TunableId::PollSleepMaxUs), std::string("2000"));
}

void TstRunService::devicesStartFromTheirOwnDefaults()
{
    // The lab held each frame up to 1 ms in the TX coalesce timer (ping 2.8 ms against
    // 0.49 ms with every frame flushed): DPDK ports and the lab drain as l2fwd does.
    const auto file = writeProfile("plain.json", R"({"name": "plain", "device": "sim",
        "params": {"poll.mode": "sleep"}})");
    const auto tx = [&](const std::string &device, const Assignments &sets = {}) {
        ResolvedProfile r;
        const Status st = resolveProfile(file.string(), sets, r, device, deviceDefaults);
        if (!st.ok()) qFatal("%s", st.error.c_str());
        return r.params.text(TunableId::TxCoalesceUsecs) + "/" +
               r.params.text(TunableId::TxCoalesceFrames);
    };
    const ParamSet registry;
    const std::string simDefaults = registry.text(TunableId::TxCoalesceUsecs) + "/" +
                                    registry.text(TunableId::TxCoalesceFrames);
    QCOMPARE(tx("sim"), simDefaults);
    QCOMPARE(tx(""), simDefaults); // the profile's device
    QCOMPARE(tx("lab"), std::string("100/32"));
    QCOMPARE(tx("dpdk:net_null0"), std::string("100/32"));
    QCOMPARE(tx("dpdk:net_null0+net_null1"), std::string("100/32"));
    // The profile and --set still decide.
    QCOMPARE(tx("lab", {{"tx.coalesce_frames", "1"}}), std::string("100/1"));
    const auto lab = writeProfile("lab.json", R"({"name": "lab", "device": "lab",
        "params": {"tx.coalesce_usecs": 1000}})");
    ResolvedProfile r;
    QVERIFY(resolveProfile(lab.string(), {}, r, {}, deviceDefaults).ok());
    QCOMPARE(r.params.text(TunableId::TxCoalesceUsecs), std::string("1000"));
    QCOMPARE(r.params.text(TunableId::TxCoalesceFrames), std::string("32"));

    // A profile written for another device keeps its values but for what the device sets
    // itself: the simulated NIC's 100,000 a second is not the kernel lab's client's rate.
    const auto sim = writeProfile("fast.json", R"({"name": "fast", "device": "sim",
        "params": {"load.rate_pps": 100000, "tx.coalesce_usecs": 7, "poll.mode": "busy"}})");
    QVERIFY(resolveProfile(sim.string(), {}, r, "kernel-lab", deviceDefaults).ok());
    QCOMPARE(r.params.text(TunableId::LoadRatePps), std::string("20000"));
    QCOMPARE(r.params.text(TunableId::TxCoalesceUsecs), std::string("100"));
    QCOMPARE(r.params.text(TunableId::PollMode), std::string("busy"));
    QVERIFY(
        resolveProfile(sim.string(), {{"load.rate_pps", "50000"}}, r, "kernel-lab", deviceDefaults)
            .ok());
    QCOMPARE(r.params.text(TunableId::LoadRatePps), std::string("50000")); // --set decides
    // Written for the kernel lab: its own values stand.
    const auto kl = writeProfile("kl.json", R"({"name": "kl", "device": "kernel-lab",
        "params": {"load.rate_pps": 100000}})");
    QVERIFY(resolveProfile(kl.string(), {}, r, "kernel-lab", deviceDefaults).ok());
    QCOMPARE(r.params.text(TunableId::LoadRatePps), std::string("100000"));
}

void TstRunService::badProfilesAndOverridesAreNamed()
{
    Assignments a;
    Status st = parseAssignments({"poll.mode"}, a);
    QVERIFY(!st.ok());
    QVERIFY2(st.error.find("\"poll.mode\"") != std::string::npos &&
                 st.error.find("NAME=VALUE") != std::string::npos,
             st.error.c_str());

    ResolvedProfile r;
    st = resolveProfile((dir_->path() + "/missing.json").toStdString(), {}, r, {}, deviceDefaults);
    QVERIFY(!st.ok());
    QVERIFY2(st.error.find("missing.json") != std::string::npos, st.error.c_str());

    const auto file = writeProfile("q.json", R"({"name": "q", "params": {"poll.mode": "sleep"}})");
    st = resolveProfile(file.string(), {{"poll.sleep_min_us", "-5"}}, r, {}, deviceDefaults);
    QVERIFY(!st.ok());
    QVERIFY2(st.error.rfind("--set: ", 0) == 0 &&
                 st.error.find("poll.sleep_min_us") != std::string::npos &&
                 st.error.find("-5") != std::string::npos,
             st.error.c_str());
}

void TstRunService::recordedRunFromStartToStop()
{
    SessionStore store(dir_->filePath("s.db").toStdString());
    RunSetup setup;
    setup.params = params({{"load.rate_pps", "50000"}});
    setup.profile = "default";
    setup.sessionName = "service run";
    setup.atStart = {{0, "mark", "", "", "", "test", "before the start"}};
    std::vector<std::string> errors;
    RunService service(registryDevices(), [&](const std::string &m) { errors.push_back(m); });
    auto c = std::make_shared<Collector>();
    const Status st = service.start(setup, &store, {c});
    QVERIFY2(st.ok(), st.error.c_str());
    QVERIFY(service.running());
    QVERIFY(service.sessionId() > 0);
    QVERIFY(c->waitSamples(3));

    // A refusal names the tunable and changes nothing; a valid pair applies as one change.
    const Status refused = service.apply({{"poll.sleep_min_us", "5000"}}, "test");
    QVERIFY(!refused.ok());
    QVERIFY2(refused.error.find("poll.sleep_min_us") != std::string::npos, refused.error.c_str());
    QVERIFY(
        service.apply({{"poll.sleep_min_us", "300"}, {"poll.sleep_max_us", "400"}}, "test").ok());
    QCOMPARE(service.params().text(TunableId::PollSleepMinUs), std::string("300"));
    service.mark("after the change");
    QVERIFY(c->waitSamples(6));

    const std::int64_t id = service.sessionId();
    const RunOutcome out = service.stop("completed");
    QVERIFY(!service.running());
    QCOMPARE(out.session, id);
    QVERIFY(out.samplesWritten >= 6);
    QCOMPARE(out.samplesLost, std::uint64_t{0});
    QVERIFY(errors.empty());

    SessionInfo info;
    QVERIFY(store.get(id, info));
    QCOMPARE(info.name, std::string("service run"));
    QCOMPARE(info.profile, std::string("default"));
    QCOMPARE(info.device, std::string("sim0"));
    QCOMPARE(info.status, std::string("completed"));
    QCOMPARE(info.intervalS, 0.1);
    QCOMPARE(static_cast<std::uint64_t>(info.sampleCount), out.samplesWritten);
    const auto changes = store.changes(id);
    QCOMPARE(changes.size(), std::size_t{2});
    QCOMPARE(changes[0].t, changes[1].t);
    QStringList marks;
    for (const auto &e : store.events(id))
        if (e.kind == "mark") marks << QString::fromStdString(e.message);
    QCOMPARE(marks, QStringList({"before the start", "after the change"}));
    // Stopping again is harmless and says which session it was.
    QCOMPARE(service.stop().session, id);
}

// Deleted under the run (by hand, or a session wrongly thought interrupted): its rows cannot
// outlive it (schema 6), so the run goes on, says so once and counts what it could not keep.
void TstRunService::aSessionDeletedWhileRecordedIsSaidOnce()
{
    const std::string file = dir_->filePath("gone.db").toStdString();
    SessionStore store(file);
    std::mutex m;
    std::vector<std::string> errors; // from the recorder's thread
    auto deletedSaid = [&] {
        std::lock_guard lock(m);
        return std::count_if(errors.begin(), errors.end(), [](const std::string &e) {
            return e.find("was deleted while it was recorded") != std::string::npos;
        });
    };
    RunService service(registryDevices(), [&](const std::string &e) {
        std::lock_guard lock(m);
        errors.push_back(e);
    });
    auto c = std::make_shared<Collector>();
    RunSetup setup;
    setup.params = params({});
    setup.profile = "default";
    QVERIFY(service.start(setup, &store, {c}).ok());
    QVERIFY(c->waitSamples(3));
    const std::int64_t id = service.sessionId();
    {
        SessionStore other(file);
        QVERIFY(other.deleteSession(id));
    }
    QTRY_VERIFY_WITH_TIMEOUT(deletedSaid() == 1, 20'000);
    // More flushes go by: still said once, and the run goes on.
    QVERIFY(c->waitSamples(c->samples().size() + 25));
    QVERIFY(service.running());
    const RunOutcome out = service.stop("completed");
    QCOMPARE(deletedSaid(), 1);
    QVERIFY(out.samplesLost > 0);
    QVERIFY2(out.recordError.find("session " + std::to_string(id) + " was deleted") !=
                 std::string::npos,
             out.recordError.c_str());
    SessionInfo info;
    QVERIFY(!store.get(id, info)); // not brought back
}

void TstRunService::unrecordedRunKeepsNoSession()
{
    RunService service(registryDevices());
    RunSetup setup;
    setup.params = params({});
    setup.profile = "default";
    auto c = std::make_shared<Collector>();
    QVERIFY(service.start(setup, nullptr, {c}).ok());
    QVERIFY(c->waitSamples(2));
    const RunOutcome out = service.stop();
    QCOMPARE(out.session, std::int64_t{0});
    QCOMPARE(out.samplesWritten, std::uint64_t{0});
}

void TstRunService::refusedDeviceLeavesNothing()
{
    SessionStore store(dir_->filePath("s.db").toStdString());
    RunService service(registryDevices());
    RunSetup setup;
    setup.params = params({});
    setup.profile = "default";
    setup.device.spec = "nonsense0";
    Status st = service.start(setup, &store);
    QVERIFY(!st.ok());
    QCOMPARE(st.outcome(), Outcome::Refused);
    QVERIFY2(st.error.find("nonsense0") != std::string::npos, st.error.c_str());
    // A device that refuses the values: poll.mode=interrupt on a port without interrupts.
    setup.device.spec = "dpdk:net_null0";
    setup.params = params({{"poll.mode", "interrupt"}});
    st = service.start(setup, &store);
    QVERIFY(!st.ok());
    QVERIFY2(st.error.find("interrupt") != std::string::npos, st.error.c_str());
    QVERIFY(!service.running());
    QVERIFY(store.list().empty()); // no session, not even an empty one
}

void TstRunService::readOnlyDatabaseIsRefusedBeforeTheDevice()
{
    const std::filesystem::path file = dir_->filePath("ro.db").toStdString();
    {
        SessionStore create(file);
    }
    SessionStore store(file, Db::Mode::ReadOnly);
    RunService service(registryDevices());
    RunSetup setup;
    setup.params = params({});
    const Status st = service.start(setup, &store);
    QVERIFY(!st.ok());
    QCOMPARE(st.outcome(), Outcome::Refused);
    QVERIFY2(st.error.find("read-only") != std::string::npos &&
                 st.error.find("ro.db") != std::string::npos,
             st.error.c_str());
    QVERIFY(!service.running());
}

void TstRunService::secondStartWhileRunningIsRefused()
{
    RunService service(registryDevices());
    RunSetup setup;
    setup.params = params({});
    QVERIFY(service.start(setup, nullptr).ok());
    const Status again = service.start(setup, nullptr);
    QVERIFY(!again.ok());
    QVERIFY2(again.error.find("already") != std::string::npos, again.error.c_str());
    QVERIFY(service.running());
    service.stop();
}

QTEST_GUILESS_MAIN(TstRunService)
void TstRunService::goneWithAnExceptionTheSessionFailed()
{
    SessionStore store(dir_->filePath("s.db").toStdString());
    RunSetup setup;
    setup.params = params({});
    setup.profile = "default";
    const auto runThenLeave = [&](bool throwing) {
        RunService service(registryDevices());
        auto c = std::make_shared<Collector>();
        if (!service.start(setup, &store, {c}).ok()) return std::int64_t{-1};
        const std::int64_t id = service.sessionId();
        if (!c->waitSamples(2)) return std::int64_t{-2};
        if (throwing) throw id; // the caller failed with the run going
        return id;              // the caller returned with the run going
    };
    std::int64_t failed = 0;
    try {
        runThenLeave(true);
    } catch (std::int64_t id) {
        failed = id;
    }
    const std::int64_t completed = runThenLeave(false);
    QVERIFY(failed > 0 && completed > 0);
    SessionInfo a, b;
    QVERIFY(store.get(failed, a) && store.get(completed, b));
    QCOMPARE(a.status, std::string("failed"));
    QCOMPARE(b.status, std::string("completed"));
}

#include "tst_run_service.moc"
