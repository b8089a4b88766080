// Report JSON: round trip, corrupt and truncated files, Chrome trace export, compare.
#include "core/graph/recorder.h"
#include "core/report/compare.h"
#include "core/report/report.h"
#include "core/report/trace.h"
#include "core/sim/compile.h"
#include "test_models.h"

#include <QTemporaryDir>
#include <QTest>
#include <fstream>

using namespace portolan;
using namespace portolan::sim;

namespace {

CompileResult compileMlp(Precision p, int ipus = 2)
{
    auto g = graph::recordSequential(test::mlp(784, 128, 10), torch::zeros({2, 784}), "mlp");
    CompileOptions o;
    o.ipus = ipus;
    o.training.precision = p;
    o.training.gradAccum = 4;
    o.training.microBatch = 4;
    return *compileGraph(*g.value, o).value;
}

} // namespace

class TestSimReport : public QObject
{
    Q_OBJECT
private Q_SLOTS:
    void roundTrip()
    {
        const auto r = compileMlp(Precision::Fp32);
        QTemporaryDir dir;
        const std::string path = dir.filePath("r.json").toStdString();
        QVERIFY(!report::saveReport(path, r));
        auto back = report::loadReport(path);
        QVERIFY2(back, back.error.toString().c_str());
        QCOMPARE(report::toJson(*back.value).dump(), report::toJson(r).dump());
        QCOMPARE(report::toJson(r)["schema_version"].get<int>(), report::kSchemaVersion);
        QCOMPARE(back.value->ipu->variables.size(), r.ipu->variables.size());
    }

    void badFiles_data()
    {
        QTest::addColumn<QByteArray>("bytes");
        QTest::addColumn<QString>("needle");
        QTest::addColumn<int>("line");
        QTest::addRow("empty") << QByteArray("") << "truncated" << 1;
        QTest::addRow("garbage") << QByteArray("{\n  \"a\": ]\n}") << "not valid JSON" << 2;
        QTest::addRow("text after the object")
            << QByteArray("{\"schema_version\": 1}\n{\"fits\": true}\n") << "not valid JSON" << 2;
        QTest::addRow("no version") << QByteArray("{\"fits\": true}") << "schema_version" << 0;
        QTest::addRow("future version") << QByteArray("{\"schema_version\": 99}") << "99" << 0;
        QTest::addRow("missing fields")
            << QByteArray("{\"schema_version\": 1}") << "malformed" << 0;
    }
    void badFiles()
    {
        QFETCH(QByteArray, bytes);
        QFETCH(QString, needle);
        QFETCH(int, line);
        QTemporaryDir dir;
        const std::string path = dir.filePath("bad.json").toStdString();
        std::ofstream(path, std::ios::binary) << bytes.toStdString();
        auto r = report::loadReport(path);
        QVERIFY(!r);
        QVERIFY2(r.error.message.find(needle.toStdString()) != std::string::npos,
                 r.error.message.c_str());
        QCOMPARE(r.error.location.line, line);
    }

    // The fast reader takes the variables and tile_bytes columns straight from the text; a
    // broken column is reported, never read past.
    void brokenColumns_data()
    {
        QTest::addColumn<QString>("pointer");
        QTest::addColumn<QString>("change");
        QTest::addColumn<QString>("needle");
        QTest::addRow("string in an integer column") << "/ipu/variables/bytes/0"
                                                     << "string"
                                                     << "non-integer";
        QTest::addRow("fraction in an integer column") << "/ipu/variables/first_tile/0"
                                                       << "fraction"
                                                       << "non-integer";
        QTest::addRow("short column") << "/ipu/variables/stage"
                                      << "shorten"
                                      << "different length";
        QTest::addRow("missing column") << "/ipu/variables/live_to"
                                        << "remove"
                                        << "no live_to";
        QTest::addRow("missing memory category") << "/ipu/tile_bytes/vertex_code"
                                                 << "remove"
                                                 << "tile_bytes has no vertex_code";
    }
    void brokenColumns()
    {
        QFETCH(QString, pointer);
        QFETCH(QString, change);
        QFETCH(QString, needle);
        auto j = report::toJson(compileMlp(Precision::Fp32));
        const nlohmann::json::json_pointer at(pointer.toStdString());
        QVERIFY2(j.contains(at), qPrintable(pointer));
        if (change == QLatin1String("string"))
            j[at] = "x";
        else if (change == QLatin1String("fraction"))
            j[at] = 1.5;
        else if (change == QLatin1String("shorten"))
            j[at].erase(j[at].size() - 1);
        else
            j[at.parent_pointer()].erase(at.back());
        QTemporaryDir dir;
        const std::string path = dir.filePath("broken.json").toStdString();
        std::ofstream(path, std::ios::binary) << j.dump();
        auto r = report::loadReport(path);
        QVERIFY(!r);
        QVERIFY2(r.error.message.find(needle.toStdString()) != std::string::npos,
                 r.error.message.c_str());
        QVERIFY2(r.error.message.find("malformed") != std::string::npos, r.error.message.c_str());
    }

    void truncatedReport()
    {
        const auto r = compileMlp(Precision::Fp32);
        const std::string text = report::toJson(r).dump();
        QTemporaryDir dir;
        const std::string path = dir.filePath("cut.json").toStdString();
        std::ofstream(path, std::ios::binary) << text.substr(0, text.size() / 2);
        auto back = report::loadReport(path);
        QVERIFY(!back);
        QVERIFY2(back.error.message.find("truncated") != std::string::npos,
                 back.error.message.c_str());
        QVERIFY(!report::loadReport(dir.filePath("missing.json").toStdString()));
    }

    void chromeTrace()
    {
        const auto r = compileMlp(Precision::Fp32);
        const auto j = nlohmann::json::parse(report::chromeTrace(r));
        int slices = 0;
        for (const auto& e : j["traceEvents"])
            if (e["ph"] == "X") {
                ++slices;
                QVERIFY(e["dur"].get<double>() > 0);
            }
        QCOMPARE(slices, 2 * 2 * 4); // stages x micro-batches x (forward, backward)
    }

    void compareFp32Fp16()
    {
        const auto a = compileMlp(Precision::Fp32);
        const auto b = compileMlp(Precision::Fp16);
        const auto c = report::compareReports(a, b);
        QVERIFY(!c.notes.empty());
        bool sawWeights = false;
        for (const auto& row : c.rows)
            if (row.metric == "memory.weights") {
                sawWeights = true;
                QCOMPARE(row.b, row.a / 2); // fp16 weights are half the bytes
            }
        QVERIFY(sawWeights);
        QVERIFY(report::comparisonText(c).find("memory.weights") != std::string::npos);
        QCOMPARE(report::comparisonJson(c)["rows"].size(), c.rows.size());
    }
};

QTEST_GUILESS_MAIN(TestSimReport)
#include "test_sim_report.moc"
