// The split as users write it (sim::LayerSplit): parsing with positioned errors and 0s, the
// boundary edits the Pipeline page and the split bar make, and placement on a graph, in layers
// or in Graphcore's blocks (embeddings first, a tied head back on the embedding's IPU).
#include "core/sim/layer_split.h"
#include "core/sim/profile.h"

#include <QTest>

using namespace portolan;
using namespace portolan::sim;

namespace {

// 8 ops in 4 layers: 0 0 | 1 1 1 | 2 | 3 3. Layers 1 and 2 are the blocks; layer 3's last op is
// a head tied to op 0 (the embedding) when `tied`.
graph::OpGraph chain(bool tied)
{
    graph::OpGraph g;
    const int layers[] = {0, 0, 1, 1, 1, 2, 3, 3};
    for (int i = 0; i < 8; ++i) {
        graph::Op op;
        op.name = "op" + std::to_string(i);
        op.layer = layers[i];
        g.ops.push_back(op);
    }
    g.layerNames = {"embeddings", "h0", "h1", "head"};
    g.firstBlock = 1;
    g.blockCount = 2;
    if (tied)
        g.ops[7].tiedTo = 0;
    return g;
}

std::vector<int> flatten(const Placement& p)
{
    std::vector<int> out;
    for (const auto& s : p.stages)
        out.insert(out.end(), {s.firstOp, s.endOp, s.ipu});
    return out;
}

} // namespace

class TestSimLayerSplit : public QObject
{
    Q_OBJECT
private Q_SLOTS:
    void parse_data()
    {
        QTest::addColumn<QString>("text");
        QTest::addColumn<QString>("error");
        QTest::addColumn<QString>("canonical");
        QTest::addRow("plain") << "3,7,7,7"
                               << ""
                               << "3,7,7,7";
        QTest::addRow("spaces and zero") << "0, 4, 4 ,4"
                                         << ""
                                         << "0,4,4,4";
        QTest::addRow("junk") << "2,x"
                              << "'x' at column 3"
                              << "";
        QTest::addRow("negative") << "2,-1"
                                  << "'-1' at column 3"
                                  << "";
        QTest::addRow("empty element") << "2,,2"
                                       << "'' at column 3"
                                       << "";
        QTest::addRow("all zero") << "0,0"
                                  << "no layer at all"
                                  << "";
    }
    void parse()
    {
        QFETCH(QString, text);
        QFETCH(QString, error);
        auto r = LayerSplit::parse(text.toStdString());
        if (!error.isEmpty()) {
            QVERIFY(!r);
            QVERIFY2(QString::fromStdString(r.error.message).contains(error),
                     r.error.message.c_str());
            return;
        }
        QVERIFY2(r, r.error.message.c_str());
        QTEST(QString::fromStdString(r.value->toString()), "canonical");
    }

    void edits()
    {
        LayerSplit s({2, 3, 1});
        QVERIFY(s.setStage(0, 4)); // takes from the next stage
        QCOMPARE(s.perStage(), (std::vector<int>{4, 1, 1}));
        QVERIFY(!s.setStage(0, 5)); // the next stage would drop to 0
        QCOMPARE(s.perStage(), (std::vector<int>{4, 1, 1}));
        // The last stage moves its boundary with the previous one, which keeps one layer.
        QVERIFY(!s.setStage(2, 2));
        QVERIFY(!s.setStage(1, 2)); // the next (last) stage would drop to 0
        QCOMPARE(s.perStage(), (std::vector<int>{4, 1, 1}));
        QVERIFY(s.setStage(0, 4, 0) == false); // no change: not an edit
        QVERIFY(s.setStage(0, 3, 0));          // with 0 allowed (blocks) stage 1 grows
        QCOMPARE(s.perStage(), (std::vector<int>{3, 2, 1}));

        LayerSplit b({2, 3, 1});
        QVERIFY(b.moveBoundary(0, 4)); // the boundary after stage 0 to 4 layers from the start
        QCOMPARE(b.perStage(), (std::vector<int>{4, 1, 1}));
        QVERIFY(!b.moveBoundary(0, 99)); // clamped to 4: stage 1 keeps one layer, no change
        QCOMPARE(b.perStage(), (std::vector<int>{4, 1, 1}));
        QVERIFY(!b.moveBoundary(1, 0)); // clamped to 5, where it is: stage 1 keeps one layer
        QVERIFY(b.moveBoundary(0, 2));
        QCOMPARE(b.perStage(), (std::vector<int>{2, 3, 1}));
        QVERIFY(!b.moveBoundary(5, 1));
        QCOMPARE(b.total(), 6);
    }

    void fromStages()
    {
        std::vector<StageProfile> stages(3);
        stages[0].firstLayer = 0;
        stages[1].firstLayer = 2;
        stages[2].firstLayer = 4;
        QCOMPARE(LayerSplit::fromStages(stages, 8).perStage(), (std::vector<int>{2, 2, 4}));
        stages[2].firstLayer = 2; // two stages starting in one layer: each keeps one
        QCOMPARE(LayerSplit::fromStages(stages, 4).perStage(), (std::vector<int>{2, 1, 1}));
    }

    void place_data()
    {
        QTest::addColumn<QString>("split");
        QTest::addColumn<bool>("tied");
        QTest::addColumn<QString>("unit");
        QTest::addColumn<QString>("placement"); // first,end,ipu per stage
        QTest::addColumn<QString>("error");
        QTest::addRow("layers") << "1,2,1" << false << "layers"
                                << "0,2,0,2,6,1,6,8,2"
                                << "";
        QTest::addRow("blocks, untied head on the last IPU") << "1,1" << false << "blocks"
                                                             << "0,5,0,5,8,1"
                                                             << "";
        QTest::addRow("blocks, 0: embeddings only, tied head back on IPU 0")
            << "0,2" << true << "blocks"
            << "0,2,0,2,6,1,6,8,0"
            << "";
        QTest::addRow("layers, wrong total") << "1,2" << false << ""
                                             << ""
                                             << "covers 3 layers but the model has 4";
        QTest::addRow("0 without blocks") << "2,0,2" << false << ""
                                          << ""
                                          << "holds no layer";
        QTest::addRow("an IPU with nothing (the tied head goes back to IPU 0)")
            << "2,0" << true << ""
            << ""
            << "IPU 1 of the split would hold no op";
        QTest::addRow("0 at the end holds the untied head") << "2,0" << false << "blocks"
                                                            << "0,6,0,6,8,1"
                                                            << "";
    }
    void place()
    {
        QFETCH(QString, split);
        QFETCH(bool, tied);
        QFETCH(QString, error);
        auto s = LayerSplit::parse(split.toStdString());
        QVERIFY(s);
        auto p = placeSplit(chain(tied), *s.value, s.value->stages());
        if (!error.isEmpty()) {
            QVERIFY(!p);
            QVERIFY2(QString::fromStdString(p.error.message).contains(error),
                     p.error.message.c_str());
            return;
        }
        QVERIFY2(p, p.error.message.c_str());
        QTEST(QString::fromStdString(p.value->unit), "unit");
        QStringList got;
        for (int v : flatten(*p.value))
            got << QString::number(v);
        QTEST(got.join(','), "placement");
    }
};

QTEST_GUILESS_MAIN(TestSimLayerSplit)
#include "test_sim_layer_split.moc"
