// SPDX-License-Identifier: GPL-2.0-or-later
#include <sys/stat.h>

#include <QElapsedTimer>
#include <QTemporaryDir>
#include <QtTest>

#include <fstream>

#include "engine/profile/profile.h"

using namespace ringlab;
namespace fs = std::filesystem;

namespace {
// Why a lookup or a load was refused; empty when it succeeded or failed for another reason,
// so that each caller's check of the message fails then.
template <class T> std::string refusal(const Result<T> &r)
{
    return r.status().outcome() == Outcome::Refused ? r.error() : std::string();
}
} // namespace

class TstProfiles : public QObject {
    Q_OBJECT
  private slots:
    void shippedProfilesAreValid();
    void badProfiles_data();
    void badProfiles();
    void findsByNameAndExplainsMisses();
    void badFilesInTheDirectoryAreSkippedWithTheirReason();
    void fifosDevicesAndBigFilesAreNeverRead();
};

void TstProfiles::shippedProfilesAreValid()
{
    int count = 0;
    bool haveDefault = false;
    for (const auto &e : fs::directory_iterator(RINGLAB_PROFILE_SOURCE_DIR)) {
        if (e.path().extension() != ".json") continue;
        const auto loaded = loadProfile(e.path());
        QVERIFY2(loaded.ok(), loaded.error().c_str());
        const Profile &p = loaded.value();
        QVERIFY2(!p.description.empty(), e.path().c_str());
        QVERIFY2(p.device == "sim" || p.device == "lab", p.device.c_str());
        haveDefault |= p.name == "default";
        ++count;
    }
    QVERIFY(haveDefault);
    QVERIFY(count >= 1);
}

void TstProfiles::badProfiles_data()
{
    QTest::addColumn<QString>("json");
    QTest::addColumn<QString>("expect");
    QTest::newRow("not json") << "{\"params\": {"
                              << "not valid JSON";
    QTest::newRow("not an object") << "[1, 2]"
                                   << "top level must be an object";
    QTest::newRow("unknown tunable") << R"({"params": {"poll.sleepmin_us": 5}})"
                                     << "unknown tunable \"poll.sleepmin_us\"";
    QTest::newRow("out of range") << R"({"params": {"poll.budget": 0}})"
                                  << "poll.budget: \"0\" is out of range";
    QTest::newRow("bad choice") << R"({"params": {"poll.mode": "spin"}})"
                                << "poll.mode: \"spin\" is not a valid choice";
    QTest::newRow("cross rule")
        << R"({"params": {"poll.sleep_min_us": 500, "poll.sleep_max_us": 100}})"
        << "must be at most poll.sleep_max_us (100)";
    QTest::newRow("array value") << R"({"params": {"poll.budget": [1]}})"
                                 << "poll.budget: value [1] must be";
    QTest::newRow("unknown key") << R"({"parms": {}})"
                                 << "unknown or malformed key \"parms\"";
    QTest::newRow("number out of range") << R"({"params": {"proc.ns_per_packet": 1e400}})"
                                         << "number overflow parsing '1e400'";
    QTest::newRow("nested 100000 deep")
        << QString(100000, '[') + QString(100000, ']') << "nested more than 16 levels deep";
    QTest::newRow("empty device") << R"({"device": "", "params": {}})"
                                  << "device \"\" is empty";
    QTest::newRow("a tunable twice")
        << R"({"params": {"load.rate_pps": 1000, "poll.mode": "busy", "load.rate_pps": 900000}})"
        << "the key \"params\".\"load.rate_pps\" is given twice";
    QTest::newRow("a key twice") << R"({"device": "sim", "params": {}, "device": "lab"})"
                                 << "the key \"device\" is given twice";
}

void TstProfiles::badProfiles()
{
    QFETCH(QString, json);
    QFETCH(QString, expect);
    const std::string error = refusal(parseProfile(json.toStdString(), "/tmp/bad.json"));
    QVERIFY2(error.find("profile /tmp/bad.json") == 0, error.c_str());
    QVERIFY2(error.find(expect.toStdString()) != std::string::npos, error.c_str());
}

void TstProfiles::findsByNameAndExplainsMisses()
{
    qputenv("RINGLAB_PROFILE_DIR", RINGLAB_PROFILE_SOURCE_DIR);
    const auto f = findProfile("default");
    QVERIFY2(f.ok(), f.error().c_str());
    QCOMPARE(f.value().filename().string(), std::string("default.json"));
    std::string error = refusal(findProfile("no-such-profile"));
    QVERIFY2(error.find("not found (available: ") != std::string::npos, error.c_str());
    QVERIFY2(error.find("default") != std::string::npos, error.c_str());
    error = refusal(findProfile("/nonexistent/x.json"));
    QVERIFY2(error.find("no such file") != std::string::npos, error.c_str());
}

void TstProfiles::badFilesInTheDirectoryAreSkippedWithTheirReason()
{
    // A profile nested 100,000 deep once broke listing, lookup and the desktop's start.
    QTemporaryDir dir;
    const fs::path d = dir.path().toStdString();
    fs::copy_file(fs::path(RINGLAB_PROFILE_SOURCE_DIR) / "default.json", d / "default.json");
    std::ofstream(d / "deep.json") << std::string(100000, '[') << std::string(100000, ']');
    std::ofstream(d / "huge.json") << R"({"params": {"load.rate_pps": 1e400}})";
    qputenv("RINGLAB_PROFILE_DIR", dir.path().toLocal8Bit());
    std::vector<std::string> problems;
    const auto all = listProfiles(&problems);
    QCOMPARE(all.size(), std::size_t{1});
    QCOMPARE(all[0].name, std::string("default"));
    QCOMPARE(problems.size(), std::size_t{2});
    QVERIFY2(problems[0].find("deep.json: nested more than") != std::string::npos,
             problems[0].c_str());
    QVERIFY2(problems[1].find("huge.json: not valid JSON") != std::string::npos,
             problems[1].c_str());
    const std::string error = refusal(findProfile("nosuch"));
    QVERIFY2(error.find("(available: default;") != std::string::npos, error.c_str());
    QVERIFY(findProfile("default").ok());
    qputenv("RINGLAB_PROFILE_DIR", RINGLAB_PROFILE_SOURCE_DIR);
}

void TstProfiles::fifosDevicesAndBigFilesAreNeverRead()
{
    // A FIFO once hung the listing (and a server thread with it); a link to /dev/zero was
    // read to 2.1 GB. Each is named with what it is, at once.
    QTemporaryDir dir;
    const fs::path d = dir.path().toStdString();
    fs::copy_file(fs::path(RINGLAB_PROFILE_SOURCE_DIR) / "default.json", d / "default.json");
    QCOMPARE(mkfifo((d / "fifo.json").c_str(), 0600), 0);
    fs::create_symlink("/dev/zero", d / "zero.json");
    // Valid JSON just over the cap: refused for its size, not its content.
    std::ofstream(d / "big.json") << "{\"description\": \"" << std::string(kMaxProfileBytes, 'x')
                                  << "\"}";
    qputenv("RINGLAB_PROFILE_DIR", dir.path().toLocal8Bit());
    QElapsedTimer took;
    took.start();
    std::vector<std::string> problems;
    const auto all = listProfiles(&problems);
    QVERIFY2(took.elapsed() < 2000, qPrintable(QString("%1 ms").arg(took.elapsed())));
    QCOMPARE(all.size(), std::size_t{1});
    QCOMPARE(all[0].name, std::string("default"));
    QCOMPARE(problems.size(), std::size_t{3});
    QCOMPARE(problems[0], "profile " + (d / "big.json").string() + ": is " +
                              std::to_string(kMaxProfileBytes + 19) +
                              " bytes, more than the 1 MiB allowed");
    QCOMPARE(problems[1],
             "profile " + (d / "fifo.json").string() + ": is a FIFO, not a regular file");
    QCOMPARE(problems[2], "profile " + (d / "zero.json").string() +
                              ": is a character device, not a regular file");

    // Named: refused with the reason, by name and by path.
    std::string error = refusal(findProfile("fifo"));
    QCOMPARE(error, "profile " + (d / "fifo.json").string() + ": is a FIFO, not a regular file");
    error = refusal(findProfile((d / "zero.json").string()));
    QVERIFY2(error.find("is a character device") != std::string::npos, error.c_str());
    error = refusal(loadProfile(d / "fifo.json"));
    QVERIFY2(error.find("is a FIFO") != std::string::npos, error.c_str());
    error = refusal(loadProfile(d / "big.json"));
    QVERIFY2(error.find("more than the 1 MiB allowed") != std::string::npos, error.c_str());
    // A miss still lists what there is, without touching the FIFO.
    error = refusal(findProfile("nosuch"));
    QVERIFY2(error.find("(available: default;") != std::string::npos, error.c_str());
    QVERIFY(took.elapsed() < 4000);
    qputenv("RINGLAB_PROFILE_DIR", RINGLAB_PROFILE_SOURCE_DIR);
}

QTEST_GUILESS_MAIN(TstProfiles)
#include "tst_profiles.moc"
