// A table's reading column (a finding, a message) is the last text to be cut: the columns that
// give way (an id, a location) shrink first, each to its own least width, in their order.
#include "views/common/diagnostics_model.h"
#include "views/common/reading_columns.h"

#include <QAbstractItemModelTester>
#include <QHeaderView>
#include <QStandardItemModel>
#include <QTableView>
#include <QTest>

using portolan::views::ReadingColumns;

namespace {

enum Column
{
    Kind,
    Where,
    Text,
    Id
};

} // namespace

class TestReadingColumns : public QObject
{
    Q_OBJECT
private slots:
    void widths_data()
    {
        QTest::addColumn<int>("width");
        QTest::addColumn<QString>("where");
        QTest::addColumn<QString>("text");
        QTest::addColumn<QString>("id");
        const QString longText = QStringLiteral(
            "the value handed to the wrapper is not the one the loop trains, so its options "
            "do not reach the compiled program");
        const QString shortText = QStringLiteral("a short finding");
        const QString longId = QStringLiteral("some-family.a-rather-long-check-identifier");
        const QString deepPath = QStringLiteral("src/models/vision/backbones/blocks.py:120:16");
        QTest::addRow("wide table, everything whole")
            << 1400 << QStringLiteral("a.py:3:1") << shortText << longId;
        QTest::addRow("the id gives way to the text")
            << 700 << QStringLiteral("a.py:3:1") << longText << longId;
        QTest::addRow("then the location") << 560 << deepPath << longText << longId;
        QTest::addRow("narrow, all at their least") << 460 << deepPath << longText << longId;
        QTest::addRow("short id, nothing to take")
            << 700 << QStringLiteral("a.py:3:1") << longText << QStringLiteral("x");
    }
    void widths()
    {
        QFETCH(int, width);
        QFETCH(QString, where);
        QFETCH(QString, text);
        QFETCH(QString, id);
        QStandardItemModel model(0, 4);
        QAbstractItemModelTester tester(&model);
        QTableView view;
        view.setModel(&model);
        view.setWordWrap(false);
        view.verticalHeader()->hide();
        view.horizontalHeader()->setSectionResizeMode(Kind, QHeaderView::ResizeToContents);
        auto* columns = new ReadingColumns(&view, Text);
        columns->addYielding(Id, 6);
        columns->addYielding(Where, 22, Qt::ElideLeft);
        view.resize(width, 300);
        view.show();
        QVERIFY(QTest::qWaitForWindowExposed(&view));
        // Rows arriving after the view is shown, as a step's findings do.
        for (int r = 0; r < 3; ++r)
            model.appendRow({new QStandardItem(QStringLiteral("warning")), new QStandardItem(where),
                             new QStandardItem(text), new QStandardItem(id)});
        QCoreApplication::processEvents(); // the widths follow the rows (a queued update)
        QHeaderView* h = view.horizontalHeader();
        const QAbstractItemView& base = view;
        auto natural = [&](int c) {
            return std::max(base.sizeHintForColumn(c), h->sectionSizeHint(c));
        };
        const int least = view.fontMetrics().averageCharWidth();
        // The columns fill the viewport exactly (no scroll bar, no gap) once the rows are in.
        QTRY_COMPARE(h->sectionSize(Kind) + h->sectionSize(Where) + h->sectionSize(Text) +
                         h->sectionSize(Id),
                     view.viewport()->width());
        const bool textCut = h->sectionSize(Text) < natural(Text);
        // The text is cut only when the id and then the location are at their least.
        if (textCut) {
            QCOMPARE(h->sectionSize(Id), std::min(natural(Id), 8 * least));
            QCOMPARE(h->sectionSize(Where), std::min(natural(Where), 24 * least));
        }
        // The location gives way only after the id has.
        if (h->sectionSize(Where) < natural(Where))
            QCOMPARE(h->sectionSize(Id), std::min(natural(Id), 8 * least));
        // Whatever is not cut keeps its whole width.
        if (!textCut) {
            QCOMPARE(h->sectionSize(Where), natural(Where));
        }
        // The text always gets the most room of the four.
        for (int c : {Kind, Where, Id})
            QVERIFY2(h->sectionSize(Text) >= h->sectionSize(c),
                     qPrintable(QStringLiteral("column %1: %2 > %3")
                                    .arg(c)
                                    .arg(h->sectionSize(c))
                                    .arg(h->sectionSize(Text))));
    }

    // The diagnostics tables (Params, Overview) share the rule: at 600 pixels the code gives
    // way and the message keeps the width (it was cut while the code kept its full width).
    void diagnosticsTable()
    {
        portolan::views::DiagnosticsModel model;
        QAbstractItemModelTester tester(&model);
        QTableView view;
        portolan::views::setUpDiagnosticsTable(&view, &model);
        view.resize(600, 200);
        view.show();
        QVERIFY(QTest::qWaitForWindowExposed(&view));
        portolan::Diagnostic d{portolan::Severity::Warning,
                               "params.a-rather-long-diagnostic-code",
                               "records_per_epoch: deprecated: epochs are now defined in the "
                               "training code; remove the key",
                               {"const.yaml", 9, 1}};
        model.setDiagnostics({d, d});
        QCoreApplication::processEvents();
        using Model = portolan::views::DiagnosticsModel;
        QHeaderView* h = view.horizontalHeader();
        const int least = view.fontMetrics().averageCharWidth();
        QTRY_VERIFY(h->sectionSize(Model::CodeColumn) <= 8 * least);
        QVERIFY2(h->sectionSize(Model::MessageColumn) > view.viewport()->width() / 2,
                 qPrintable(QString::number(h->sectionSize(Model::MessageColumn))));
        QCOMPARE(h->sectionSize(Model::SeverityColumn) + h->sectionSize(Model::LocationColumn) +
                     h->sectionSize(Model::MessageColumn) + h->sectionSize(Model::CodeColumn),
                 view.viewport()->width());
    }
};

QTEST_MAIN(TestReadingColumns)
#include "test_reading_columns.moc"
