// SPDX-License-Identifier: GPL-2.0-or-later
// Every committed fuzz input (tests/fuzz/corpus/<target>/*: the seeds and each crash a fuzzer
// once found) through its target in the ordinary build, so a fixed crash stays fixed. A
// crash, an uncaught exception or a sanitizer report fails the test.
#include <QtTest>

#include "tests/fuzz/fuzz_target.h"

using namespace ringlab;

class TstFuzzCorpus : public QObject {
    Q_OBJECT
  private slots:
    void everyInputOfEveryTarget_data();
    void everyInputOfEveryTarget();
};

void TstFuzzCorpus::everyInputOfEveryTarget_data()
{
    QTest::addColumn<int>("target");
    for (int k = 0; k < static_cast<int>(std::size(fuzz::kTargets)); ++k)
        QTest::newRow(std::string(fuzz::kTargets[k].name).c_str()) << k;
}

void TstFuzzCorpus::everyInputOfEveryTarget()
{
    QFETCH(int, target);
    const auto &t = fuzz::kTargets[target];
    const QDir dir(QString(RINGLAB_FUZZ_CORPUS) + "/" +
                   QString::fromUtf8(t.name.data(), static_cast<int>(t.name.size())));
    const auto files = dir.entryInfoList(QDir::Files, QDir::Name);
    QVERIFY2(files.size() >= 3, qPrintable(dir.path() + " holds fewer than 3 inputs"));
    for (const auto &f : files) {
        QFile in(f.filePath());
        QVERIFY(in.open(QIODevice::ReadOnly));
        const QByteArray bytes = in.readAll();
        QCOMPARE(t.run(reinterpret_cast<const std::uint8_t *>(bytes.constData()),
                       static_cast<std::size_t>(bytes.size())),
                 0);
    }
}

QTEST_GUILESS_MAIN(TstFuzzCorpus)
#include "tst_fuzz_corpus.moc"
