// Every main view fits a 1024x700 window and a 1400x900 one: the window can be that small, no
// visible control lies outside its parent, no form scrolls sideways and no tab bar hides pages
// behind scroll arrows. Geometry, not pixels (layout_check.h), on a sample project and on
// corpus projects (skipped without PORTOLAN_CORPUS).
#include "app/gui/main_window.h"
#include "core/params/params_document.h"
#include "layout_check.h"
#include "views/common/status_line.h"
#include "views/common/tab_rows.h"
#include "views/params/params_form.h"
#include "views/profile/profile_panel.h"

#include <QCheckBox>
#include <QDockWidget>
#include <QFile>
#include <QHBoxLayout>
#include <QLabel>
#include <QPushButton>
#include <QScrollArea>
#include <QSettings>
#include <QSignalSpy>
#include <QSplitter>
#include <QStandardPaths>
#include <QTabWidget>
#include <QTemporaryDir>
#include <QTest>

using portolan::app::MainWindow;
using portolan::tests::layoutProblems;
using portolan::tests::widestWidgets;

namespace {

// A window the checker must refuse, built the way real layouts go wrong.
std::unique_ptr<QWidget> badLayout(const QString& kind)
{
    auto root = std::make_unique<QWidget>();
    root->resize(400, 300);
    auto* layout = new QVBoxLayout(root.get());
    if (kind == QLatin1String("placed outside")) {
        auto* box = new QWidget(root.get());
        layout->addWidget(box);
        auto* button = new QPushButton(QStringLiteral("Find a configuration that fits"), box);
        button->setGeometry(350, 10, 200, 30); // hand-placed past the right edge
    } else if (kind == QLatin1String("squeezed row")) {
        // A fixed-width container whose row needs more: the layout overflows it.
        auto* box = new QWidget(root.get());
        box->setFixedWidth(120);
        auto* row = new QHBoxLayout(box);
        for (int i = 0; i < 3; ++i) {
            auto* b = new QPushButton(QStringLiteral("A wide button %1").arg(i), box);
            b->setMinimumWidth(120);
            row->addWidget(b);
        }
        layout->addWidget(box);
    } else if (kind == QLatin1String("form scrolls sideways")) {
        auto* area = new QScrollArea(root.get());
        area->setWidgetResizable(true);
        auto* form = new QWidget;
        form->setMinimumWidth(900);
        area->setWidget(form);
        layout->addWidget(area);
    } else if (kind == QLatin1String("tabs behind arrows")) {
        auto* tabs = new QTabWidget(root.get());
        for (int i = 0; i < 12; ++i)
            tabs->addTab(new QWidget, QStringLiteral("A long page name %1").arg(i));
        layout->addWidget(tabs);
    } else { // "fits": the same kinds of widgets, laid out properly
        auto* tabs = new QTabWidget(root.get());
        tabs->addTab(new QLabel(QStringLiteral("one")), QStringLiteral("One"));
        tabs->addTab(new QCheckBox(QStringLiteral("two")), QStringLiteral("Two"));
        layout->addWidget(tabs);
        auto* area = new QScrollArea(root.get());
        area->setWidgetResizable(true);
        area->setWidget(new QLabel(QStringLiteral("a short form")));
        layout->addWidget(area);
        layout->addWidget(new QPushButton(QStringLiteral("OK"), root.get()));
    }
    return root;
}

} // namespace

class TestLayoutFit : public QObject
{
    Q_OBJECT
private slots:
    void initTestCase()
    {
        QStandardPaths::setTestModeEnabled(true);
        QCoreApplication::setOrganizationName(QStringLiteral("PortolanTest"));
        QCoreApplication::setApplicationName(QStringLiteral("test_layout_fit"));
        QSettings().clear();
    }

    // The checker itself: each bad layout is found, the good one passes.
    void checkerFindsBadLayouts_data()
    {
        QTest::addColumn<QString>("kind");
        QTest::addColumn<QString>("says");
        QTest::addRow("fits") << "fits" << QString();
        QTest::addRow("placed outside") << "placed outside"
                                        << "outside its parent";
        QTest::addRow("squeezed row") << "squeezed row"
                                      << "outside its parent";
        QTest::addRow("form scrolls sideways") << "form scrolls sideways"
                                               << "scrolls sideways";
        QTest::addRow("tabs behind arrows") << "tabs behind arrows"
                                            << "scroll arrows";
    }
    void checkerFindsBadLayouts()
    {
        QFETCH(QString, kind);
        QFETCH(QString, says);
        const auto root = badLayout(kind);
        root->show();
        QVERIFY(QTest::qWaitForWindowExposed(root.get()));
        const QStringList problems = layoutProblems(root.get());
        if (says.isEmpty()) {
            QVERIFY2(problems.isEmpty(), qPrintable(problems.join(QLatin1Char('\n'))));
        } else {
            QVERIFY(!problems.isEmpty());
            QVERIFY2(problems.join(QLatin1Char('\n')).contains(says),
                     qPrintable(problems.join(QLatin1Char('\n'))));
        }
    }

    // Page buttons in rows take fewer a row when the width does not hold them, so that their
    // widest row does not set the width of a pane (ten named configurations of a Graphcore
    // config left the YAML beside the form a 190-pixel strip at 1024 pixels).
    void tabRowsReflow_data()
    {
        QTest::addColumn<int>("width");
        QTest::addColumn<int>("fewest"); // buttons a row at least (the widest row fits first)
        QTest::addColumn<int>("first");  // the width shown at first
        QTest::addRow("wide") << 1400 << 4 << 1400;
        QTest::addRow("half") << 420 << 2 << 420;
        QTest::addRow("narrow") << 220 << 1 << 220;
        // Narrowed after it was laid out in wide rows: the rows' layout held its minimum at
        // two buttons a row, and a Graphcore config's Params page made the window 1,121
        // pixels wide at 1024.
        QTest::addRow("narrowed") << 220 << 1 << 1400;
    }
    void tabRowsReflow()
    {
        QFETCH(int, width);
        QFETCH(int, fewest);
        QFETCH(int, first);
        QWidget root;
        auto* layout = new QVBoxLayout(&root);
        auto* tabs = new QTabWidget(&root);
        for (const char* name : {"defaults", "b16_cifar10", "b16_cifar10_valid", "b16_imagenet1k",
                                 "b16_imagenet1k_ALS", "b16_in1k_pretrain_lamb"})
            tabs->addTab(new QWidget, QString::fromLatin1(name));
        auto* rows = new portolan::views::TabRows(tabs, 4, &root);
        layout->addWidget(rows);
        layout->addWidget(tabs, 1);
        root.resize(first, 400);
        root.show();
        QVERIFY(QTest::qWaitForWindowExposed(&root));
        QCoreApplication::processEvents();
        root.resize(width, 400);
        QCoreApplication::processEvents();
        const int columns = rows->columnsFor(rows->width());
        QVERIFY2(columns >= fewest, qPrintable(QString::number(columns)));
        QVERIFY(columns <= 4);
        // Never wider than the buttons need at one a row, and every button inside the rows.
        QVERIFY(rows->minimumSizeHint().width() < 400);
        QVERIFY2(layoutProblems(&root).isEmpty(),
                 qPrintable(layoutProblems(&root).join(QLatin1Char('\n'))));
        QCOMPARE(root.width(), width);
    }

    // An alias's line in the Params form ("*X, the same as X (line 3): edit it there") wraps,
    // inside a name when it must: a Graphcore configuration named without spaces, drawn on one
    // line, made the form 867 pixels wide and the window 1,121 at 1024.
    void paramsAliasWraps_data()
    {
        QTest::addColumn<QString>("anchor");
        QTest::addRow("short name") << "base";
        QTest::addRow("long name, underscores")
            << "MODEL_LARGE_224_22K_FINETUNE_1K_FP16_POD128_WITH_A_LONGER_TAIL";
        QTest::addRow("long name, no break") << QString(90, QLatin1Char('x'));
    }
    void paramsAliasWraps()
    {
        QFETCH(QString, anchor);
        const std::string text =
            "first: &" + anchor.toStdString() + "\n  lr: 0.1\n  steps: 10\nsecond:\n  <<: *" +
            anchor.toStdString() + "\n  lr: 0.2\nthird: *" + anchor.toStdString() + "\n";
        const auto doc = portolan::params::ParamsDocument::fromText(text, "configs.yaml");
        portolan::views::ParamsForm form;
        form.rebuild(doc, nullptr);
        form.resize(360, 500);
        form.show();
        QVERIFY(QTest::qWaitForWindowExposed(&form));
        for (int page = 0; page < form.tabs()->count(); ++page) {
            form.tabs()->setCurrentIndex(page);
            QCoreApplication::processEvents();
            QVERIFY2(form.minimumSizeHint().width() <= 360,
                     qPrintable(QStringLiteral("page %1 needs %2 px: %3")
                                    .arg(form.tabs()->tabText(page))
                                    .arg(form.minimumSizeHint().width())
                                    .arg(widestWidgets(&form, 3).join(QLatin1String("; ")))));
            QCOMPARE(form.width(), 360);
        }
    }

    // A status naming a file with no break point wraps inside the name: the Profile's
    // "Finding the model of RELEASE_…yaml..." widened its pane, and the window stayed wider
    // than asked after it was gone. What it says stays as given.
    void statusLineWraps_data()
    {
        QTest::addColumn<QString>("message");
        QTest::addRow("flattened config") << "Finding the model of RELEASE_9.9.9__models__nlp__"
                                             "tinylm__configs__params_tinylm_small.yaml...";
        QTest::addRow("no break at all") << "Loading " + QString(80, QLatin1Char('x')) + "...";
        QTest::addRow("plain sentence") << "Simulating ipu-mk2...";
    }
    void statusLineWraps()
    {
        QFETCH(QString, message);
        portolan::views::StatusLine line;
        line.setMessage(message);
        QVERIFY2(line.minimumSizeHint().width() <= 220,
                 qPrintable(QString::number(line.minimumSizeHint().width())));
        QCOMPARE(line.sentence(), portolan::views::peopleText(message).sentence);
        QVERIFY(!line.sentence().contains(QChar(0x200B)));
    }

    void viewsFit_data()
    {
        QTest::addColumn<QString>("project");
        QTest::addColumn<QSize>("size");
        const QString corpus = qEnvironmentVariable("PORTOLAN_CORPUS");
        QStringList projects = {
            QStringLiteral(PORTOLAN_SOURCE_DIR "/sample_projects/mnist-mlp-cerebras-pytorch"),
            QStringLiteral(PORTOLAN_SOURCE_DIR "/sample_projects/small-cnn-poptorch")};
        // Real projects with long names, many params files and wide findings; one per vendor.
        for (const char* name : {"graphcore-app-vit", "cerebras-pt-gpt2", "determined-cifar10"})
            projects << (corpus.isEmpty()
                             ? QString()
                             : corpus + QStringLiteral("/projects/") + QString::fromLatin1(name));
        // A params file opened on its own whose name has no break point, as a flattened Model
        // Zoo checkout names its configs: every label that shows it must wrap or elide it.
        QVERIFY(m_longName.isValid());
        const QString longName = m_longName.filePath(
            QStringLiteral("RELEASE_9.9.9__models__nlp__tinylm__configs__"
                           "params_tinylm_small_with_a_long_unbroken_name.yaml"));
        QFile::remove(longName);
        QVERIFY(QFile::copy(
            QStringLiteral(PORTOLAN_SOURCE_DIR "/tests/sim/fixtures/fidelity/gpt2_small.yaml"),
            longName));
        projects << longName;
        for (const QSize size : {QSize(1024, 700), QSize(1400, 900)})
            for (const QString& p : projects)
                if (!p.isEmpty())
                    QTest::addRow("%s %dx%d", qPrintable(QFileInfo(p).fileName()), size.width(),
                                  size.height())
                        << p << size;
    }
    void viewsFit()
    {
        QFETCH(QString, project);
        QFETCH(QSize, size);
        MainWindow w;
        w.setInteractive(false);
        w.resize(size);
        w.show();
        QVERIFY(QTest::qWaitForWindowExposed(&w));
        // The project tree as a first start sizes it (a quarter of the window), which leaves
        // the views less room than the default dock width does.
        auto* dock = w.findChild<QDockWidget*>(QStringLiteral("projectDock"));
        QVERIFY(dock);
        w.resizeDocks({dock}, {size.width() / 4}, Qt::Horizontal);
        QSignalSpy analysed(&w, &MainWindow::projectAnalysed);
        w.openProject(project);
        QTRY_VERIFY_WITH_TIMEOUT(analysed.count() >= 1, 120000);
        QTRY_VERIFY_WITH_TIMEOUT(!w.isBusy(), 120000);
        if (project.endsWith(QLatin1String(".yaml"))) // its model is compiled, its name shown
            QTRY_VERIFY_WITH_TIMEOUT(w.profilePanel()->result() != nullptr, 120000);
        // resize() does not go below the window's minimum size: a layout that needs more
        // than the screen shows here, with the views that ask for it.
        QStringList wide;
        for (const QString& view : w.viewIds()) {
            w.selectView(view);
            const QWidget* page = w.centralWidget()->findChild<QWidget*>(view);
            if (page)
                wide << QStringLiteral("%1 needs %2x%3")
                            .arg(view)
                            .arg(page->minimumSizeHint().width())
                            .arg(page->minimumSizeHint().height());
        }
        QVERIFY2(w.size() == size, qPrintable(QStringLiteral("the window is %1x%2: %3")
                                                  .arg(w.width())
                                                  .arg(w.height())
                                                  .arg(wide.join(QLatin1String(", ")))));
        QStringList paths;
        for (const QString& view : w.viewIds())
            if (view != QLatin1String("profile"))
                paths << view;
        for (const QString& page : w.profilePanel()->pageIds())
            paths << QStringLiteral("profile:") + page;
        QStringList problems;
        for (const QString& path : paths) {
            QVERIFY(w.selectViewPath(path));
            QTRY_VERIFY_WITH_TIMEOUT(!w.isBusy(), 60000);
            QCoreApplication::processEvents();
            const QWidget* view = w.centralWidget()->findChild<QWidget*>(path.section(':', 0, 0));
            QVERIFY2(
                w.size() == size,
                qPrintable(QStringLiteral("on %1 the window grew to %2x%3 (the view needs %4x%5; "
                                          "widest: %6)")
                               .arg(path)
                               .arg(w.width())
                               .arg(w.height())
                               .arg(view->minimumSizeHint().width())
                               .arg(view->minimumSizeHint().height())
                               .arg(widestWidgets(&w, 40).join(QLatin1String("; ")))));
            for (const QString& p : layoutProblems(&w))
                problems << path + QStringLiteral(": ") + p;
            // Each pane of each splitter pushed down to the smallest width the splitter lets
            // a user drag it to: a pane's minimum must hold its controls.
            for (QSplitter* splitter : w.findChildren<QSplitter*>()) {
                if (!splitter->isVisible() || splitter->count() < 2)
                    continue;
                const QList<int> before = splitter->sizes();
                const bool horizontal = splitter->orientation() == Qt::Horizontal;
                for (int i = 0; i < splitter->count(); ++i) {
                    QList<int> sizes(splitter->count(), 100000);
                    sizes[i] = 0;
                    splitter->setChildrenCollapsible(false); // 0 means "its minimum" then
                    splitter->setSizes(sizes);
                    QCoreApplication::processEvents();
                    for (const QString& p : layoutProblems(&w))
                        problems << QStringLiteral("%1 (%2 pane %3 at its minimum): %4")
                                        .arg(path, horizontal ? QStringLiteral("left-right")
                                                              : QStringLiteral("top-bottom"))
                                        .arg(i)
                                        .arg(p);
                }
                splitter->setSizes(before);
            }
        }
        problems.removeDuplicates();
        QVERIFY2(problems.isEmpty(), qPrintable(problems.join(QLatin1Char('\n'))));
    }

private:
    QTemporaryDir m_longName;
};

QTEST_MAIN(TestLayoutFit)
#include "test_layout_fit.moc"
