// SPDX-License-Identifier: GPL-2.0-or-later
// Standard input's line limit, whatever the chunks the lines arrive in; a `set` whose
// restart fails twice ends the run, and its session `failed` (the one control path).
#include <QTemporaryDir>
#include <QtTest>

#include <atomic>
#include <cstdio>
#include <string>
#include <vector>

#include "app/console_commands.h"
#include "app/line_splitter.h"
#include "drivers/registry_devices.h"
#include "test_support.h"

using namespace ringlab;
using namespace ringlab::test;

namespace {
// The registry's devices, but every one made is a simulated NIC that cannot be
// reconfigured once `gone` is set: unplugged, so that neither new values nor the previous
// ones can be rebuilt.
class GoneDevices final : public DeviceProvider {
  public:
    explicit GoneDevices(const std::atomic<bool> &gone) : gone_(gone) {}
    Status check(const DeviceOptions &opts) const override { return registryDevices().check(opts); }
    DeviceFactory factory(const DeviceOptions &) const override
    {
        return [this](const ParamSet &p, const LiveParams &live) {
            return std::unique_ptr<Device>(
                std::make_unique<FailingNic>(p, live, [this](const ParamSet &) -> std::string {
                    return gone_ ? "the device is gone" : "";
                }));
        };
    }
    Assignments defaults(const std::string &spec) const override
    {
        return registryDevices().defaults(spec);
    }
    std::string grant(const std::string &spec, std::string *why) const override
    {
        return registryDevices().grant(spec, why);
    }
    bool usesEal(const std::string &spec) const override { return registryDevices().usesEal(spec); }
    std::vector<DeviceListing> list(const std::vector<std::string> &eal) const override
    {
        return registryDevices().list(eal);
    }

  private:
    const std::atomic<bool> &gone_;
};

std::string readAll(std::FILE *f)
{
    std::fflush(f);
    std::rewind(f);
    std::string text;
    for (int ch; (ch = std::fgetc(f)) != EOF;)
        text += static_cast<char>(ch);
    return text;
}
} // namespace

class TstConsole : public QObject {
    Q_OBJECT
  private slots:
    void linesAtTheLimitPassAndOneByteMoreIsDropped_data();
    void linesAtTheLimitPassAndOneByteMoreIsDropped();
    void aLastLineWithoutNewlineCounts();
    void aSetWhoseRestartFailsEndsTheSessionFailed();
};

void TstConsole::linesAtTheLimitPassAndOneByteMoreIsDropped_data()
{
    QTest::addColumn<int>("chunk");
    QTest::newRow("one chunk") << 0;
    QTest::newRow("4 KiB reads") << 4096;
    QTest::newRow("1 byte at a time") << 1;
    QTest::newRow("odd chunks") << 4099;
}

void TstConsole::linesAtTheLimitPassAndOneByteMoreIsDropped()
{
    QFETCH(int, chunk);
    const std::string atLimit = "mark " + std::string(LineSplitter::kMaxLine - 5, 'x');
    const std::string over = "mark " + std::string(LineSplitter::kMaxLine - 4, 'y');
    const std::string farOver(3 * LineSplitter::kMaxLine, 'z');
    const std::string input = "set a 1\n" + atLimit + "\n" + over + "\n" + farOver + "\nquit\n";
    LineSplitter split;
    std::vector<std::string> lines, errors;
    const std::size_t step = chunk == 0 ? input.size() : static_cast<std::size_t>(chunk);
    for (std::size_t k = 0; k < input.size(); k += step)
        split.feed(std::string_view(input).substr(k, step), lines, errors);
    split.finish(lines);
    QCOMPARE(lines.size(), std::size_t{3});
    QCOMPARE(lines[0], std::string("set a 1"));
    QCOMPARE(lines[1].size(), LineSplitter::kMaxLine);
    QCOMPARE(lines[2], std::string("quit"));
    QCOMPARE(errors.size(), std::size_t{2}); // one message per dropped line, not per chunk
    QVERIFY(errors[0].find("longer than 65536 bytes") != std::string::npos);
}

void TstConsole::aLastLineWithoutNewlineCounts()
{
    LineSplitter split;
    std::vector<std::string> lines, errors;
    split.feed("mark one\nmark tw", lines, errors);
    split.feed("o", lines, errors);
    QCOMPARE(lines.size(), std::size_t{1});
    split.finish(lines);
    QCOMPARE(lines.size(), std::size_t{2});
    QCOMPARE(lines[1], std::string("mark two"));
    QVERIFY(errors.empty());
}

void TstConsole::aSetWhoseRestartFailsEndsTheSessionFailed()
{
    QTemporaryDir dir;
    QVERIFY(dir.isValid());
    SessionStore store(dir.filePath("s.db").toStdString());
    std::atomic<bool> gone{false};
    const GoneDevices devices(gone);
    RunService service(devices);
    RunSetup setup;
    setup.params = params({{"poll.mode", "sleep"}});
    setup.profile = "default";
    setup.intervalNs = 50'000'000;
    auto c = std::make_shared<Collector>();
    const Status started = service.start(setup, &store, {c});
    QVERIFY2(started.ok(), started.error.c_str());
    QVERIFY(c->waitSamples(2));

    std::FILE *reply = std::tmpfile();
    QVERIFY(reply);
    std::FILE *devNull = std::fopen("/dev/null", "w");
    QVERIFY(devNull);
    SamplePrinter printer(OutputFormat::Table, devNull, 1.0);
    ConsoleCommands console(service, printer, "script", reply);
    QVERIFY(console.execute("set rx.ring_size 2048")); // a restart that works
    QVERIFY(!console.runEnded());
    gone = true;
    // Neither the new values nor the previous ones can be built: the run ends here.
    QVERIFY(!console.execute("set rx.ring_size 4096"));
    QVERIFY(console.runEnded());
    QVERIFY(!console.execute("show all")); // nothing left to show or change
    const std::string text = readAll(reply);
    QVERIFY2(text.find("ok: rx.ring_size = 2048 (datapath restarted)") != std::string::npos,
             text.c_str());
    QVERIFY2(text.find("error: restart failed: the device is gone") != std::string::npos,
             text.c_str());
    QVERIFY2(text.find("the run stopped") != std::string::npos, text.c_str());

    // `run` stops the service once more when its loop ends: the outcome is the failed run's.
    const RunOutcome out = service.stop("completed");
    QCOMPARE(service.endStatus(), std::string("failed"));
    QVERIFY(out.session > 0);
    QVERIFY(out.samplesWritten >= 2);
    SessionInfo info;
    QVERIFY(store.get(out.session, info));
    QCOMPARE(info.status, std::string("failed"));
    std::fclose(reply);
    std::fclose(devNull);
}

QTEST_GUILESS_MAIN(TstConsole)
#include "tst_console.moc"
