// The one number formatter (core/common/number_format.h): the table of what people read, from
// the strings issue 26 found ("2.8465e+06 samples/s", "6940.894 ms", "0.05431 M parameters",
// axis ticks at 4.9 / 9.9 / 14.9 MiB) to what they read now.

#include "core/common/number_format.h"

#include <QObject>
#include <QTest>
#include <limits>

namespace format = portolan::format;

namespace {

enum class Kind
{
    Number,
    Count,
    Parameters,
    SamplesPerSecond,
    Flop,
    Bytes,
    Seconds,
    Milliseconds,
    Percent,
};

std::string formatted(Kind k, double v)
{
    switch (k) {
    case Kind::Number:
        return format::number(v);
    case Kind::Count:
        return format::count(v, "tiles");
    case Kind::Parameters:
        return format::parameters(v);
    case Kind::SamplesPerSecond:
        return format::samplesPerSecond(v);
    case Kind::Flop:
        return format::flop(v);
    case Kind::Bytes:
        return format::bytes(v);
    case Kind::Seconds:
        return format::seconds(v);
    case Kind::Milliseconds:
        return format::milliseconds(v);
    case Kind::Percent:
        return format::percent(v);
    }
    return {};
}

QString joined(const std::vector<std::string>& labels)
{
    QStringList out;
    for (const auto& l : labels)
        out << QString::fromStdString(l);
    return out.join(QStringLiteral(" | "));
}

} // namespace

Q_DECLARE_METATYPE(Kind)
Q_DECLARE_METATYPE(format::Axis)

class TestNumberFormat : public QObject
{
    Q_OBJECT

private slots:
    void table_data()
    {
        QTest::addColumn<Kind>("kind");
        QTest::addColumn<double>("value");
        QTest::addColumn<QString>("expected");
        const double inf = std::numeric_limits<double>::infinity();
        const double nan = std::numeric_limits<double>::quiet_NaN();
        const double KiB = 1024, MiB = KiB * 1024, GiB = MiB * 1024;

        // Plain numbers: 3 significant digits, trailing zeros dropped.
        QTest::addRow("number 350.68") << Kind::Number << 350.68 << "351";
        QTest::addRow("number 2.5") << Kind::Number << 2.5 << "2.5";
        QTest::addRow("number 5") << Kind::Number << 5.0 << "5";
        QTest::addRow("number small") << Kind::Number << 0.05431 << "0.0543";
        QTest::addRow("number negative") << Kind::Number << -12.34 << "-12.3";
        QTest::addRow("number -0") << Kind::Number << -0.0000001 << "-0.0000001";
        QTest::addRow("number zero") << Kind::Number << 0.0 << "0";
        QTest::addRow("number inf") << Kind::Number << inf << "n/a";
        QTest::addRow("number nan") << Kind::Number << nan << "n/a";

        // Counts and rates: an SI prefix word before the noun.
        QTest::addRow("rate 2.8465e+06")
            << Kind::SamplesPerSecond << 2.8465e6 << "2.85 M samples/s";
        QTest::addRow("rate 6612298.7")
            << Kind::SamplesPerSecond << 6612298.7 << "6.61 M samples/s";
        QTest::addRow("rate 350.68") << Kind::SamplesPerSecond << 350.68 << "351 samples/s";
        QTest::addRow("rate 350.7 same") << Kind::SamplesPerSecond << 350.7 << "351 samples/s";
        QTest::addRow("rate below 1") << Kind::SamplesPerSecond << 0.5 << "0.5 samples/s";
        QTest::addRow("rate 12000") << Kind::SamplesPerSecond << 12000.0 << "12 k samples/s";
        QTest::addRow("rate rounds up a prefix")
            << Kind::SamplesPerSecond << 999'600.0 << "1 M samples/s";
        QTest::addRow("rate G") << Kind::SamplesPerSecond << 1.234e9 << "1.23 G samples/s";
        QTest::addRow("rate T") << Kind::SamplesPerSecond << 4.56e12 << "4.56 T samples/s";
        QTest::addRow("count 1472") << Kind::Count << 1472.0 << "1.47 k tiles";
        QTest::addRow("count 0") << Kind::Count << 0.0 << "0 tiles";
        QTest::addRow("parameters 25.6 M")
            << Kind::Parameters << 25'557'032.0 << "25.6 M parameters";
        QTest::addRow("parameters 0.05431 M")
            << Kind::Parameters << 54'310.0 << "54.3 k parameters";
        QTest::addRow("parameters 1.5 B") << Kind::Parameters << 1.558e9 << "1.56 B parameters";
        QTest::addRow("parameters few") << Kind::Parameters << 120.0 << "120 parameters";

        // FLOP: the prefix joins the unit.
        QTest::addRow("GFLOP") << Kind::Flop << 8.25e9 << "8.25 GFLOP";
        QTest::addRow("0.001689 GFLOP") << Kind::Flop << 1.689e6 << "1.69 MFLOP";
        QTest::addRow("TFLOP") << Kind::Flop << 3.1e13 << "31 TFLOP";
        QTest::addRow("FLOP") << Kind::Flop << 512.0 << "512 FLOP";

        // Bytes: binary units.
        QTest::addRow("0 B") << Kind::Bytes << 0.0 << "0 B";
        QTest::addRow("512 B") << Kind::Bytes << 512.0 << "512 B";
        QTest::addRow("1023 B") << Kind::Bytes << 1023.0 << "1023 B";
        QTest::addRow("1.5 KiB") << Kind::Bytes << 1536.0 << "1.5 KiB";
        QTest::addRow("671 KiB") << Kind::Bytes << 671.1 * KiB << "671 KiB";
        QTest::addRow("1010 KiB") << Kind::Bytes << 1010 * KiB << "1010 KiB";
        QTest::addRow("1023.8 KiB rounds to MiB") << Kind::Bytes << 1023.8 * KiB << "1 MiB";
        QTest::addRow("4.9 MiB") << Kind::Bytes << 4.9 * MiB << "4.9 MiB";
        QTest::addRow("624 KiB tile") << Kind::Bytes << 638'976.0 << "624 KiB";
        QTest::addRow("GiB") << Kind::Bytes << 3 * GiB << "3 GiB";
        QTest::addRow("1.25 GiB") << Kind::Bytes << 1.25 * GiB << "1.25 GiB";
        QTest::addRow("negative") << Kind::Bytes << -2.5 * MiB << "-2.5 MiB";

        // Times: ns, µs, ms, s.
        QTest::addRow("0 s") << Kind::Seconds << 0.0 << "0 s";
        QTest::addRow("631 ns") << Kind::Seconds << 6.31e-7 << "631 ns";
        QTest::addRow("5 µs (was step 0.005 ms)") << Kind::Milliseconds << 0.005 << "5 \u00b5s";
        QTest::addRow("12.5 µs") << Kind::Seconds << 1.25e-5 << "12.5 \u00b5s";
        QTest::addRow("4.2 ms") << Kind::Seconds << 0.0042 << "4.2 ms";
        QTest::addRow("6.94 s (was 6940.894 ms)") << Kind::Milliseconds << 6940.894 << "6.94 s";
        QTest::addRow("999.9 ms rounds to s") << Kind::Milliseconds << 999.9 << "1 s";
        QTest::addRow("125 s") << Kind::Seconds << 125.0 << "125 s";
        QTest::addRow("1250 s") << Kind::Seconds << 1250.0 << "1250 s";
        QTest::addRow("below ns") << Kind::Seconds << 5e-10 << "0.5 ns";
        QTest::addRow("seconds nan") << Kind::Seconds << nan << "n/a";

        // Percentages: one decimal.
        QTest::addRow("98.8 percent") << Kind::Percent << 0.98843 << "98.8%";
        QTest::addRow("100 percent") << Kind::Percent << 1.0 << "100.0%";
        QTest::addRow("0 percent") << Kind::Percent << 0.0 << "0.0%";
    }
    void table()
    {
        QFETCH(Kind, kind);
        QFETCH(double, value);
        QFETCH(QString, expected);
        QCOMPARE(QString::fromStdString(formatted(kind, value)), expected);
    }

    // A whole count with its noun: the singular for one, never "step(s)".
    void counted_data()
    {
        QTest::addColumn<long>("n");
        QTest::addColumn<QString>("singular");
        QTest::addColumn<QString>("plural");
        QTest::addColumn<QString>("expected");
        QTest::newRow("one") << 1L << "step"
                             << ""
                             << "1 step";
        QTest::newRow("zero is plural") << 0L << "error"
                                        << ""
                                        << "0 errors";
        QTest::newRow("several") << 3L << "dry-run step"
                                 << ""
                                 << "3 dry-run steps";
        QTest::newRow("irregular plural") << 2L << "child"
                                          << "children"
                                          << "2 children";
        QTest::newRow("irregular singular") << 1L << "child"
                                            << "children"
                                            << "1 child";
    }
    void counted()
    {
        QFETCH(long, n);
        QFETCH(QString, singular);
        QFETCH(QString, plural);
        QFETCH(QString, expected);
        const std::string s = singular.toStdString(), p = plural.toStdString();
        QCOMPARE(QString::fromStdString(format::counted(n, s, p)), expected);
    }

    void niceTicks_data()
    {
        QTest::addColumn<format::Axis>("axis");
        QTest::addColumn<double>("lo");
        QTest::addColumn<double>("hi");
        QTest::addColumn<int>("target");
        QTest::addColumn<QString>("expected");
        const double KiB = 1024, MiB = KiB * 1024;

        // Issue 26: a memory axis once read 4.9 / 9.9 / 14.9 MiB.
        QTest::addRow("MiB by 5") << format::Axis::Bytes << 0.0 << 17.3 * MiB << 4
                                  << "0 MiB | 5 MiB | 10 MiB | 15 MiB";
        QTest::addRow("KiB") << format::Axis::Bytes << 0.0 << 671.1 * KiB << 4
                             << "0 KiB | 200 KiB | 400 KiB | 600 KiB";
        QTest::addRow("half MiB") << format::Axis::Bytes << 0.0 << 2.2 * MiB << 4
                                  << "0.0 MiB | 0.5 MiB | 1.0 MiB | 1.5 MiB | 2.0 MiB";
        QTest::addRow("bytes never split")
            << format::Axis::Bytes << 0.0 << 3.0 << 5 << "0 B | 1 B | 2 B | 3 B";
        // A step axis (program steps, micro-batches) is never marked 1.5 and 2.5.
        QTest::addRow("steps") << format::Axis::Integer << 0.6 << 3.4 << 5 << "1 | 2 | 3";
        QTest::addRow("many steps")
            << format::Axis::Integer << 0.0 << 1000.0 << 5 << "0 | 200 | 400 | 600 | 800 | 1000";
        QTest::addRow("numbers") << format::Axis::Number << 0.0 << 1.0 << 4
                                 << "0.0 | 0.2 | 0.4 | 0.6 | 0.8 | 1.0";
        QTest::addRow("loss") << format::Axis::Number << 2.31 << 4.87 << 5
                              << "2.5 | 3.0 | 3.5 | 4.0 | 4.5";
        QTest::addRow("thousands") << format::Axis::Number << 0.0 << 12'000.0 << 5
                                   << "0 k | 2 k | 4 k | 6 k | 8 k | 10 k | 12 k";
        QTest::addRow("samples/s")
            << format::Axis::Number << 0.0 << 2.85e6 << 3 << "0 M | 1 M | 2 M";
        QTest::addRow("ms") << format::Axis::Seconds << 0.0 << 0.0123 << 3 << "0 ms | 5 ms | 10 ms";
        QTest::addRow("µs") << format::Axis::Seconds << 0.0 << 4.2e-5 << 4
                            << "0 \u00b5s | 10 \u00b5s | 20 \u00b5s | 30 \u00b5s | 40 \u00b5s";
        QTest::addRow("negative to positive")
            << format::Axis::Number << -1.0 << 1.0 << 4 << "-1.0 | -0.5 | 0.0 | 0.5 | 1.0";
        QTest::addRow("one value") << format::Axis::Bytes << 2.0 * MiB << 2.0 * MiB << 5 << "2 MiB";
    }
    void niceTicks()
    {
        QFETCH(format::Axis, axis);
        QFETCH(double, lo);
        QFETCH(double, hi);
        QFETCH(int, target);
        QFETCH(QString, expected);
        const format::Ticks t = format::niceTicks(lo, hi, axis, target);
        QCOMPARE(joined(t.labels), expected);
        QCOMPARE(t.values.size(), t.labels.size());
        for (const double v : t.values)
            QVERIFY2(v >= std::min(lo, hi) - 1e-9 && v <= std::max(lo, hi) + 1e-9,
                     qPrintable(QString::number(v)));
    }

    // Issue 26: a loss axis on a tight range read 0.69120 | 0.69125 | 0.69130. The range the
    // chart shows (readableRange) has round ticks of at most 4 significant digits, at least two
    // of them, on every range.
    void roundTicksOnTightRanges_data()
    {
        QTest::addColumn<double>("lo");
        QTest::addColumn<double>("hi");
        QTest::addRow("flat loss") << 0.69120 << 0.69130;
        QTest::addRow("one value") << 0.6912 << 0.6912;
        QTest::addRow("cross entropy") << 2.30251 << 2.30262;
        QTest::addRow("tiny values") << 1.0e-4 << 1.00001e-4;
        QTest::addRow("around 100") << 100.01 << 100.02;
        QTest::addRow("negative") << -0.50001 << -0.5;
        QTest::addRow("large") << 123456.0 << 123457.0;
        QTest::addRow("ordinary") << 2.31 << 4.87;
        QTest::addRow("around zero") << -0.001 << 0.002;
    }
    void roundTicksOnTightRanges()
    {
        QFETCH(double, lo);
        QFETCH(double, hi);
        const auto [shownLo, shownHi] = format::readableRange(lo, hi);
        QVERIFY(shownLo <= lo && shownHi >= hi);
        // A range that was wide enough is left alone.
        if (hi - lo >= 0.01 * std::max(std::abs(lo), std::abs(hi)))
            QVERIFY(shownLo == lo && shownHi == hi);
        const format::Ticks t = format::niceTicks(shownLo, shownHi, format::Axis::Number, 5);
        QVERIFY2(t.labels.size() >= 2, qPrintable(joined(t.labels)));
        for (const std::string& label : t.labels) {
            int digits = 0;
            bool leading = true;
            for (const char c : label) {
                if (c < '0' || c > '9')
                    continue;
                leading = leading && c == '0';
                digits += leading ? 0 : 1;
            }
            QVERIFY2(digits <= 4, qPrintable(joined(t.labels)));
        }
    }

    void niceTicksSurviveBadRanges()
    {
        QVERIFY(format::niceTicks(0, std::numeric_limits<double>::infinity(), format::Axis::Number)
                    .values.empty());
        QVERIFY(format::niceTicks(std::numeric_limits<double>::quiet_NaN(), 1, format::Axis::Bytes)
                    .values.empty());
        // A huge value with a tiny range: no endless loop, no thousands of ticks.
        QVERIFY(format::niceTicks(1e15, 1e15 + 1e-3, format::Axis::Number).values.size() <= 10'001);
        // Reversed bounds are the same range.
        QCOMPARE(format::niceTicks(10, 0, format::Axis::Integer).labels,
                 format::niceTicks(0, 10, format::Axis::Integer).labels);
    }

    void stepsAreRound_data()
    {
        QTest::addColumn<double>("range");
        QTest::addColumn<int>("target");
        QTest::addColumn<double>("step");
        QTest::addRow("1") << 5.0 << 5 << 1.0;
        QTest::addRow("2") << 9.0 << 4 << 2.0;
        QTest::addRow("5") << 17.3 << 4 << 5.0;
        QTest::addRow("10") << 42.0 << 5 << 10.0;
        QTest::addRow("0.05") << 0.23 << 5 << 0.05;
        QTest::addRow("empty") << 0.0 << 5 << 0.0;
    }
    void stepsAreRound()
    {
        QFETCH(double, range);
        QFETCH(int, target);
        QFETCH(double, step);
        QCOMPARE(format::niceStep(range, target), step);
    }
};

QTEST_APPLESS_MAIN(TestNumberFormat)
#include "test_number_format.moc"
