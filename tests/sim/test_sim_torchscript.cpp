// The TorchScript route: frozen, inlined, shapes propagated from the given input shape.
// Fixtures are generated at test time by fixtures/make_torchscript.py with /usr/bin/python3.
#include "core/graph/torchscript.h"

#include <QFileInfo>
#include <QProcess>
#include <QTemporaryDir>
#include <QTest>

using namespace portolan;
using namespace portolan::graph;

class TestSimTorchScript : public QObject
{
    Q_OBJECT
    QTemporaryDir m_dir;
    std::string path(const char* name) const { return m_dir.filePath(name).toStdString(); }

private Q_SLOTS:
    void initTestCase()
    {
        if (!QFileInfo::exists("/usr/bin/python3"))
            QSKIP("/usr/bin/python3 with python3-torch is needed to make the fixtures");
        QProcess py;
        py.start("/usr/bin/python3",
                 {QString(PORTOLAN_SOURCE_DIR) + "/tests/sim/fixtures/make_torchscript.py",
                  m_dir.path()});
        QVERIFY(py.waitForFinished(120000));
        QVERIFY2(py.exitCode() == 0, py.readAllStandardError().constData());
    }

    void smallCnn()
    {
        auto r = recordTorchScript(path("small_cnn.pt"), {2, 3, 32, 32});
        QVERIFY2(r, r.error.toString().c_str());
        const OpGraph& g = *r.value;
        QCOMPARE(g.origin, std::string("torchscript"));
        const Op* conv = nullptr;
        const Op* linear = nullptr;
        for (const auto& op : g.ops) {
            if (op.kind == "aten::conv2d")
                conv = &op;
            if (op.kind == "aten::linear")
                linear = &op;
        }
        QVERIFY(conv && linear);
        QCOMPARE(conv->outputShape, (Shape{2, 8, 32, 32}));
        QCOMPARE(conv->forwardFlops, 2.0 * 8 * 32 * 32 * 27); // per sample
        QCOMPARE(conv->paramCount, std::int64_t(8 * 27 + 8));
        QVERIFY2(conv->modulePath.find("features") == 0, conv->modulePath.c_str());
        QCOMPARE(linear->outputShape, (Shape{2, 10}));
        QCOMPARE(linear->paramCount, std::int64_t(8 * 32 * 32 * 10 + 10));
        QCOMPARE(g.totalParams(), std::int64_t(8 * 27 + 8 + 8 * 32 * 32 * 10 + 10));
        QVERIFY(g.layerNames.size() >= 2);
        QVERIFY(g.diagnostics.empty());
    }

    void controlFlowIsADiagnostic()
    {
        auto r = recordTorchScript(path("branchy.pt"), {4, 16});
        QVERIFY2(r, r.error.toString().c_str());
        bool found = false;
        for (const auto& d : r.value->diagnostics)
            if (d.code == "compile.control-flow") {
                found = true;
                QVERIFY2(d.location.line > 0, d.toString().c_str());
            }
        QVERIFY(found);
    }

    void errors_data()
    {
        QTest::addColumn<QString>("file");
        QTest::addColumn<QString>("shape");
        QTest::addColumn<QString>("needle");
        QTest::addRow("corrupt") << "corrupt.pt"
                                 << "1,3,32,32"
                                 << "not a readable TorchScript";
        QTest::addRow("missing") << "nope.pt"
                                 << "1,3,32,32"
                                 << "no such TorchScript file";
        QTest::addRow("wrong shape") << "small_cnn.pt"
                                     << "1,3,28,28"
                                     << "does not accept an input of shape [1, 3, 28, 28]";
        QTest::addRow("wrong rank") << "small_cnn.pt"
                                    << "1,784"
                                    << "does not accept";
        QTest::addRow("inputs counted") << "two_inputs.pt"
                                        << "1,4"
                                        << "forward takes 2 inputs, but 1 was given";
    }
    void errors()
    {
        QFETCH(QString, file);
        QFETCH(QString, shape);
        QFETCH(QString, needle);
        auto s = parseShape(shape.toStdString());
        QVERIFY(s);
        auto r = recordTorchScript(path(file.toUtf8().constData()), *s.value);
        QVERIFY(!r);
        QVERIFY2(r.error.message.find(needle.toStdString()) != std::string::npos,
                 r.error.message.c_str());
    }

    void badShapeText()
    {
        auto s = parseShape("1,3,x,32");
        QVERIFY(!s);
        QCOMPARE(s.error.location.column, 5);
        QVERIFY(!parseShape("1,,2"));
        QCOMPARE(*parseShape("1x3x32x32").value, (Shape{1, 3, 32, 32}));
    }
};

QTEST_GUILESS_MAIN(TestSimTorchScript)
#include "test_sim_torchscript.moc"
