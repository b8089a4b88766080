#pragma once

// The twin test's cases and its check (test_families_twins.cpp): a case is params text for a
// family builder, a LibTorch twin of the same architecture built from the same sizes written out
// explicitly (twins.h), and an input for the recorder; the check is the same parameter count
// exactly and forward FLOPs within 1%. The cases are in twins_text.cpp and twins_vision.cpp.

#include "core/families/families.h"
#include "core/graph/recorder.h"
#include "twins.h" // LibTorch before Qt

#include <QTest>
#include <cmath>
#include <cstdio>
#include <functional>
#include <string>
#include <utility>
#include <vector>

namespace portolan::twins {

struct TwinCase
{
    std::string yaml;
    std::function<torch::nn::Sequential()> twin;
    std::function<torch::Tensor()> input;
};

// Cases, each a data row named by its first member.
using TwinCases = std::vector<std::pair<std::string, TwinCase>>;

const TwinCases& textCases();   // decoders, BERT-style encoders, encoder-decoders
const TwinCases& visionCases(); // the families that read images

inline void addTwinRows(const TwinCases& cases)
{
    QTest::addColumn<int>("index");
    int i = 0;
    for (const auto& c : cases)
        QTest::addRow("%s", c.first.c_str()) << i++;
}

// The builder's graph from the case's params against its recorded twin.
inline void checkTwin(const TwinCase& c)
{
    auto built = families::buildFromParamsText(c.yaml, "twin.yaml");
    QVERIFY2(built, built.error.toString().c_str());
    auto net = c.twin();
    auto recorded = graph::recordSequential(net, c.input(), "twin");
    QVERIFY2(recorded, recorded.error.toString().c_str());
    const double builderFlops = built.value->graph.totalForwardFlops();
    const double twinFlops = recorded.value->totalForwardFlops();
    const qlonglong builderParams = built.value->graph.totalParams();
    const qlonglong twinParams = twins::uniqueParameters(*net);
    std::printf("  %-12s params %12lld (twin %12lld), forward FLOPs %.6g (twin %.6g, %+.3f%%)\n",
                QTest::currentDataTag(), builderParams, twinParams, builderFlops, twinFlops,
                100 * (builderFlops - twinFlops) / twinFlops);
    QCOMPARE(builderParams, twinParams);
    QVERIFY2(
        std::abs(builderFlops - twinFlops) <= 0.01 * twinFlops,
        qPrintable(QStringLiteral("forward FLOPs %1 vs twin %2").arg(builderFlops).arg(twinFlops)));
}

} // namespace portolan::twins
