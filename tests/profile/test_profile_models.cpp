// Profile view models (QAbstractItemModelTester), tile statistics and decimation, the op-graph
// DOT builder, against reports made by the real compiler.
#include "core/report/compare.h"
#include "profile_fixture.h"
#include "views/profile/comparison_model.h"
#include "views/profile/cs_kernel_model.h"
#include "views/profile/op_graph_dot.h"
#include "views/profile/tile_stats.h"
#include "views/profile/variable_table_model.h"

#include <QAbstractItemModelTester>
#include <QPalette>
#include <QtTest>

using namespace portolan;
using namespace portolan::views;

class TestProfileModels : public QObject
{
    Q_OBJECT
private slots:
    void initTestCase()
    {
        QVERIFY2(!test::smallGraph().ops.empty(), "the small graph records");
        m_ipu = test::compileSmall("ipu-mk2", 2);
        m_cs = test::compileSmall("cs-2", 1);
        QVERIFY(m_ipu && m_ipu->ipu);
        QVERIFY(m_cs && m_cs->cs);
    }

    void variableModel_data()
    {
        QTest::addColumn<int>("tile");
        QTest::addRow("first tile") << 0;
        QTest::addRow("fullest tile") << -2;
        QTest::addRow("second IPU") << -3;
        QTest::addRow("no tile (live list)") << -1;
    }
    void variableModel()
    {
        QFETCH(int, tile);
        const auto& ipu = *m_ipu->ipu;
        const TileStats stats = TileStats::from(ipu);
        if (tile == -2)
            tile =
                int(std::max_element(stats.total.begin(), stats.total.end()) - stats.total.begin());
        if (tile == -3)
            tile = ipu.tilesPerIpu + 5;
        VariableTableModel model;
        QAbstractItemModelTester tester(&model,
                                        QAbstractItemModelTester::FailureReportingMode::QtTest);
        std::vector<int> indices =
            tile >= 0 ? sim::variablesOnTile(ipu, tile) : sim::variablesLiveAt(ipu, 0);
        const std::size_t count = indices.size();
        model.setVariables(m_ipu, indices, tile);
        QCOMPARE(model.rowCount(), int(count));
        QVERIFY2(count > 0, "every probed tile and step holds variables");
        model.sort(VariableTableModel::BytesHere, Qt::DescendingOrder);
        for (int r = 1; r < model.rowCount(); ++r)
            QVERIFY(
                model.index(r - 1, VariableTableModel::BytesHere).data(Qt::UserRole).toLongLong() >=
                model.index(r, VariableTableModel::BytesHere).data(Qt::UserRole).toLongLong());
        model.sort(VariableTableModel::Name, Qt::AscendingOrder);
        if (tile >= 0) {
            // Not every variable is live at once, so the category bytes are a peak, not a sum.
            QVERIFY(model.bytesHere() >= ipu.tileBytes[0][std::size_t(tile)]);
        }
        model.clear();
        QCOMPARE(model.rowCount(), 0);
    }

    void coverWraps()
    {
        sim::Variable v;
        v.firstTile = 1470; // IPU 1 of 1472-tile IPUs starts at 1472: this is IPU 0's end
        v.tileCount = 4;
        QVERIFY(sim::variableCoversTile(v, 1470, 1472));
        QVERIFY(sim::variableCoversTile(v, 1471, 1472));
        QVERIFY(sim::variableCoversTile(v, 0, 1472)); // wraps within IPU 0
        QVERIFY(sim::variableCoversTile(v, 1, 1472));
        QVERIFY(!sim::variableCoversTile(v, 2, 1472));
        QVERIFY(!sim::variableCoversTile(v, 1472, 1472)); // never spills into the next IPU
    }

    void decimation_data()
    {
        QTest::addColumn<int>("columns");
        QTest::addRow("fewer columns than tiles") << 300;
        QTest::addRow("one column") << 1;
        QTest::addRow("more columns than tiles") << 100000;
    }
    void decimation()
    {
        QFETCH(int, columns);
        const TileStats stats = TileStats::from(*m_ipu->ipu);
        const Envelope e = decimate(stats, 0, stats.tileCount, columns);
        QCOMPARE(int(e.key.size()), std::min(columns, stats.tileCount));
        const double trueMax = double(*std::max_element(stats.total.begin(), stats.total.end()));
        const double trueMin = double(*std::min_element(stats.total.begin(), stats.total.end()));
        QCOMPARE(*std::max_element(e.max.begin(), e.max.end()), trueMax); // peaks never lost
        QCOMPARE(*std::min_element(e.min.begin(), e.min.end()), trueMin);
        for (int i = 0; i < e.key.size(); ++i)
            QVERIFY(e.min[i] <= e.mean[i] && e.mean[i] <= e.max[i]);
        QVERIFY(decimate(stats, 10, 5, columns).key.isEmpty());
    }

    void csKernels()
    {
        CsKernelModel model;
        QAbstractItemModelTester tester(&model,
                                        QAbstractItemModelTester::FailureReportingMode::QtTest);
        model.setResult(m_cs);
        QCOMPARE(model.rowCount(), int(m_cs->cs->kernels.size()));
        QVERIFY(model.rowCount() > 0);
        QCOMPARE(model.index(0, CsKernelModel::Name).data().toString(),
                 QString::fromStdString(m_cs->cs->kernels[0].name));
        model.setResult(m_ipu); // an IPU report has no kernels
        QCOMPARE(model.rowCount(), 0);
    }

    void comparison()
    {
        ComparisonModel model;
        QAbstractItemModelTester tester(&model,
                                        QAbstractItemModelTester::FailureReportingMode::QtTest);
        auto four = test::compileSmall("ipu-mk2", 4);
        model.setComparison(report::compareReports(*m_ipu, *four));
        QVERIFY(model.rowCount() > 3);
        bool changed = false;
        for (int r = 0; r < model.rowCount(); ++r)
            changed |= model.index(r, ComparisonModel::Delta).data(Qt::UserRole).toDouble() != 0;
        QVERIFY2(changed, "2 against 4 IPUs differs somewhere");
        QCOMPARE(formatMetric(1, "flag"), QStringLiteral("yes"));
        model.setComparison({});
        QCOMPARE(model.rowCount(), 0);
    }

    void opGraphDot_data()
    {
        QTest::addColumn<int>("depth");
        QTest::addColumn<bool>("placement");
        QTest::addRow("expanded, by stage") << 0 << false;
        QTest::addRow("modules collapsed, by placement") << 1 << true;
    }
    void opGraphDot()
    {
        QFETCH(int, depth);
        QFETCH(bool, placement);
        OpGraphDotOptions o;
        o.moduleDepth = depth;
        o.byPlacement = placement;
        const OpGraphDot dot = views::opGraphDot(*m_ipu, o, QPalette());
        QVERIFY(dot.dot.startsWith("digraph"));
        QVERIFY(dot.dot.trimmed().endsWith("}"));
        QCOMPARE(dot.groupOfOp.size(), m_ipu->graph.ops.size());
        if (depth == 0)
            QCOMPARE(dot.nodes, int(m_ipu->graph.ops.size()));
        else
            QVERIFY(dot.nodes < int(m_ipu->graph.ops.size()));
        QVERIFY(dot.dot.contains(placement ? "IPU 1" : "stage 1"));
        o.moduleDepth = 0;
        o.maxNodes = 10; // forces collapsing
        const OpGraphDot small = views::opGraphDot(*m_ipu, o, QPalette());
        QCOMPARE(small.depthUsed, 1);
        QVERIFY(small.nodes < int(m_ipu->graph.ops.size()));
    }

private:
    std::shared_ptr<sim::CompileResult> m_ipu, m_cs;
};

QTEST_MAIN(TestProfileModels)
#include "test_profile_models.moc"
