// Shared core helpers: UTF-8 validation, positions, atomic saves.
#include "core/common/atomic_file.h"
#include "core/common/environment.h"
#include "core/common/text.h"

#include <QTemporaryDir>
#include <QTest>
#include <algorithm>
#include <filesystem>
#include <sys/stat.h>

using namespace portolan;
namespace fs = std::filesystem;

class TestCommon : public QObject
{
    Q_OBJECT
private slots:
    void utf8_data()
    {
        QTest::addColumn<QByteArray>("bytes");
        QTest::addColumn<bool>("valid");
        QTest::addColumn<int>("badOffset");
        QTest::addRow("ascii") << QByteArray("hello") << true << 0;
        QTest::addRow("2-byte") << QByteArray("caf\xc3\xa9") << true << 0;
        QTest::addRow("4-byte") << QByteArray("\xf0\x9f\x98\x80") << true << 0;
        QTest::addRow("latin-1") << QByteArray("caf\xe9!") << false << 3;
        QTest::addRow("overlong") << QByteArray("\xc0\xaf") << false << 0;
        QTest::addRow("surrogate") << QByteArray("a\xed\xa0\x80") << false << 1;
        QTest::addRow("truncated") << QByteArray("ab\xe2\x82") << false << 2;
    }
    void utf8()
    {
        QFETCH(QByteArray, bytes);
        QFETCH(bool, valid);
        QFETCH(int, badOffset);
        std::size_t bad = 99;
        QCOMPARE(isValidUtf8(std::string_view(bytes.constData(), std::size_t(bytes.size())), &bad),
                 valid);
        if (!valid)
            QCOMPARE(int(bad), badOffset);
    }

    void lineColumn()
    {
        const std::string text = "ab\ncd\n\nx";
        QCOMPARE(lineColumnAt(text, 0).line, 1);
        QCOMPARE(lineColumnAt(text, 4).line, 2);
        QCOMPARE(lineColumnAt(text, 4).column, 2);
        QCOMPARE(lineColumnAt(text, 7).line, 4);
    }

    void humanUnits_data()
    {
        QTest::addColumn<double>("value");
        QTest::addColumn<bool>("isBytes");
        QTest::addColumn<QString>("expected");
        QTest::newRow("bytes") << 512.0 << true << "512 B";
        QTest::newRow("KiB") << 1536.0 << true << "1.5 KiB";
        QTest::newRow("GiB") << 3.0 * 1024 * 1024 * 1024 << true << "3 GiB";
        QTest::newRow("zero seconds") << 0.0 << false << "0 s";
        QTest::newRow("ns") << 6.31e-7 << false << "631 ns";
        QTest::newRow("us") << 1.25e-5 << false << "12.5 \u00b5s";
        QTest::newRow("ms") << 0.0042 << false << "4.2 ms";
        QTest::newRow("s") << 1.5 << false << "1.5 s";
        QTest::newRow("minutes stay seconds") << 125.0 << false << "125 s";
        QTest::newRow("below ns") << 2e-12 << false << "0.002 ns";
    }
    void humanUnits()
    {
        QFETCH(double, value);
        QFETCH(bool, isBytes);
        QFETCH(QString, expected);
        const std::string got =
            isBytes ? portolan::humanBytes(value) : portolan::humanSeconds(value);
        QCOMPARE(QString::fromStdString(got), expected);
    }

    void atomicWriteKeepsModeAndReplaces()
    {
        QTemporaryDir tmp;
        const fs::path p = fs::path(tmp.path().toStdString()) / "params.yaml";
        QVERIFY(!writeFileAtomically(p, "a: 1\n"));
        ::chmod(p.c_str(), 0600);
        QVERIFY(!writeFileAtomically(p, "a: 2\n"));
        QCOMPARE(*readFile(p).value, std::string("a: 2\n"));
        struct stat st
        {
        };
        ::stat(p.c_str(), &st);
        QCOMPARE(int(st.st_mode & 0777), 0600);
        // No temporary file is left behind.
        int count = 0;
        for ([[maybe_unused]] const auto& e : fs::directory_iterator(p.parent_path()))
            ++count;
        QCOMPARE(count, 1);
    }

    void atomicWriteFailureLeavesOldFile()
    {
        QTemporaryDir tmp;
        const fs::path p = fs::path(tmp.path().toStdString()) / "missing-folder" / "x.yaml";
        const auto err = writeFileAtomically(p, "x");
        QVERIFY(err.has_value());
        QVERIFY(!err->message.empty());
        QCOMPARE(err->location.file, p.string());
    }

    // A child sees one value per key: the added one replaces the parent's, and a key that only
    // starts like an added one ("PORTOLAN_X_LONGER") is kept.
    void environmentReplacesByKey()
    {
        qputenv("PORTOLAN_X", "parent");
        qputenv("PORTOLAN_X_LONGER", "kept");
        const auto env =
            portolan::environmentWith({{"PORTOLAN_X", "child"}, {"PORTOLAN_NEW", "1"}});
        const auto count = [&](const std::string& kv) {
            return std::count(env.begin(), env.end(), kv);
        };
        QCOMPARE(count("PORTOLAN_X=child"), 1);
        QCOMPARE(count("PORTOLAN_X=parent"), 0);
        QCOMPARE(count("PORTOLAN_X_LONGER=kept"), 1);
        QCOMPARE(count("PORTOLAN_NEW=1"), 1);
        QCOMPARE(env.back(), std::string("PORTOLAN_NEW=1"));
        qunsetenv("PORTOLAN_X");
        qunsetenv("PORTOLAN_X_LONGER");
    }

    void readMissing()
    {
        auto r = readFile("/nonexistent/portolan/file");
        QVERIFY(!r);
        QVERIFY(r.error.message.find("cannot open") != std::string::npos);
    }
};

QTEST_GUILESS_MAIN(TestCommon)
#include "test_common.moc"
