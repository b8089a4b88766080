// The main window offscreen: open a sample project, check the tree; bad folders give a message.
#include "app/gui/about_dialog.h"
#include "app/gui/main_window.h"
#include "views/common/diagnostics_model.h"
#include "views/params/params_editor.h"
#include "views/params/params_form.h"
#include "views/porting/analysis_runner.h"
#include "views/profile/profile_panel.h"
#include "views/project/flattened_names.h"
#include "views/project/project_files_model.h"
#include "views/project/project_overview.h"
#include "views/project/project_tree_view.h"
#include "views/runs/run_panel.h"

#include <QAction>
#include <QApplication>
#include <QDir>
#include <QDockWidget>
#include <QFile>
#include <QLabel>
#include <QMimeData>
#include <QRegularExpression>
#include <QSettings>
#include <QSignalSpy>
#include <QStandardPaths>
#include <QTabWidget>
#include <QTableView>
#include <QTemporaryDir>
#include <QTest>

using portolan::app::MainWindow;
using portolan::views::ProjectFilesModel;
using portolan::views::ProjectOverview;

class TestMainWindow : public QObject
{
    Q_OBJECT
private slots:
    void initTestCase()
    {
        QStandardPaths::setTestModeEnabled(true);
        QCoreApplication::setOrganizationName(QStringLiteral("PortolanTest"));
        QCoreApplication::setApplicationName(QStringLiteral("test_main_window"));
        QSettings().clear();
    }

    void opensFixtureProject()
    {
        MainWindow w;
        w.setInteractive(false);
        w.show();
        QSignalSpy opened(&w, &MainWindow::projectOpened);
        w.openProject(QStringLiteral(PORTOLAN_FIXTURES "/projects/tiny"));
        QTRY_COMPARE_WITH_TIMEOUT(opened.count(), 1, 10000);
        ProjectFilesModel* m = w.filesModel();
        QVERIFY(m->indexForPath(QStringLiteral("model.py")).isValid());
        QVERIFY(m->indexForPath(QStringLiteral("configs/params.yaml")).isValid());
        QVERIFY(m->indexForPath(QStringLiteral("configs"))
                    .data(ProjectFilesModel::IsFolderRole)
                    .toBool());
        QVERIFY(w.windowTitle().startsWith(QStringLiteral("tiny")));
    }

    // A Graphcore application config's named configuration picked as a page of the Params tab
    // is the one the Profile compiles (the Profile follows; another page of settings only, or
    // the Profile's own pick, is left alone).
    void profileFollowsTheParamsPage()
    {
        MainWindow w;
        w.setInteractive(false);
        w.show();
        QSignalSpy analysed(&w, &MainWindow::projectAnalysed);
        w.openProject(QStringLiteral(PORTOLAN_FIXTURES "/projects/named-config-poptorch"));
        QTRY_VERIFY_WITH_TIMEOUT(analysed.count() >= 1, 60000);
        QTRY_VERIFY_WITH_TIMEOUT(!w.isBusy(), 60000);
        portolan::views::ProfilePanel* profile = w.profilePanel();
        QTRY_VERIFY_WITH_TIMEOUT(profile->result() != nullptr, 60000);
        QCOMPARE(profile->namedConfig(), QStringLiteral("tiny_2ipu"));
        QVERIFY(w.paramsEditor()->filePath().endsWith(QLatin1String("configs.yml")));
        QTabWidget* pages = w.paramsEditor()->form()->tabs();
        const auto pageOf = [pages](const QString& title) {
            for (int i = 0; i < pages->count(); ++i)
                if (pages->tabText(i) == title)
                    return i;
            return -1;
        };
        QVERIFY(pageOf(QStringLiteral("tiny_4ipu")) >= 0);
        QVERIFY(pageOf(QStringLiteral("defaults")) >= 0);
        // On another tab, a page change (a rebuild, a link) is not the user's pick.
        w.selectView(QStringLiteral("overview"));
        pages->setCurrentIndex(pageOf(QStringLiteral("tiny_4ipu")));
        QCOMPARE(profile->namedConfig(), QStringLiteral("tiny_2ipu"));
        w.selectView(QStringLiteral("params"));
        pages->setCurrentIndex(pageOf(QStringLiteral("defaults")));
        QCOMPARE(profile->namedConfig(), QStringLiteral("tiny_2ipu"));
        QVERIFY(!profile->isBusy());
        pages->setCurrentIndex(pageOf(QStringLiteral("tiny_4ipu")));
        QCOMPARE(profile->namedConfig(), QStringLiteral("tiny_4ipu"));
        QTRY_VERIFY_WITH_TIMEOUT(!w.isBusy(), 60000);
        QCOMPARE(profile->result()->options.ipus, 4);
    }

    // A params file opens its project (the folder above configs/) with that file chosen: the
    // Params tab shows it and the Profile tab compiles its model (a Model Zoo BERT here).
    void opensParamsFile()
    {
        QTemporaryDir tmp;
        QVERIFY(QDir(tmp.path()).mkpath(QStringLiteral("configs")));
        const QString params = tmp.filePath(QStringLiteral("configs/params_bert_base.yaml"));
        QVERIFY(
            QFile::copy(QStringLiteral(PORTOLAN_SOURCE_DIR
                                       "/tests/sim/fixtures/fidelity/bert_base_pretraining.yaml"),
                        params));
        MainWindow w;
        w.setInteractive(false);
        QSignalSpy opened(&w, &MainWindow::projectOpened);
        w.openProject(params);
        QTRY_COMPARE_WITH_TIMEOUT(opened.count(), 1, 10000);
        QCOMPARE(QFileInfo(opened.first().at(0).toString()).canonicalFilePath(),
                 QFileInfo(tmp.path()).canonicalFilePath());
        QCOMPARE(QFileInfo(w.paramsEditor()->filePath()).canonicalFilePath(),
                 QFileInfo(params).canonicalFilePath());
        QTRY_VERIFY_WITH_TIMEOUT(w.profilePanel()->result() != nullptr, 60000);
        const auto& r = *w.profilePanel()->result();
        QVERIFY2(QString::fromStdString(r.graph.origin).startsWith(QStringLiteral("params: ")),
                 r.graph.origin.c_str());
        // Issue 26: a Cerebras config opened on its own compiles for a CS system, not an IPU,
        // with the reason shown (sim::defaultTarget, the rule portolan-cli compile uses without
        // --target); the batch is whole on a CS system (sim::applyProjectTraining).
        QCOMPARE(r.options.target, std::string("cs-2"));
        QVERIFY2(w.profilePanel()->defaultTargetReason().contains(QStringLiteral("Cerebras")),
                 qPrintable(w.profilePanel()->defaultTargetReason()));
        QCOMPARE(r.options.training.microBatch, 32);
        QCOMPARE(r.options.training.gradAccum, 1);
    }

    // A config opened inside a folder of configs (the corpus's 769 Model Zoo files) is the one
    // the checks and the flow read, not the folder's default; the flow draws that file alone
    // (every Trainer file of the folder made a graph Graphviz laid out for minutes).
    void paramsFileOpenedInAFolderOfConfigs_data()
    {
        QTest::addColumn<int>("files");
        QTest::addColumn<int>("opened");
        QTest::addRow("first of 3") << 3 << 0;
        QTest::addRow("last of 3") << 3 << 2;
        QTest::addRow("middle of 12") << 12 << 5;
    }
    void paramsFileOpenedInAFolderOfConfigs()
    {
        QFETCH(int, files);
        QFETCH(int, opened);
        QTemporaryDir tmp;
        QStringList paths;
        for (int i = 0; i < files; ++i) {
            paths << tmp.filePath(
                QStringLiteral("release_%1__params_mlp.yaml").arg(i, 2, 10, QLatin1Char('0')));
            QVERIFY(QFile::copy(
                QStringLiteral(PORTOLAN_FIXTURES "/projects/trainer-mlp/configs/params.yaml"),
                paths.back()));
        }
        MainWindow w;
        w.setInteractive(false);
        QSignalSpy analysed(&w, &MainWindow::projectAnalysed);
        w.openProject(paths[opened]);
        QTRY_COMPARE_WITH_TIMEOUT(analysed.count(), 1, 20000);
        const auto snap = w.analysisRunner()->snapshot();
        QVERIFY(snap);
        const std::filesystem::path chosen =
            snap->analysis->paramsFile.absolute(snap->analysis->root);
        QCOMPARE(QFileInfo(QString::fromStdString(chosen.string())).canonicalFilePath(),
                 QFileInfo(paths[opened]).canonicalFilePath());
        int configNodes = 0;
        for (const auto& n : snap->flow.nodes)
            if (n.kind == portolan::analysis::FlowNodeKind::ConfigFile) {
                ++configNodes;
                QCOMPARE(QFileInfo(QString::fromStdString(n.location.file)).fileName(),
                         QFileInfo(paths[opened]).fileName());
            }
        QCOMPARE(configNodes, 1);
        // The Runs tab runs the opened file too, not the folder's default (its start reason
        // named another config of the folder).
        auto* runs = w.findChild<portolan::views::RunPanel*>();
        QVERIFY(runs);
        QCOMPARE(QFileInfo(runs->paramsFile()).canonicalFilePath(),
                 QFileInfo(paths[opened]).canonicalFilePath());
        for (int i = 0; i < files; ++i)
            if (i != opened)
                QVERIFY2(!runs->startBlockedReason().contains(QFileInfo(paths[i]).fileName()),
                         qPrintable(runs->startBlockedReason()));
        QTRY_VERIFY_WITH_TIMEOUT(!w.isBusy(), 60000);
    }

    void opensSampleProject()
    {
        const QString sample = QStringLiteral(PORTOLAN_SAMPLES "/mnist-mlp-cerebras-pytorch");
        if (!QFileInfo(sample).isDir())
            QSKIP("sample project not present");
        MainWindow w;
        w.setInteractive(false);
        QSignalSpy opened(&w, &MainWindow::projectOpened);
        w.openProject(sample);
        QTRY_COMPARE_WITH_TIMEOUT(opened.count(), 1, 10000);
        QVERIFY(w.filesModel()->indexForPath(QStringLiteral("model.py")).isValid());
        QVERIFY(w.filesModel()->indexForPath(QStringLiteral("configs/params.yaml")).isValid());
    }

    // The Profile tab compiles for the hardware the project's guide ports to.
    void profileTargetFollowsGuide_data()
    {
        QTest::addColumn<QString>("sample");
        QTest::addColumn<QString>("target");
        QTest::addRow("Cerebras port") << "mnist-mlp-cerebras-pytorch"
                                       << "cs-2";
        QTest::addRow("PopTorch port") << "small-cnn-poptorch"
                                       << "ipu-mk2";
    }
    void profileTargetFollowsGuide()
    {
        QFETCH(QString, sample);
        QFETCH(QString, target);
        MainWindow w;
        w.setInteractive(false);
        QSignalSpy analysed(&w, &MainWindow::projectAnalysed);
        w.openProject(QStringLiteral(PORTOLAN_SAMPLES "/") + sample);
        QTRY_COMPARE_WITH_TIMEOUT(analysed.count(), 1, 60000);
        QTRY_VERIFY_WITH_TIMEOUT(
            !w.profilePanel()->isBusy() && w.profilePanel()->result() != nullptr, 120000);
        QCOMPARE(QString::fromStdString(w.profilePanel()->result()->options.target), target);
    }

    void badFolders_data()
    {
        QTest::addColumn<QString>("kind");
        QTest::addRow("missing") << "missing";
        QTest::addRow("a file") << "file";
    }
    void badFolders()
    {
        QFETCH(QString, kind);
        QTemporaryDir tmp;
        QString path = tmp.filePath(QStringLiteral("nope"));
        if (kind == "file") {
            QFile f(path);
            QVERIFY(f.open(QIODevice::WriteOnly));
        }
        MainWindow w;
        w.setInteractive(false);
        QSignalSpy failed(&w, &MainWindow::projectFailed);
        w.openProject(path);
        QTRY_COMPARE_WITH_TIMEOUT(failed.count(), 1, 5000);
        QVERIFY(!failed.first().at(1).toString().isEmpty());
        QCOMPARE(w.filesModel()->rowCount(), 0);
    }

    // View > Re-analyse Project reads the files again: the way to pick up an edit to a file
    // beyond the ones watched for changes (AnalysisRunner watches the shallowest 2,000).
    // The Overview's heading counts the diagnostics, so an empty table reads as "none" rather
    // than "not checked yet", and the notes without text leave no gaps.
    void overviewCountsDiagnostics_data()
    {
        QTest::addColumn<QByteArray>("python");
        QTest::addColumn<bool>("clean");
        QTest::newRow("clean") << QByteArray("import torch\n") << true;
        QTest::newRow("syntax error") << QByteArray("def f(:\n    pass\n") << false;
    }
    void overviewCountsDiagnostics()
    {
        QFETCH(QByteArray, python);
        QFETCH(bool, clean);
        QTemporaryDir tmp;
        QFile f(tmp.filePath(QStringLiteral("model.py")));
        QVERIFY(f.open(QIODevice::WriteOnly));
        f.write(python);
        f.close();
        MainWindow w;
        w.setInteractive(false);
        QSignalSpy analysed(&w, &MainWindow::projectAnalysed);
        w.openProject(tmp.path());
        QTRY_VERIFY_WITH_TIMEOUT(analysed.count() >= 1 && !w.isBusy(), 20000);
        const int rows = w.findChild<ProjectOverview*>()->diagnosticsModel()->rowCount();
        const auto* heading = w.findChild<QLabel*>(QStringLiteral("diagnosticsHeading"));
        QVERIFY(heading);
        QCOMPARE(rows == 0, clean);
        if (clean) {
            // "none" says where the checks' findings are, and no empty table sits under it.
            QVERIFY2(heading->text().startsWith(QStringLiteral("Diagnostics: none")) &&
                         heading->text().contains(QStringLiteral("Porting tab")),
                     qPrintable(heading->text()));
            QVERIFY(w.findChild<ProjectOverview*>()->findChild<QTableView*>()->isHidden());
            // No params file, no flow: the Flow tab says why instead of "0 nodes, 0 edges".
            w.selectView(QStringLiteral("flow"));
            const auto* flow = w.findChild<QLabel*>(QStringLiteral("flowStatus"));
            QVERIFY(flow);
            QTRY_VERIFY2_WITH_TIMEOUT(flow->text().startsWith(QStringLiteral("Nothing to draw")),
                                      qPrintable(flow->text()), 20000);
        } else {
            QCOMPARE(heading->text(), QStringLiteral("Diagnostics (%1)").arg(rows));
        }
        const auto* skipped = w.findChild<QLabel*>(QStringLiteral("skippedSummary"));
        QVERIFY(skipped);
        QVERIFY(skipped->text().isEmpty() && skipped->isHidden());
    }

    // The Code tab names its file cut to about 24 characters, the path on hover: a flattened
    // config's whole name put the other tabs behind scroll arrows, or widened the window.
    void codeTabNameIsShort_data()
    {
        QTest::addColumn<QString>("file");
        QTest::addColumn<bool>("cut");
        QTest::addRow("short") << "train.py" << false;
        QTest::addRow("flattened config")
            << "V_9.9__models__text__alpha__configs__params_alpha_with_a_long_name.yaml" << true;
    }
    void codeTabNameIsShort()
    {
        QFETCH(QString, file);
        QFETCH(bool, cut);
        QTemporaryDir tmp;
        QFile f(tmp.filePath(file));
        QVERIFY(f.open(QIODevice::WriteOnly));
        f.write("a: 1\n");
        f.close();
        MainWindow w;
        w.setInteractive(false);
        QSignalSpy opened(&w, &MainWindow::projectOpened);
        w.openProject(tmp.path());
        QTRY_COMPARE_WITH_TIMEOUT(opened.count(), 1, 10000);
        w.openCode(file);
        auto* tabs = w.findChild<QTabWidget*>();
        QVERIFY(tabs);
        int code = -1;
        for (int i = 0; i < tabs->count(); ++i)
            if (tabs->tabText(i).startsWith(QStringLiteral("Code: ")))
                code = i;
        QVERIFY(code >= 0);
        const QString text = tabs->tabText(code);
        QCOMPARE(text == QStringLiteral("Code: ") + file, !cut);
        QVERIFY2(text.size() <= 40, qPrintable(text));
        QCOMPARE(tabs->tabToolTip(code), file);
        QTRY_VERIFY_WITH_TIMEOUT(!w.isBusy(), 20000);
    }

    // A narrow project dock gives the names its room: the kind column goes first, then the
    // size; both stay in the tooltip.
    // Siblings that share their start keep their ends when cut; other names keep both ends.
    void siblingNamesElideAtTheStart()
    {
        QTemporaryDir tmp;
        QVERIFY(QDir(tmp.path()).mkpath(QStringLiteral("configs")));
        for (const char* name : {"configs/params_bert_base.yaml", "configs/params_bert_large.yaml",
                                 "model.py", "run.py"}) {
            QFile f(tmp.filePath(QString::fromLatin1(name)));
            QVERIFY(f.open(QIODevice::WriteOnly));
        }
        MainWindow w;
        w.setInteractive(false);
        QSignalSpy opened(&w, &MainWindow::projectOpened);
        w.openProject(tmp.path());
        QTRY_COMPARE_WITH_TIMEOUT(opened.count(), 1, 10000);
        using portolan::views::ProjectTreeView;
        const auto mode = [&](const char* path) {
            return ProjectTreeView::elideModeFor(
                w.filesModel()->indexForPath(QString::fromLatin1(path)));
        };
        QCOMPARE(mode("configs/params_bert_base.yaml"), Qt::ElideLeft);
        QCOMPARE(mode("configs/params_bert_large.yaml"), Qt::ElideLeft);
        QCOMPARE(mode("model.py"), Qt::ElideMiddle);
        QCOMPARE(mode("run.py"), Qt::ElideMiddle);
        QTRY_VERIFY_WITH_TIMEOUT(!w.isBusy(), 20000);
    }

    // Issue 26: sibling configs that share their start and end all read "…arams.yaml"; the part
    // that tells a name from its neighbours stays visible at every width.
    void siblingNamesKeepWhatTellsThemApart_data()
    {
        QTest::addColumn<QString>("name");
        QTest::addColumn<QStringList>("neighbours");
        QTest::addColumn<int>("chars"); // the room, in average characters
        QTest::addColumn<QString>("shows");
        const QString base = QStringLiteral("RELEASE_2.1.0__bert__configs__bert_base_MSL128.yaml");
        const QStringList others{
            QStringLiteral("RELEASE_2.1.0__bert__configs__bert_large_MSL128.yaml"),
            QStringLiteral("RELEASE_2.1.0__bert__configs__bert_base_MSL512.yaml")};
        QTest::addRow("wide") << base << others << 80 << base;
        QTest::addRow("shared start gives way") << base << others << 24 << "base_MSL128";
        // Narrower: the differing part's two ends ("b…8": base, not large; 128, not 512) and the
        // extension; the check below makes sure it still differs from both neighbours.
        QTest::addRow("shared end gives way too") << base << others << 14 << "…b";
        QTest::addRow("very narrow") << base << others << 9 << ".yaml";
        QTest::addRow("end differs")
            << QStringLiteral("params_gpt2_large.yaml")
            << QStringList{QStringLiteral("params_gpt2_medium.yaml")} << 14 << "large";
        // A shared extension with a letter before it is no shared end: both ends stay.
        QTest::addRow("extension only shared")
            << QStringLiteral("customized_randaugment.py")
            << QStringList{QStringLiteral("__init__.py"), QStringLiteral("dataset.py")} << 11
            << "cus";
        // A flattened path's short name keeps its stem whole and cuts its folders in their
        // middle: cut at the left it read "…erebras_GPT › 111m", at their end "RE… › base".
        const QString shortName = QStringLiteral("alphabet_soup › 111m");
        const QStringList shortOthers{QStringLiteral("alphabet_soup › 13b"),
                                      QStringLiteral("alphabet_soup › 2.7b")};
        QTest::addRow("short name: folder keeps its start")
            << shortName << shortOthers << 15 << "al";
        QTest::addRow("short name: folder keeps its end")
            << shortName << shortOthers << 15 << "p › 111m";
        const QString twoFolders = QStringLiteral("V_2.1.0 › alphabet_soup › 111m");
        QTest::addRow("short name: first and last folder")
            << twoFolders << QStringList{QStringLiteral("V_2.1.0 › alphabet_soup › 13b")} << 18
            << "oup › 111m";
        QTest::addRow("short name: release kept")
            << twoFolders << QStringList{QStringLiteral("V_2.1.0 › alphabet_soup › 13b")} << 18
            << "V_";
        // A stem with no extension whose differing part is near its start is cut at its end
        // ("…larg" was all it read).
        QTest::addRow("stem: differing part whole at the start")
            << QStringLiteral("text_large_summarization")
            << QStringList{QStringLiteral("text_base_summarization"),
                           QStringLiteral("text_small_summarization")}
            << 16 << "text_large_";
        QTest::addRow("short name: stem whole") << shortName << shortOthers << 15 << " › 111m";
        QTest::addRow("short name: no room for the folder")
            << shortName << shortOthers << 9 << "111m";
        QTest::addRow("no neighbour") << QStringLiteral("a_long_module_name_of_the_project.py")
                                      << QStringList{QStringLiteral("run.py")} << 16 << ".py";
    }
    void siblingNamesKeepWhatTellsThemApart()
    {
        QFETCH(QString, name);
        QFETCH(QStringList, neighbours);
        QFETCH(int, chars);
        QFETCH(QString, shows);
        const QFontMetrics fm(QApplication::font());
        const int width = chars * fm.averageCharWidth();
        const QString shown =
            portolan::views::ProjectTreeView::shownName(name, neighbours, fm, width);
        QVERIFY2(fm.horizontalAdvance(shown) <= width, qPrintable(shown));
        QVERIFY2(shown.contains(shows), qPrintable(shown));
        // What it shows tells it from each neighbour, given room for the difference.
        for (const QString& other : chars >= 14 ? neighbours : QStringList())
            QVERIFY2(
                shown != portolan::views::ProjectTreeView::shownName(other, {name}, fm, width) ||
                    shown == name,
                qPrintable(shown));
    }

    // A folder of flattened paths (folders joined by "__") reads by what tells its files apart:
    // the stem after the nearest folder not shared by more than half of them ("configs" is), the
    // folder left out when the stem names it, and the first differing folder in front of names
    // that still read the same.
    void flattenedNamesKeepWhatTellsThemApart_data()
    {
        QTest::addColumn<QStringList>("names");
        QTest::addColumn<QStringList>("shown");
        const QString a = QStringLiteral("V_1__zoo__text__alpha__configs__");
        const QString b = QStringLiteral("V_1__zoo__text__beta__configs__");
        QTest::addRow("model folder, generic folder skipped")
            << QStringList{a + "small.yaml", a + "large.yaml", b + "small.yaml", b + "tiny.yaml"}
            << QStringList{"alpha › small", "alpha › large", "beta › small", "beta › tiny"};
        QTest::addRow("stem names its folder")
            << QStringList{a + "params_alpha_7b.yaml", a + "params_alpha_70b.yaml",
                           b + "params_beta_1b.yaml"}
            << QStringList{"params_alpha_7b", "params_alpha_70b", "params_beta_1b"};
        QTest::addRow("same short name: first differing folder in front")
            << QStringList{"V_1__mlp__torch__configs__params.yaml",
                           "V_2__mlp__torch__configs__params.yaml",
                           "V_2__mlp__tf__configs__params.yaml",
                           "V_3__mlp__jax__configs__params.yaml"}
            << QStringList{"V_1 › torch › params", "V_2 › torch › params", "tf › params",
                           "jax › params"};
        QTest::addRow("mixed extensions kept")
            << QStringList{a + "small.yaml", a + "small.json", b + "small.yaml", b + "big.yaml"}
            << QStringList{"alpha › small.yaml", "alpha › small.json", "beta › small.yaml",
                           "beta › big.yaml"};
        QTest::addRow("not flattened")
            << QStringList{"params.yaml", "a__b.yaml", "train.py"} << QStringList{"", "", ""};
    }
    void flattenedNamesKeepWhatTellsThemApart()
    {
        QFETCH(QStringList, names);
        QFETCH(QStringList, shown);
        QCOMPARE(portolan::views::flattenedShortNames(names), shown);
    }

    void narrowTreeKeepsNames()
    {
        MainWindow w;
        w.setInteractive(false);
        w.resize(1400, 800);
        w.show();
        QVERIFY(QTest::qWaitForWindowExposed(&w));
        QSignalSpy opened(&w, &MainWindow::projectOpened);
        w.openProject(QStringLiteral(PORTOLAN_FIXTURES "/projects/tiny"));
        QTRY_COMPARE_WITH_TIMEOUT(opened.count(), 1, 10000);
        auto* tree = w.findChild<portolan::views::ProjectTreeView*>();
        auto* dock = w.findChild<QDockWidget*>(QStringLiteral("projectDock"));
        QVERIFY(tree && dock);
        const int ch = tree->fontMetrics().averageCharWidth();
        // The dock's width for a viewport of `chars` characters.
        const auto dockFor = [&](int chars) {
            return chars * ch + (dock->width() - tree->viewport()->width());
        };
        const auto hidden = [&](int column) {
            return tree->isColumnHidden(column);
        };
        w.resizeDocks({dock}, {dockFor(60)}, Qt::Horizontal);
        QTRY_VERIFY(!hidden(ProjectFilesModel::SizeColumn) &&
                    !hidden(ProjectFilesModel::StatusColumn));
        w.resizeDocks({dock}, {dockFor(40)}, Qt::Horizontal);
        QTRY_VERIFY(!hidden(ProjectFilesModel::SizeColumn) &&
                    hidden(ProjectFilesModel::StatusColumn));
        w.resizeDocks({dock}, {dockFor(25)}, Qt::Horizontal);
        QTRY_VERIFY(hidden(ProjectFilesModel::SizeColumn));
        const QString tip = w.filesModel()
                                ->indexForPath(QStringLiteral("model.py"))
                                .data(Qt::ToolTipRole)
                                .toString();
        QVERIFY2(tip.contains(QRegularExpression(QStringLiteral("\\d B, python"))),
                 qPrintable(tip));
        w.resizeDocks({dock}, {dockFor(60)}, Qt::Horizontal);
        QTRY_VERIFY(!hidden(ProjectFilesModel::SizeColumn));
    }

    void reanalyseReadsUnwatchedFiles()
    {
        QTemporaryDir tmp;
        QVERIFY(QDir(tmp.path()).mkpath(QStringLiteral("deep/er")));
        const auto write = [&](const QString& rel, const QByteArray& text) {
            QFile f(tmp.filePath(rel));
            QVERIFY(f.open(QIODevice::WriteOnly));
            f.write(text);
        };
        write(QStringLiteral("model.py"), "import torch\n");
        write(QStringLiteral("deep/er/data.py"), "BATCH = 1\n");
        MainWindow w;
        w.setInteractive(false);
        w.analysisRunner()->setMaxWatched(1); // model.py only
        QSignalSpy analysed(&w, &MainWindow::projectAnalysed);
        w.openProject(tmp.path());
        QTRY_VERIFY_WITH_TIMEOUT(analysed.count() >= 1 && !w.isBusy(), 20000);
        QCOMPARE(w.analysisRunner()->watchedFiles(), 1);
        const auto textOf = [&](const char* rel) {
            const auto snap = w.analysisRunner()->snapshot();
            for (const auto& f : snap->analysis->python)
                if (f.path == rel)
                    return QString::fromStdString(f.text);
            return QString();
        };
        QCOMPARE(textOf("deep/er/data.py"), QStringLiteral("BATCH = 1\n"));
        write(QStringLiteral("deep/er/data.py"), "BATCH = 2\n");
        auto* action = w.findChild<QAction*>(QStringLiteral("reanalyseAction"));
        QVERIFY(action);
        QCOMPARE(action->shortcut(), QKeySequence(QKeySequence::Refresh));
        const int before = int(analysed.count());
        action->trigger();
        QTRY_VERIFY_WITH_TIMEOUT(analysed.count() > before && !w.isBusy(), 20000);
        QCOMPARE(textOf("deep/er/data.py"), QStringLiteral("BATCH = 2\n"));
    }

    void emptyFolderOpensWithWarning()
    {
        QTemporaryDir tmp;
        MainWindow w;
        w.setInteractive(false);
        QSignalSpy opened(&w, &MainWindow::projectOpened);
        w.openProject(tmp.path());
        QTRY_COMPARE_WITH_TIMEOUT(opened.count(), 1, 5000);
        QCOMPARE(w.filesModel()->rowCount(), 0);
    }

    void recentAndGeometryPersist()
    {
        {
            MainWindow w;
            w.setInteractive(false);
            QSignalSpy opened(&w, &MainWindow::projectOpened);
            w.openProject(QStringLiteral(PORTOLAN_FIXTURES "/projects/tiny"));
            QTRY_COMPARE_WITH_TIMEOUT(opened.count(), 1, 10000);
            w.resize(900, 650);
            w.close();
        }
        const QStringList recent =
            QSettings().value(QStringLiteral("recentProjects")).toStringList();
        QVERIFY(!recent.isEmpty());
        QVERIFY(recent.first().endsWith(QStringLiteral("projects/tiny")));
        QVERIFY(!QSettings().value(QStringLiteral("mainWindow/geometry")).toByteArray().isEmpty());
    }

    void dropFolder()
    {
        MainWindow w;
        w.setInteractive(false);
        w.show();
        QSignalSpy opened(&w, &MainWindow::projectOpened);
        QMimeData mime;
        mime.setUrls({QUrl::fromLocalFile(QStringLiteral(PORTOLAN_FIXTURES "/projects/tiny"))});
        QDragEnterEvent enter(QPoint(10, 10), Qt::CopyAction, &mime, Qt::LeftButton,
                              Qt::NoModifier);
        QCoreApplication::sendEvent(&w, &enter);
        QVERIFY(enter.isAccepted());
        QDropEvent drop(QPointF(10, 10), Qt::CopyAction, &mime, Qt::LeftButton, Qt::NoModifier);
        QCoreApplication::sendEvent(&w, &drop);
        QTRY_COMPARE_WITH_TIMEOUT(opened.count(), 1, 10000);
    }

    void aboutListsLibraries()
    {
        const QString text = portolan::app::AboutDialog::aboutText();
        for (const char* lib : {"Qt", "LibTorch", "yaml-cpp", "Graphviz", "QCustomPlot"})
            QVERIFY2(text.contains(QLatin1String(lib)), lib);
    }
};

QTEST_MAIN(TestMainWindow)
#include "test_main_window.moc"
