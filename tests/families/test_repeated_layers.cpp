// GraphBuilder::repeatedLayers: a run of layers copied from the one before gives the graph that
// building every layer op by op gives (names, edges, figures), and a layer whose ops would differ
// from a copy (an edge into an earlier layer, a changing shape) is built, never
// copied wrong.
#include "core/families/graph_builder.h"
#include "core/graph/graph_json.h"

#include <QTest>
#include <functional>

using namespace portolan;
using families::GraphBuilder;
using families::Tensor;

namespace {

// One layer's ops on input x; `state` is what a layer may keep between calls (the previous
// layer's output for an edge two layers back, a call count).
using Layer = std::function<Tensor(GraphBuilder&, const Tensor&, Tensor& state, int& calls)>;

graph::OpGraph build(const Layer& layer, int layers, bool repeated)
{
    graph::OpGraph g;
    GraphBuilder b(g);
    b.beginLayer("embeddings");
    b.scope("embeddings.wte");
    Tensor x = b.embedding(b.input({16}, graph::DType::Int64), 1000, 32);
    b.scope("embeddings");
    const Tensor condition = b.constant({1, 1, 32}, graph::DType::Float32);
    Tensor state = condition;
    int calls = 0;
    g.firstBlock = b.layerCount();
    g.blockCount = layers;
    const auto one = [&](const Tensor& in) {
        return layer(b, in, state, calls);
    };
    if (repeated) {
        x = b.repeatedLayers(layers, "h", x, one);
    } else {
        for (int l = 0; l < layers; ++l) {
            b.beginLayer("h" + std::to_string(l));
            x = one(x);
        }
    }
    b.beginLayer("head");
    b.linear(x, 1000, false);
    return g;
}

} // namespace

Q_DECLARE_METATYPE(Layer)

class TestRepeatedLayers : public QObject
{
    Q_OBJECT
private slots:
    void sameAsBuilt_data()
    {
        QTest::addColumn<Layer>("layer");
        QTest::addColumn<int>("layers");
        QTest::addRow("residual block")
            << Layer([](GraphBuilder& b, const Tensor& x, Tensor&, int&) {
                   const std::string s = b.currentScope(); // the layer's
                   b.scope(s + ".fc");
                   Tensor h = b.unary("aten::gelu", b.linear(x, 64, true));
                   b.scope(s + ".proj");
                   h = b.linear(h, 32, true);
                   b.scope(s);
                   return b.add(x, h);
               })
            << 9;
        QTest::addRow("edge to an op before the layers")
            << Layer([](GraphBuilder& b, const Tensor& x, Tensor& condition, int&) {
                   return b.mul(b.layerNorm(x), condition); // the same condition for every layer
               })
            << 6;
        QTest::addRow("edge two layers back")
            << Layer([](GraphBuilder& b, const Tensor& x, Tensor& previous, int&) {
                   const Tensor y = b.add(b.linear(x, 32, false), previous);
                   previous = x;
                   return y;
               })
            << 7;
        QTest::addRow("width grows") << Layer([](GraphBuilder& b, const Tensor& x, Tensor&, int&) {
            return b.linear(x, x.last() + 8, true);
        }) << 6;
        QTest::addRow("fewer layers than are built")
            << Layer([](GraphBuilder& b, const Tensor& x, Tensor&, int&) { return b.rmsNorm(x); })
            << 2;
    }
    void sameAsBuilt()
    {
        QFETCH(Layer, layer);
        QFETCH(int, layers);
        const graph::OpGraph built = build(layer, layers, false);
        const graph::OpGraph repeated = build(layer, layers, true);
        QCOMPARE(repeated.ops.size(), built.ops.size());
        QCOMPARE(repeated.layerNames, built.layerNames);
        QCOMPARE(QString::fromStdString(graph::graphDocument(repeated)),
                 QString::fromStdString(graph::graphDocument(built)));
    }
};

QTEST_GUILESS_MAIN(TestRepeatedLayers)
#include "test_repeated_layers.moc"
