// SPDX-License-Identifier: GPL-2.0-or-later
// One NAPI's own settings through netdev generic netlink (issue 44, part 2), on a veth pair the
// test makes (tests/veth_pair.h): the family and what napi-set takes are read from the kernel's
// policy; the veth's NAPI is listed with its id and ifindex; defer-hard-irqs,
// gro-flush-timeout, irq-suspend-timeout and threaded are set on that one NAPI through the
// settings journal, read back from the kernel, and put back, with the device-wide sysfs files
// left as they were; values out of the policy's range and attributes the kernel lacks are
// refused by name; after kill -9 of the process that set them, the next start puts them back.
// As root (CI, where its absence fails); skipped elsewhere.
#include <QTemporaryDir>
#include <QtTest>
#include <csignal>
#include <map>
#include <net/if.h>
#include <sys/wait.h>
#include <unistd.h>

#include "drivers/host/netdev_napi.h"
#include "drivers/host/settings_journal.h"
#include "drivers/kernel/napi_sysfs.h"
#include "tests/require.h"
#include "tests/veth_pair.h"

using namespace ringlab;
using namespace ringlab::host;

class TstNetdevNapi : public QObject {
    Q_OBJECT
  private slots:
    void initTestCase();
    void cleanupTestCase();
    void init();
    void theFamilyAndWhatNapiSetTakesAreReadFromTheKernel();
    void theVethsNapiIsListed();
    void oneNapiIsSetReadBackAndRestoredLeavingTheSysfsFiles();
    void threadedPerNapiStartsItsKthread();
    void outOfRangeAndUnknownAreRefusedByName();
    void killedMidRunTheNextStartPutsThemBack();

  private:
    NapiInstance current() const
    {
        NetdevNetlink nl;
        NapiInstance n;
        if (const Status st = NetdevNetlink::open(nl); !st.ok()) qFatal("%s", st.error.c_str());
        if (const Status st = nl.napi(napi_.id, n); !st.ok()) qFatal("%s", st.error.c_str());
        return n;
    }
    std::string sysfs(const char *knob) const
    {
        std::string v;
        if (const Status st = kernel::readNapiKnob(veth_->dev(), *kernel::findNapiKnob(knob), v);
            !st.ok())
            qFatal("%s", st.error.c_str());
        return v;
    }
    std::unique_ptr<test::VethPair> veth_;
    NapiInstance napi_; // the veth's NAPI as it was at the start
    std::unique_ptr<QTemporaryDir> dir_;
};

void TstNetdevNapi::initTestCase()
{
    RINGLAB_REQUIRE(::geteuid() == 0, "root, for a veth pair and napi-set");
    veth_ = std::make_unique<test::VethPair>("n");
    const QString made = veth_->make();
    QVERIFY2(made.isEmpty(), qPrintable(made));
    NetdevNetlink nl;
    const Status st = NetdevNetlink::open(nl);
    QVERIFY2(st.ok(), st.error.c_str());
    std::vector<NapiInstance> napis;
    const std::uint32_t ifindex = ::if_nametoindex(veth_->dev().c_str());
    QVERIFY(ifindex > 0);
    QVERIFY(nl.napis(ifindex, napis).ok());
    QVERIFY2(!napis.empty(), "the veth has no NAPI with GRO on");
    napi_ = napis.front();
}

void TstNetdevNapi::cleanupTestCase()
{
    veth_.reset();
}

void TstNetdevNapi::init()
{
    dir_ = std::make_unique<QTemporaryDir>();
    QVERIFY(dir_->isValid());
}

void TstNetdevNapi::theFamilyAndWhatNapiSetTakesAreReadFromTheKernel()
{
    NetdevNetlink nl;
    QVERIFY(NetdevNetlink::open(nl).ok());
    std::vector<NapiAttrLimits> limits;
    const Status st = nl.settable(limits);
    QVERIFY2(st.ok(), st.error.c_str());
    // Linux 6.18's policy (net/core/netdev-genl-gen.c): defer-hard-irqs is a u32 up to S32_MAX,
    // the two timeouts unsigned integers of any width, threaded 0 to 2.
    std::map<std::string, NapiAttrLimits> by;
    for (const auto &l : limits)
        by[std::string(l.attr->name)] = l;
    QVERIFY(by.count("defer-hard-irqs") && by.count("gro-flush-timeout"));
    QCOMPARE(by["defer-hard-irqs"].max, std::uint64_t{2147483647});
    QVERIFY(by["gro-flush-timeout"].max >= std::uint64_t{4294967295});
    QVERIFY(by.count("irq-suspend-timeout"));
    QVERIFY(by.count("threaded"));
    QVERIFY(by["threaded"].max >= 1);
}

void TstNetdevNapi::theVethsNapiIsListed()
{
    QVERIFY(napi_.id > 0);
    QCOMPARE(napi_.ifindex, ::if_nametoindex(veth_->dev().c_str()));
    QVERIFY(napi_.deferHardIrqs && napi_.groFlushTimeoutNs && napi_.irqSuspendTimeoutNs);
    // Read alone by its id, it is the same NAPI.
    const NapiInstance again = current();
    QCOMPARE(again.id, napi_.id);
    QCOMPARE(again.ifindex, napi_.ifindex);
    // The loopback device has none.
    NetdevNetlink nl;
    QVERIFY(NetdevNetlink::open(nl).ok());
    std::vector<NapiInstance> none;
    QVERIFY(nl.napis(1, none).ok());
    QVERIFY(none.empty());
}

void TstNetdevNapi::oneNapiIsSetReadBackAndRestoredLeavingTheSysfsFiles()
{
    const std::string deferFile = sysfs("napi.defer_hard_irqs"),
                      groFile = sysfs("napi.gro_flush_timeout_ns");
    std::unique_ptr<SettingsJournal> j;
    QVERIFY(SettingsJournal::open(dir_->filePath("j").toStdString(), j).ok());
    const auto at = [&](const char *attr) { return napiSettingAddress(napi_.id, attr); };
    for (const auto &[attr, v] :
         std::vector<std::pair<const char *, const char *>>{{"defer-hard-irqs", "7"},
                                                            {"gro-flush-timeout", "50000"},
                                                            {"irq-suspend-timeout", "20000000"}}) {
        const Status st = j->write(at(attr), v);
        QVERIFY2(st.ok(), st.error.c_str());
    }
    const NapiInstance now = current();
    QCOMPARE(*now.deferHardIrqs, std::uint64_t{7});
    QCOMPARE(*now.groFlushTimeoutNs, std::uint64_t{50000});
    QCOMPARE(*now.irqSuspendTimeoutNs, std::uint64_t{20000000});
    // The device-wide files are the kernel's defaults for new NAPIs: napi-set leaves them.
    QCOMPARE(sysfs("napi.defer_hard_irqs"), deferFile);
    QCOMPARE(sysfs("napi.gro_flush_timeout_ns"), groFile);
    // The journal holds the old values, by address.
    QCOMPARE(j->entries().size(), std::size_t{3});
    QCOMPARE(j->entries()[0].path, at("defer-hard-irqs"));
    QCOMPARE(j->entries()[0].value, std::to_string(*napi_.deferHardIrqs));
    QVERIFY(j->restore().ok());
    const NapiInstance back = current();
    QCOMPARE(back.deferHardIrqs, napi_.deferHardIrqs);
    QCOMPARE(back.groFlushTimeoutNs, napi_.groFlushTimeoutNs);
    QCOMPARE(back.irqSuspendTimeoutNs, napi_.irqSuspendTimeoutNs);
}

void TstNetdevNapi::threadedPerNapiStartsItsKthread()
{
    QVERIFY(!current().pid); // polled in softirq: no kthread
    std::unique_ptr<SettingsJournal> j;
    QVERIFY(SettingsJournal::open(dir_->filePath("j").toStdString(), j).ok());
    const Status st = j->write(napiSettingAddress(napi_.id, "threaded"), "1");
    QVERIFY2(st.ok(), st.error.c_str());
    const NapiInstance now = current();
    QCOMPARE(now.threaded.value_or(0), std::uint64_t{1});
    QVERIFY2(now.pid && *now.pid > 0, "threaded, the NAPI reports its kthread's pid");
    // The kthread is napi/IF-ID, as kernel::napiThreads finds it.
    bool found = false;
    for (const auto &t : kernel::napiThreads(veth_->dev()))
        found |= t.pid == *now.pid;
    QVERIFY(found);
    QVERIFY(j->restore().ok());
    QCOMPARE(current().threaded.value_or(0), napi_.threaded.value_or(0));
    QTRY_VERIFY_WITH_TIMEOUT(!current().pid, 5000);
}

void TstNetdevNapi::outOfRangeAndUnknownAreRefusedByName()
{
    NetdevNetlink nl;
    QVERIFY(NetdevNetlink::open(nl).ok());
    Status st = nl.set(napi_.id, "defer-hard-irqs", 2147483648ULL);
    QVERIFY(!st.ok());
    QVERIFY2(st.error.find("defer-hard-irqs") != std::string::npos &&
                 st.error.find("0 to 2147483647") != std::string::npos,
             st.error.c_str());
    st = nl.set(napi_.id, "busy-poll-budget", 8);
    QVERIFY(!st.ok());
    QVERIFY2(st.error.find("does not take it") != std::string::npos &&
                 st.error.find("defer-hard-irqs") != std::string::npos,
             st.error.c_str());
    // A NAPI that does not exist: the kernel's reason, with the NAPI named.
    st = nl.set(0x7ffffff0, "defer-hard-irqs", 1);
    QVERIFY(!st.ok());
    QVERIFY2(st.error.find("NAPI 2147483632") != std::string::npos, st.error.c_str());
    // Through the journal: nothing is journalled for what cannot be read or written.
    std::unique_ptr<SettingsJournal> j;
    QVERIFY(SettingsJournal::open(dir_->filePath("j").toStdString(), j).ok());
    st = j->write(napiSettingAddress(napi_.id, "defer-hard-irqs"), "-1");
    QVERIFY(!st.ok());
    QVERIFY2(st.error.find("not a whole number") != std::string::npos, st.error.c_str());
    QVERIFY(!isNapiSettingAddress("netlink:netdev/napi/12/bogus"));
    QVERIFY(!isNapiSettingAddress("netlink:netdev/napi//threaded"));
    QVERIFY(!isNapiSettingAddress("netlink:netdev/napi/99999999999/threaded"));
    QCOMPARE(current().deferHardIrqs, napi_.deferHardIrqs);
}

void TstNetdevNapi::killedMidRunTheNextStartPutsThemBack()
{
    const std::string dir = dir_->filePath("j").toStdString();
    const std::string address = napiSettingAddress(napi_.id, "defer-hard-irqs");
    const pid_t child = ::fork();
    QVERIFY(child >= 0);
    if (child == 0) {
        std::unique_ptr<SettingsJournal> j;
        if (!SettingsJournal::open(dir, j).ok() || !j->write(address, "9").ok()) ::_exit(3);
        ::kill(::getpid(), SIGKILL); // as kill -9 mid-run: nothing restores
        ::_exit(4);
    }
    int status = 0;
    QCOMPARE(::waitpid(child, &status, 0), child);
    QVERIFY2(WIFSIGNALED(status), "the child could not set the NAPI");
    QCOMPARE(*current().deferHardIrqs, std::uint64_t{9});
    const RestoreReport r = restoreStale(dir);
    QVERIFY2(r.failures.empty(), r.failures.empty() ? "" : r.failures.front().c_str());
    QCOMPARE(r.restored.size(), std::size_t{1});
    QCOMPARE(r.restored[0].path, address);
    QCOMPARE(current().deferHardIrqs, napi_.deferHardIrqs);
}

QTEST_GUILESS_MAIN(TstNetdevNapi)
#include "tst_netdev_napi.moc"
