// Op graph recording from real LibTorch forward passes, FLOP rules, and targets as data.
#include "core/graph/recorder.h"
#include "core/targets/target.h"
#include "test_models.h"

#include <QTemporaryDir>
#include <QTest>
#include <fstream>

using namespace portolan;
using namespace portolan::graph;

class TestSimGraph : public QObject
{
    Q_OBJECT
private Q_SLOTS:
    void mlpByHand()
    {
        torch::manual_seed(0);
        auto r = recordSequential(test::mlp(784, 256, 10), torch::zeros({8, 1, 28, 28}), "mlp");
        QVERIFY2(r, r.error.toString().c_str());
        const OpGraph& g = *r.value;
        QCOMPARE(int(g.ops.size()), 6);
        QCOMPARE(g.recordedBatch, std::int64_t(8));
        QCOMPARE(g.ops[1].kind, std::string("Linear"));
        QCOMPARE(g.ops[1].modulePath, std::string("fc1"));
        QCOMPARE(g.ops[1].inputShapes.front(), (Shape{8, 784}));
        QCOMPARE(g.ops[1].outputShape, (Shape{8, 256}));
        // fc1: 784*256 weights + 256 biases; 2 x MACs per sample = 2*784*256.
        QCOMPARE(g.ops[1].paramCount, std::int64_t(784 * 256 + 256));
        QCOMPARE(g.ops[1].paramBytes, std::int64_t(4 * (784 * 256 + 256)));
        QCOMPARE(g.ops[1].forwardFlops, 2.0 * 784 * 256);
        QCOMPARE(g.ops[1].backwardFlops, 4.0 * 784 * 256);
        QCOMPARE(g.ops[1].activationBytes, std::int64_t(256 * 4));
        QCOMPARE(g.ops[2].forwardFlops, 256.0); // ReLU: one per element
        QVERIFY(g.ops[0].aliasesInput);         // Flatten is a view
        QCOMPARE(g.totalParams(), std::int64_t(784 * 256 + 256 + 256 * 256 + 256 + 256 * 10 + 10));
        QCOMPARE(g.totalForwardFlops(), 2.0 * (784 * 256 + 256 * 256 + 256 * 10) + 256 + 256);
    }

    void cnnByHand()
    {
        auto r = recordSequential(test::cnn(), torch::zeros({2, 3, 32, 32}), "cnn");
        QVERIFY2(r, r.error.toString().c_str());
        const OpGraph& g = *r.value;
        QCOMPARE(g.ops[0].kind, std::string("Conv2d"));
        QCOMPARE(g.ops[0].outputShape, (Shape{2, 16, 32, 32}));
        // conv1: 16*32*32 outputs x (3*3*3) MACs x 2.
        QCOMPARE(g.ops[0].forwardFlops, 2.0 * 16 * 32 * 32 * 27);
        QCOMPARE(g.ops[2].kind, std::string("MaxPool2d"));
        QCOMPARE(g.ops[2].extraSavedBytes, std::int64_t(16 * 16 * 16 * 8)); // int64 indices
        QCOMPARE(g.ops[4].paramCount, std::int64_t(64)); // BatchNorm2d(32): weight + bias
    }

    void transformerComposite()
    {
        auto r = recordSequential(test::transformer(64, 32, 4, 2),
                                  torch::zeros({2, 16}, torch::kLong), "tiny-gpt");
        QVERIFY2(r, r.error.toString().c_str());
        const OpGraph& g = *r.value;
        QCOMPARE(g.layerNames.size(), std::size_t(5));
        QCOMPARE(g.inputDtype, DType::Int64);
        // Every parameter of the model is attributed to exactly one op.
        auto net = test::transformer(64, 32, 4, 2);
        std::int64_t params = 0;
        for (const auto& p : net->parameters())
            params += p.numel();
        QCOMPARE(g.totalParams(), params);
        // The blocks were traced into ATen ops under their module path.
        int blockOps = 0;
        double blockFlops = 0;
        for (const auto& op : g.ops)
            if (op.layer == 1) {
                ++blockOps;
                blockFlops += op.forwardFlops;
                QVERIFY(op.modulePath.rfind("block0", 0) == 0);
            }
        QVERIFY(blockOps > 5);
        // Matmul FLOPs of one block per sample (T=16, D=32): q,k,v,out projections 4*T*D*D,
        // scores and weighted sum 2*T*T*D, MLP 2*T*D*4D; x2 for FLOPs. Elementwise ops add a
        // little on top.
        const double matmuls = 2.0 * (4 * 16 * 32 * 32 + 2 * 16 * 16 * 32 + 2 * 16 * 32 * 128);
        QVERIFY2(blockFlops >= matmuls && blockFlops < 1.2 * matmuls,
                 QByteArray::number(blockFlops / matmuls).constData());
    }

    void forwardFailureIsAnError()
    {
        auto r = recordSequential(test::mlp(784, 16, 10), torch::zeros({2, 3, 10}), "bad");
        QVERIFY(!r);
        QVERIFY(r.error.message.find("fc1") != std::string::npos);
    }

    void targets_data()
    {
        QTest::addColumn<QString>("id");
        QTest::addColumn<int>("tiles");
        QTest::addColumn<double>("memory");
        QTest::addRow("mk1") << "ipu-mk1" << 1216 << 1216.0 * 256 * 1024;
        QTest::addRow("mk2") << "ipu-mk2" << 1472 << 1472.0 * 624 * 1024;
        QTest::addRow("bow") << "ipu-bow" << 1472 << 1472.0 * 624 * 1024;
        QTest::addRow("cs-2") << "cs-2" << 0 << 40e9;
        QTest::addRow("cs-3") << "cs-3" << 0 << 44e9;
    }
    void targets()
    {
        QFETCH(QString, id);
        QFETCH(int, tiles);
        QFETCH(double, memory);
        auto t = targets::loadTarget(id.toStdString());
        QVERIFY2(t, t.error.toString().c_str());
        if (tiles) {
            QCOMPARE(t.value->ipu.tiles, tiles);
            QCOMPARE(double(t.value->ipu.tiles) * double(t.value->ipu.tileMemoryBytes), memory);
        } else {
            QCOMPARE(t.value->cs.sramBytes, memory);
        }
    }

    void systems()
    {
        auto s = targets::loadIpuSystems();
        QVERIFY2(s, s.error.toString().c_str());
        QCOMPARE(targets::ipuSystemName(*s.value, 4), std::string("IPU-M2000 (4 IPUs)"));
        QCOMPARE(targets::ipuSystemName(*s.value, 64), std::string("IPU-POD64"));
    }

    void badTargets_data()
    {
        QTest::addColumn<QByteArray>("yaml");
        QTest::addColumn<int>("line");
        QTest::addColumn<QString>("needle");
        QTest::addRow("missing key") << QByteArray("id: x\nname: X\nkind: ipu\nipu:\n  tiles: 4\n")
                                     << 5 << "tile_memory_bytes";
        QTest::addRow("not a number")
            << QByteArray("id: x\nname: X\nkind: cs\ncs:\n  cores: many\n") << 5 << "number";
        QTest::addRow("bad kind") << QByteArray("id: x\nname: X\nkind: gpu\n") << 3 << "kind";
        QTest::addRow("syntax") << QByteArray("id: [x\nname: X\n") << 2 << "";
    }
    void badTargets()
    {
        QFETCH(QByteArray, yaml);
        QFETCH(int, line);
        QFETCH(QString, needle);
        QTemporaryDir dir;
        const std::string path = dir.filePath("t.yaml").toStdString();
        std::ofstream(path) << yaml.toStdString();
        auto t = targets::loadTargetFile(path);
        QVERIFY(!t);
        QCOMPARE(t.error.location.line, line);
        QVERIFY2(t.error.message.find(needle.toStdString()) != std::string::npos,
                 t.error.message.c_str());
    }

    void unknownTarget()
    {
        auto t = targets::loadTarget("tpu-v4");
        QVERIFY(!t);
        QVERIFY(t.error.message.find("ipu-mk2") != std::string::npos);
    }
};

QTEST_GUILESS_MAIN(TestSimGraph)
#include "test_sim_graph.moc"
