// SPDX-License-Identifier: GPL-2.0-or-later
// Standard input's line limit, whatever the chunks the lines arrive in.
#include <QtTest>

#include <string>
#include <vector>

#include "app/line_splitter.h"

using namespace ringlab;

class TstConsole : public QObject {
    Q_OBJECT
  private slots:
    void linesAtTheLimitPassAndOneByteMoreIsDropped_data();
    void linesAtTheLimitPassAndOneByteMoreIsDropped();
    void aLastLineWithoutNewlineCounts();
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

QTEST_GUILESS_MAIN(TstConsole)
#include "tst_console.moc"
