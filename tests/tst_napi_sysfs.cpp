// SPDX-License-Identifier: GPL-2.0-or-later
// The kernel's device-wide NAPI knobs on a real netdev (issue 44, parts 2 and 4): a veth pair
// made by the test (one end in a namespace of its own, the other here; no address, no
// traffic), GRO on so that it has a NAPI. Threaded NAPI, gro_flush_timeout and
// napi_defer_hard_irqs are set through the settings journal and read back from the kernel;
// threaded mode starts the napi/IF-ID kthread and its end stops it; a value out of range is
// refused with its name and range; after kill -9 of the process that changed them, the next
// start puts them back. As root (CI, where its absence fails); skipped elsewhere. Everything made
// is removed.
#include <QTemporaryDir>
#include <QtTest>
#include <csignal>
#include <sys/wait.h>
#include <unistd.h>

#include "drivers/host/settings_journal.h"
#include "drivers/kernel/napi_sysfs.h"
#include "tests/require.h"
#include "tests/veth_pair.h"

using namespace ringlab;
using namespace ringlab::kernel;

class TstNapiSysfs : public QObject {
    Q_OBJECT
  private slots:
    void initTestCase();
    void cleanupTestCase();
    void init();
    void knobsAppliedReadBackAndRestored();
    void aValueOutOfRangeIsRefusedByName();
    void killedMidRunTheNextStartPutsThemBack();

  private:
    std::string value(const char *knob) const
    {
        std::string v;
        const Status st = readNapiKnob(dev_, *findNapiKnob(knob), v);
        if (!st.ok()) qFatal("%s", st.error.c_str());
        return v;
    }
    std::unique_ptr<test::VethPair> veth_;
    std::string dev_;
    std::string before_[3];
    std::unique_ptr<QTemporaryDir> dir_;
};

void TstNapiSysfs::initTestCase()
{
    RINGLAB_REQUIRE(::geteuid() == 0, "root, for a veth pair and its sysfs knobs");
    veth_ = std::make_unique<test::VethPair>("t");
    const QString made = veth_->make();
    QVERIFY2(made.isEmpty(), qPrintable(made));
    dev_ = veth_->dev();
    for (int k = 0; k < 3; ++k)
        QVERIFY(readNapiKnob(dev_, napiSysfsKnobs()[static_cast<std::size_t>(k)], before_[k]).ok());
}

void TstNapiSysfs::cleanupTestCase()
{
    veth_.reset();
}

void TstNapiSysfs::init()
{
    dir_ = std::make_unique<QTemporaryDir>();
    QVERIFY(dir_->isValid());
}

void TstNapiSysfs::knobsAppliedReadBackAndRestored()
{
    QCOMPARE(value("napi.threaded"), std::string("0"));
    QVERIFY(napiThreads(dev_).empty());
    std::unique_ptr<host::SettingsJournal> j;
    QVERIFY(host::SettingsJournal::open(dir_->filePath("j").toStdString(), j).ok());
    QVERIFY(setNapiKnob(*j, dev_, *findNapiKnob("napi.threaded"), "1").ok());
    QCOMPARE(value("napi.threaded"), std::string("1"));
    // The kernel starts a thread per NAPI: napi/IF-ID.
    QTRY_VERIFY_WITH_TIMEOUT(!napiThreads(dev_).empty(), 5000);
    QVERIFY(QString::fromStdString(napiThreads(dev_).front().name).startsWith("napi/rlt"));
    QVERIFY(setNapiKnob(*j, dev_, *findNapiKnob("napi.gro_flush_timeout_ns"), "200000").ok());
    QVERIFY(setNapiKnob(*j, dev_, *findNapiKnob("napi.defer_hard_irqs"), "2").ok());
    QCOMPARE(value("napi.gro_flush_timeout_ns"), std::string("200000"));
    QCOMPARE(value("napi.defer_hard_irqs"), std::string("2"));
    QVERIFY(j->restore().ok());
    QCOMPARE(value("napi.threaded"), before_[0]);
    QCOMPARE(value("napi.gro_flush_timeout_ns"), before_[1]);
    QCOMPARE(value("napi.defer_hard_irqs"), before_[2]);
    QTRY_VERIFY_WITH_TIMEOUT(napiThreads(dev_).empty(), 5000);
}

void TstNapiSysfs::aValueOutOfRangeIsRefusedByName()
{
    std::unique_ptr<host::SettingsJournal> j;
    QVERIFY(host::SettingsJournal::open(dir_->filePath("j").toStdString(), j).ok());
    for (const char *bad : {"-1", "2147483648", "two", ""}) {
        const Status st = setNapiKnob(*j, dev_, *findNapiKnob("napi.defer_hard_irqs"), bad);
        QVERIFY(!st.ok());
        QVERIFY2(st.error.find("napi.defer_hard_irqs") != std::string::npos &&
                     st.error.find("0 to 2147483647") != std::string::npos,
                 st.error.c_str());
    }
    QVERIFY(j->entries().empty()); // refused before anything was read or written
    std::string path;
    QVERIFY(!napiKnobPath("../../etc", *findNapiKnob("napi.threaded"), path).ok());
    QCOMPARE(value("napi.defer_hard_irqs"), before_[2]);
}

void TstNapiSysfs::killedMidRunTheNextStartPutsThemBack()
{
    const std::string dir = dir_->filePath("j").toStdString();
    const pid_t child = ::fork();
    QVERIFY(child >= 0);
    if (child == 0) {
        std::unique_ptr<host::SettingsJournal> j;
        if (!host::SettingsJournal::open(dir, j).ok() ||
            !setNapiKnob(*j, dev_, *findNapiKnob("napi.threaded"), "1").ok() ||
            !setNapiKnob(*j, dev_, *findNapiKnob("napi.defer_hard_irqs"), "5").ok())
            ::_exit(3);
        ::kill(::getpid(), SIGKILL); // as kill -9 mid-run: nothing restores
        ::_exit(4);
    }
    int status = 0;
    QCOMPARE(::waitpid(child, &status, 0), child);
    QVERIFY2(WIFSIGNALED(status), "the child could not set the knobs");
    QCOMPARE(value("napi.threaded"), std::string("1"));
    QCOMPARE(value("napi.defer_hard_irqs"), std::string("5"));
    const host::RestoreReport r = host::restoreStale(dir);
    QVERIFY(r.failures.empty());
    QCOMPARE(r.restored.size(), std::size_t{2});
    QCOMPARE(value("napi.threaded"), before_[0]);
    QCOMPARE(value("napi.defer_hard_irqs"), before_[2]);
    QTRY_VERIFY_WITH_TIMEOUT(napiThreads(dev_).empty(), 5000);
}

QTEST_GUILESS_MAIN(TstNapiSysfs)
#include "tst_napi_sysfs.moc"
