// The code view (tree-sitter colours, markers, navigation) and the Graphviz graph view.
#include "core/highlight/python_highlight.h"
#include "views/code/code_view.h"
#include "views/graph/graph_view.h"
#include "views/graph/graphviz_render.h"
#include "views/params/yaml_text_view.h"
#include "views/porting/analysis_runner.h"
#include "views/porting/flow_panel.h"

#include <QImage>
#include <QLabel>
#include <QScrollBar>
#include <QSignalSpy>
#include <QTest>
#include <QTextBlock>
#include <QToolButton>

using namespace portolan;
using namespace portolan::views;

class TestCodeAndGraph : public QObject
{
    Q_OBJECT
private slots:
    void highlight_data()
    {
        QTest::addColumn<QString>("source");
        QTest::addColumn<QString>("token");
        QTest::addColumn<int>("cls");
        QTest::addRow("keyword") << "def f(x):\n    return x\n"
                                 << "def" << int(TokenClass::Keyword);
        QTest::addRow("return") << "def f(x):\n    return x\n"
                                << "return" << int(TokenClass::Keyword);
        QTest::addRow("function name") << "def forward(x):\n    pass\n"
                                       << "forward" << int(TokenClass::Function);
        QTest::addRow("class name") << "class Net(Base):\n    pass\n"
                                    << "Net" << int(TokenClass::Class);
        QTest::addRow("string") << "x = 'hi'\n"
                                << "'hi'" << int(TokenClass::String);
        QTest::addRow("comment") << "x = 1  # note\n"
                                 << "# note" << int(TokenClass::Comment);
        QTest::addRow("number") << "x = 3.5\n"
                                << "3.5" << int(TokenClass::Number);
        QTest::addRow("constant") << "x = None\n"
                                  << "None" << int(TokenClass::Constant);
        QTest::addRow("call") << "y = torch.zeros(3)\n"
                              << "zeros" << int(TokenClass::Function);
        QTest::addRow("self") << "def f(self):\n    self.x = 1\n"
                              << "self" << int(TokenClass::Builtin);
        QTest::addRow("utf-8 before") << "s = 'café'\nx = 42\n"
                                      << "42" << int(TokenClass::Number);
    }
    void highlight()
    {
        QFETCH(QString, source);
        QFETCH(QString, token);
        QFETCH(int, cls);
        const QByteArray utf8 = source.toUtf8();
        const auto spans =
            highlightPython(std::string_view(utf8.constData(), std::size_t(utf8.size())));
        const int at = int(utf8.indexOf(token.toUtf8()));
        QVERIFY(at >= 0);
        bool found = false;
        for (const auto& s : spans)
            if (int(s.begin) == at && int(s.end) == at + int(token.toUtf8().size()))
                found = int(s.cls) == cls;
        QVERIFY2(found, qPrintable(token));
        for (std::size_t i = 1; i < spans.size(); ++i)
            QVERIFY(spans[i].begin >= spans[i - 1].end); // sorted, no overlap
    }

    void highlightSurvivesGarbage()
    {
        const std::string garbage = "def (((\n\x01\x02 class :::: '''unterminated\n";
        const auto spans = highlightPython(garbage);
        for (const auto& s : spans)
            QVERIFY(s.end <= garbage.size());
    }

    void codeViewMarkersAndGoTo()
    {
        CodeView view;
        view.resize(600, 300);
        view.show();
        QString text;
        for (int i = 1; i <= 200; ++i)
            text += QStringLiteral("x%1 = %1  # line\n").arg(i);
        view.setSource(QStringLiteral("model.py"), text);
        view.setMarkers({{120, 1, Severity::Error, QStringLiteral("bad")},
                         {5, 0, Severity::Info, QStringLiteral("fyi")}});
        view.goTo(120, 3);
        QCOMPARE(view.textCursor().blockNumber(), 119);
        QCOMPARE(view.textCursor().positionInBlock(), 2);
        QCOMPARE(view.markers().size(), 2);
        // The marked line is scrolled into view.
        const QRect r = view.cursorRect();
        QVERIFY(view.viewport()->rect().contains(r.center()));
        // Syntax colours were applied to a Python file.
        const QTextBlock block = view.document()->findBlockByNumber(0);
        bool coloured = false;
        for (const auto& range : block.layout()->formats())
            coloured = coloured || range.format.foreground().style() != Qt::NoBrush;
        QVERIFY(coloured);
        // Out-of-range navigation is ignored, not a crash.
        view.goTo(10000);
        view.goTo(-3);
    }

    // A finding's message is written at the end of its line: red-ish pixels appear right of
    // the line's text on the marked line, and none on an unmarked one.
    void codeViewInlineMessage_data()
    {
        QTest::addColumn<bool>("marked");
        QTest::addRow("marked line") << true;
        QTest::addRow("no marker") << false;
    }
    void codeViewInlineMessage()
    {
        QFETCH(bool, marked);
        CodeView view;
        view.resize(700, 200);
        view.show();
        QVERIFY(QTest::qWaitForWindowExposed(&view));
        view.setSource(QStringLiteral("data.txt"), QStringLiteral("x = 1\n"));
        if (marked)
            view.setMarkers({{1, 1, Severity::Error, QStringLiteral("a message about x")}});
        const QTextBlock block = view.document()->firstBlock();
        const int textRight = int(block.layout()->lineAt(0).naturalTextWidth()) + 10;
        const QImage image = view.viewport()->grab().toImage();
        const int lineHeight = view.fontMetrics().height();
        int strong = 0;
        for (int y = 0; y < lineHeight + 4 && y < image.height(); ++y)
            for (int x = textRight; x < image.width(); ++x) {
                const QColor c = image.pixelColor(x, y);
                strong += c.red() > 150 && c.green() < 110 && c.blue() < 110;
            }
        QCOMPARE(strong > 10, marked);
    }

    // The params YAML view numbers its lines like the code view (findings cite a line).
    void yamlViewHasLineNumbers()
    {
        YamlTextView view;
        view.resize(400, 200);
        view.setYaml(QStringLiteral("a: 1\nb: 2\n"));
        view.show();
        QVERIFY(view.viewport()->geometry().left() >= view.lineNumberAreaWidth());
        QVERIFY(view.lineNumberAreaWidth() > 3 * view.fontMetrics().horizontalAdvance('9'));
    }

    void renderDot_data()
    {
        QTest::addColumn<QByteArray>("dot");
        QTest::addColumn<bool>("ok");
        QTest::addRow("simple") << QByteArray("digraph G { a -> b; b -> c; }") << true;
        QTest::addRow("ids and labels")
            << QByteArray("digraph G { n1 [id=\"n1\" label=\"model.py:12\"]; n1 -> n2; }") << true;
        QTest::addRow("syntax error") << QByteArray("digraph G { a -> ; }") << false;
        QTest::addRow("garbage") << QByteArray("\x01\x02 not dot at all {{{") << false;
        QTest::addRow("empty") << QByteArray("") << false;
    }
    void renderDot()
    {
        QFETCH(QByteArray, dot);
        QFETCH(bool, ok);
        const SvgRender r = renderDotToSvg(dot);
        QCOMPARE(r.error.isEmpty(), ok);
        QCOMPARE(r.svg.contains("<svg"), ok);
    }

    // Graphviz's pango plugin remembers the last font name by pointer; with a context freed after
    // each render the next render compared against freed memory (ASan/TSan builds report it).
    // A flow of thousands of nodes (every config of a folder of them) took Graphviz minutes
    // before the window was usable: over the limit it waits for the user's word.
    void largeFlowWaitsForTheUser_data()
    {
        QTest::addColumn<int>("nodes");
        QTest::addColumn<bool>("waits");
        QTest::addRow("small") << 12 << false;
        QTest::addRow("at the limit") << int(FlowPanel::kLayoutLimit) << false;
        QTest::addRow("over it") << int(FlowPanel::kLayoutLimit) + 1 << true;
    }
    // The status under the flow says why it is empty or has no edge (issue 26: "2 nodes,
    // 0 edges" with no reason).
    void flowStatusSaysWhy_data()
    {
        QTest::addColumn<int>("nodes");
        QTest::addColumn<int>("edges");
        QTest::addColumn<QString>("says");
        QTest::addRow("nothing") << 0 << 0 << "Nothing to draw";
        QTest::addRow("sources, no edge") << 2 << 0 << "no edge: none of their keys or flags";
        QTest::addRow("a flow") << 3 << 2 << "3 nodes, 2 edges";
    }
    void flowStatusSaysWhy()
    {
        QFETCH(int, nodes);
        QFETCH(int, edges);
        QFETCH(QString, says);
        AnalysisRunner runner;
        FlowPanel panel(&runner);
        auto snap = std::make_shared<PortingSnapshot>();
        for (int i = 0; i < nodes; ++i) {
            analysis::FlowNode n;
            n.id = "n" + std::to_string(i);
            n.label = "key" + std::to_string(i);
            n.location = {"main.py", i + 1, 1};
            snap->flow.nodes.push_back(n);
        }
        for (int i = 0; i < edges; ++i)
            snap->flow.edges.push_back({"n0", "n" + std::to_string(i + 1), {}});
        snap->flowDot = nodes ? "digraph flow { a; b; }" : "digraph flow { }";
        emit runner.finished(snap);
        QTRY_VERIFY(!panel.graphView()->isRendering());
        auto* status = panel.findChild<QLabel*>(QStringLiteral("flowStatus"));
        QVERIFY(status);
        QTRY_VERIFY2(status->text().contains(says), qPrintable(status->text()));
    }

    void largeFlowWaitsForTheUser()
    {
        QFETCH(int, nodes);
        QFETCH(bool, waits);
        AnalysisRunner runner;
        FlowPanel panel(&runner);
        auto snap = std::make_shared<PortingSnapshot>();
        for (int i = 0; i < nodes; ++i) {
            analysis::FlowNode n;
            n.id = "n" + std::to_string(i);
            n.label = "key" + std::to_string(i);
            n.location = {"params.yaml", i + 1, 1};
            snap->flow.nodes.push_back(n);
        }
        // A small DOT stands in for the flow's: only whether it is laid out matters here.
        snap->flowDot = "digraph flow { a -> b; }";
        emit runner.finished(snap);
        auto* layOut = panel.findChild<QToolButton*>(QStringLiteral("layOutAnyway"));
        QVERIFY(layOut);
        QCOMPARE(panel.isWaitingForLayout(), waits);
        QCOMPARE(layOut->isVisibleTo(&panel), waits);
        QTRY_VERIFY(!panel.graphView()->isRendering());
        auto* status = panel.findChild<QLabel*>(QStringLiteral("flowStatus"));
        QCOMPARE(status->text().contains(QLatin1String("too many")), waits);
        if (waits) {
            layOut->click();
            QVERIFY(!panel.isWaitingForLayout());
            QTRY_VERIFY(!panel.graphView()->isRendering());
            QVERIFY(panel.graphView()->isLaidOut());
        }
    }

    void renderDotSeveralFonts()
    {
        for (const char* font : {"Helvetica", "Courier", "Helvetica", "Times"}) {
            const QByteArray dot = QByteArray("digraph G { node [fontname=\"") + font +
                                   "\"]; a [label=\"model.py\"]; a -> b; }";
            const SvgRender r = renderDotToSvg(dot);
            QVERIFY2(r.error.isEmpty(), qPrintable(r.error));
            QVERIFY(r.svg.contains("model.py"));
        }
    }

    void graphViewClickActivatesNode()
    {
        GraphView view;
        view.resize(500, 400);
        view.show();
        QSignalSpy rendered(&view, &GraphView::rendered);
        QSignalSpy activated(&view, &GraphView::nodeActivated);
        view.setDot(
            "digraph G { node [shape=box]; cfg [label=\"configs/params.yaml\" URL=\"x:1\"]; "
            "fn [label=\"get_params()\"]; cfg -> fn; }");
        QTRY_COMPARE_WITH_TIMEOUT(rendered.count(), 1, 10000);
        QVERIFY(view.svg().contains("cfg"));
        // Click across the widget until a node answers; empty space must not activate anything.
        bool hit = false;
        for (int y = 5; y < view.viewport()->height() && !hit; y += 6) {
            for (int x = 5; x < view.viewport()->width() && !hit; x += 6) {
                QTest::mouseClick(view.viewport(), Qt::LeftButton, {}, QPoint(x, y));
                hit = !activated.isEmpty();
            }
        }
        QVERIFY(hit);
        QVERIFY(activated.first().first().toString() == "cfg" ||
                activated.first().first().toString() == "fn");
    }

    // A graph opens fitted, but never so small that its 10-point labels are unreadable (a
    // column of 60 nodes fitted into 400 pixels had 3-pixel text): then it opens at the
    // readable scale, at its start, and scrolls. "Fit" still shows the whole graph.
    void graphViewOpensReadable_data()
    {
        QTest::addColumn<int>("nodes");
        QTest::addColumn<bool>("fits");
        QTest::addColumn<QByteArray>("direction"); // rankdir: TB (a column), LR (a row)
        QTest::addRow("3 nodes") << 3 << true << QByteArray("TB");
        QTest::addRow("60 nodes in a column") << 60 << false << QByteArray("TB");
        QTest::addRow("60 nodes in a row") << 60 << false << QByteArray("LR");
    }
    void graphViewOpensReadable()
    {
        QFETCH(int, nodes);
        QFETCH(bool, fits);
        QFETCH(QByteArray, direction);
        GraphView view;
        view.resize(500, 400);
        view.show();
        QSignalSpy rendered(&view, &GraphView::rendered);
        QByteArray dot = "digraph G { rankdir=" + direction + "; node [fontsize=10];";
        for (int i = 1; i < nodes; ++i)
            dot += " n" + QByteArray::number(i - 1) + " -> n" + QByteArray::number(i) + ";";
        view.setDot(dot + " }");
        QTRY_COMPARE_WITH_TIMEOUT(rendered.count(), 1, 10000);
        const double scale = view.transform().m11();
        QVERIFY2(scale >= GraphView::kReadableScale - 1e-9, qPrintable(QString::number(scale)));
        // The scroll area shows its bars when it next lays itself out, not inside setTransform.
        // A graph too big to show readable scrolls along its long side and opens at its start:
        // the top left, with the rest reachable (issue 26: a wide flow opened cut on the right).
        QScrollBar* along =
            direction == "LR" ? view.horizontalScrollBar() : view.verticalScrollBar();
        QTRY_COMPARE_WITH_TIMEOUT(along->isVisible(), !fits, 2000);
        for (QScrollBar* bar : {view.horizontalScrollBar(), view.verticalScrollBar()})
            QCOMPARE(bar->value(), bar->minimum());
        const QRectF shown = view.mapToScene(view.viewport()->rect()).boundingRect();
        const QRectF graph = view.scene()->itemsBoundingRect();
        QVERIFY2(shown.left() <= graph.left() + 1 && shown.top() <= graph.top() + 1,
                 qPrintable(QStringLiteral("shown from %1,%2; graph from %3,%4")
                                .arg(shown.left())
                                .arg(shown.top())
                                .arg(graph.left())
                                .arg(graph.top())));
        QCOMPARE(view.isCut(), !fits);
        view.zoomToFit();
        QCOMPARE(view.transform().m11() < GraphView::kReadableScale, !fits);
    }

    // A graph laid out while its view was small (its tab hidden) opens right when the view
    // gets its size; once the user has zoomed, a resize keeps the user's view.
    void graphViewRefitsUntilTouched_data()
    {
        QTest::addColumn<bool>("touched");
        QTest::addRow("untouched") << false;
        QTest::addRow("zoomed by the user") << true;
    }
    void graphViewRefitsUntilTouched()
    {
        QFETCH(bool, touched);
        GraphView view;
        view.resize(160, 100);
        view.show();
        QSignalSpy rendered(&view, &GraphView::rendered);
        QByteArray dot = "digraph G { node [fontsize=10];";
        for (int i = 1; i < 8; ++i)
            dot += " n" + QByteArray::number(i - 1) + " -> n" + QByteArray::number(i) + ";";
        view.setDot(dot + " }");
        QTRY_COMPARE_WITH_TIMEOUT(rendered.count(), 1, 10000);
        QVERIFY(view.isCut());
        if (touched)
            view.zoomBy(1.25);
        const double before = view.transform().m11();
        view.resize(900, 1400);
        if (touched) {
            QTest::qWait(50);
            QCOMPARE(view.transform().m11(), before);
        } else { // fitted again: whole, at its natural size (it had opened at the readable 0.8)
            QTRY_COMPARE_WITH_TIMEOUT(view.transform().m11(), 1.0, 2000);
            QVERIFY(!view.isCut());
        }
    }

    void graphViewReportsErrors()
    {
        GraphView view;
        QSignalSpy failed(&view, &GraphView::failed);
        view.setDot("digraph { -> }");
        QTRY_COMPARE_WITH_TIMEOUT(failed.count(), 1, 10000);
        QVERIFY(!failed.first().first().toString().isEmpty());
    }
};

QTEST_MAIN(TestCodeAndGraph)
#include "test_code_and_graph.moc"
