#include "app/gui/main_window.h"

#include "app/gui/about_dialog.h"
#include "app/gui/recent_projects.h"
#include "core/common/atomic_file.h"
#include "core/common/number_format.h"
#include "views/code/code_view.h"
#include "views/graph/graph_view.h"
#include "views/params/params_editor.h"
#include "views/params/params_form.h"
#include "views/porting/analysis_runner.h"
#include "views/porting/flow_panel.h"
#include "views/porting/guide_steps_model.h"
#include "views/porting/porting_wizard.h"
#include "views/profile/profile_panel.h"
#include "views/project/project_files_model.h"
#include "views/project/project_overview.h"
#include "views/project/project_tree_view.h"
#include "views/runs/run_panel.h"

#include <QAction>
#include <QApplication>
#include <QCloseEvent>
#include <QDir>
#include <QDockWidget>
#include <QDragEnterEvent>
#include <QFileDialog>
#include <QFileInfo>
#include <QMenuBar>
#include <QMessageBox>
#include <QMimeData>
#include <QSettings>
#include <QStatusBar>
#include <QTabBar>
#include <QTabWidget>
#include <utility>

namespace portolan::app {

MainWindow::MainWindow(QWidget* parent) : QMainWindow(parent)
{
    setWindowTitle(QStringLiteral("Portolan"));
    setAcceptDrops(true);
    setDockNestingEnabled(true);

    m_loader = new views::ProjectLoader(this);
    m_filesModel = new views::ProjectFilesModel(this);
    m_recent = new RecentProjects(this);

    m_tree = new views::ProjectTreeView(m_filesModel, this);
    m_projectDock = new QDockWidget(tr("Project"), this);
    m_projectDock->setObjectName(QStringLiteral("projectDock"));
    m_projectDock->setWidget(m_tree);
    // Names stay readable at 1024 pixels: the views fit beside a dock of this width
    // (test_layout_fit), where the Porting tab's minimum left it under 100 pixels.
    m_projectDock->setMinimumWidth(150);
    addDockWidget(Qt::LeftDockWidgetArea, m_projectDock);

    m_views = new QTabWidget(this);
    m_views->setDocumentMode(true);
    setCentralWidget(m_views);
    m_overview = new views::ProjectOverview(this);
    addView(m_overview, QStringLiteral("overview"), tr("Overview"));
    m_analysis = new views::AnalysisRunner(this);
    m_wizard = new views::PortingWizard(m_analysis, this);
    addView(m_wizard, QStringLiteral("wizard"), tr("Porting"));
    m_flow = new views::FlowPanel(m_analysis, this);
    addView(m_flow, QStringLiteral("flow"), tr("Flow"));
    m_code = new views::CodeView(this);
    addView(m_code, QStringLiteral("code"), tr("Code"));
    m_params = new views::ParamsEditor(this);
    addView(m_params, QStringLiteral("params"), tr("Params"));
    m_runs = new views::RunPanel(this);
    m_runs->setCliPath(cliPath());
    addView(m_runs, QStringLiteral("runs"), tr("Runs"));
    m_profile = new views::ProfilePanel(this);
    addView(m_profile, QStringLiteral("profile"), tr("Profile"));

    createMenus();
    statusBar()->showMessage(tr("Ready"));

    connect(m_loader, &views::ProjectLoader::started, this, [this](const QString& folder) {
        m_overview->showLoading(folder);
        statusBar()->showMessage(tr("Reading %1…").arg(folder));
    });
    connect(m_loader, &views::ProjectLoader::loaded, this, &MainWindow::onLoaded);
    connect(m_loader, &views::ProjectLoader::failed, this, &MainWindow::onFailed);
    connect(m_recent, &RecentProjects::changed, this, &MainWindow::rebuildRecentMenu);
    connect(m_analysis, &views::AnalysisRunner::finished, this, &MainWindow::onAnalysed);
    connect(m_analysis, &views::AnalysisRunner::failed, this, [this](const QString& message) {
        statusBar()->showMessage(tr("Analysis failed: %1").arg(message));
        emit projectAnalysed();
    });
    connectViews();

    QSettings settings;
    if (!restoreGeometry(settings.value(QStringLiteral("mainWindow/geometry")).toByteArray()))
        resize(1280, 800);
    // First start: the project dock gets room for a file name and its size and kind (its own
    // size hint would clip most names of a real project).
    if (!restoreState(settings.value(QStringLiteral("mainWindow/state")).toByteArray()))
        resizeDocks({m_projectDock}, {width() / 4}, Qt::Horizontal);
}

MainWindow::~MainWindow() = default;

void MainWindow::onAnalysed(const views::PortingSnapshotPtr& snap)
{
    m_overview->showAnalysis(*snap->analysis);
    m_overview->showWatched(m_analysis->watchedFiles(), m_analysis->watchableFiles());
    if (!m_code->fileName().isEmpty())
        m_code->setMarkers(m_wizard->markersForFile(m_code->fileName()));
    // The params editor shows the project's params file (or Determined experiment
    // config) the first time the project is analysed; later re-runs leave the user's
    // choice alone.
    if (m_openParamsAfterAnalysis) {
        m_openParamsAfterAnalysis = false;
        const ParamsFileChoice& choice = snap->analysis->paramsFile;
        if (!choice.empty())
            m_params->openFile(
                QString::fromStdString(choice.absolute(snap->analysis->root).string()));
    }
    // The Profile tab compiles for the hardware the guide ports to, until the user
    // picks a target there (a Cerebras port opens on a CS-2, not an IPU).
    {
        const ParamsFileChoice& choice = snap->analysis->paramsFile;
        QStringList candidates;
        for (const auto& c : choice.candidates)
            candidates << QString::fromStdString(c);
        m_profile->setParamsFiles(QString::fromStdString(snap->analysis->root.string()), candidates,
                                  QString::fromStdString(choice.path));
    }
    if (const guides::Guide* guide = snap->guide())
        m_profile->suggestTarget(QString::fromStdString(guide->target));
    if (const QString step = std::exchange(m_wizardStepToShow, QString()); !step.isEmpty())
        for (int row = 0; row < m_wizard->stepsModel()->rowCount(); ++row)
            if (m_wizard->stepsModel()->index(row).data(views::GuideStepsModel::StepIdRole) == step)
                m_wizard->selectStep(row);
    continuePortView();
    emit projectAnalysed();
}

// How the views lead to each other: a finding to its code, a step to the tab that verifies it,
// a file of the tree to its editor.
void MainWindow::connectViews()
{
    auto showCode = [this](const QString& file, int line, int column) {
        openCode(file, line, column);
    };
    connect(m_wizard, &views::PortingWizard::findingActivated, this, showCode);
    connect(m_wizard, &views::PortingWizard::message, this,
            [this](const QString& text) { statusBar()->showMessage(text, 8000); });
    connect(m_wizard, &views::PortingWizard::paramsFileChosen, this, [this](const QString& path) {
        m_params->openFile(path);
        m_profile->setProject(path); // the Profile compiles the file the user chose
        m_runs->setParamsFile(path); // and the Runs tab runs it
    });
    // A page of a Graphcore application config is a named configuration: picked in the Params
    // tab, it is the one the Profile compiles when the Profile compiles that file.
    connect(m_params->form()->tabs(), &QTabWidget::currentChanged, this, [this](int page) {
        const QString compiled = m_profile->compiledParamsFile();
        if (page < 0 || m_views->currentWidget() != m_params || compiled.isEmpty() ||
            QFileInfo(compiled).canonicalFilePath() !=
                QFileInfo(m_params->filePath()).canonicalFilePath())
            return;
        m_profile->selectNamedConfig(m_params->form()->tabs()->tabText(page));
    });
    connect(m_wizard, &views::PortingWizard::codeRequested, this,
            [this](const QString& root, const QString& file, int line, int column) {
                // The port dialog outlives a change of project (it opens the port it wrote):
                // only places in the open project can be shown.
                if (QFileInfo(root).canonicalFilePath() !=
                    QFileInfo(m_projectFolder).canonicalFilePath()) {
                    statusBar()->showMessage(
                        tr("%1:%2 is in %3, not in the open project").arg(file).arg(line).arg(root),
                        8000);
                    return;
                }
                openCode(file, line, column);
                selectView(QStringLiteral("code"));
            });
    connectPortFlow();
    // A step only a compile or a run can verify: its button leads to the tab that does it.
    connect(m_wizard, &views::PortingWizard::compileRequested, this, [this] {
        selectView(QStringLiteral("profile"));
        m_profile->recompile();
    });
    const auto toDryRun = [this] {
        m_runs->setRunKind(views::RunPanel::RunKind::DryRun);
        selectView(QStringLiteral("runs"));
    };
    connect(m_wizard, &views::PortingWizard::dryRunRequested, this, toDryRun);
    connect(m_profile, &views::ProfilePanel::dryRunRequested, this, toDryRun);
    connect(m_flow, &views::FlowPanel::locationActivated, this,
            [this](const QString& f, int l, int c) {
                openCode(f, l, c);
                selectView(QStringLiteral("code"));
            });
    connect(m_flow, &views::FlowPanel::stepActivated, this, [this](int step) {
        m_wizard->selectStep(step);
        selectView(QStringLiteral("wizard"));
    });
    connect(m_tree, &views::ProjectTreeView::fileActivated, this, [this](const QString& file) {
        if (file.endsWith(QLatin1String(".yaml")) || file.endsWith(QLatin1String(".yml"))) {
            if (openParams(QDir(m_projectFolder).filePath(file)))
                selectView(QStringLiteral("params"));
            return;
        }
        openCode(file);
        selectView(QStringLiteral("code"));
    });
    connect(m_params, &views::ParamsEditor::dirtyChanged, this, [this](bool dirty) {
        setWindowModified(dirty);
        const int tab = m_views->indexOf(m_params);
        m_views->setTabText(tab, dirty ? tr("Params*") : tr("Params"));
    });
}

void MainWindow::createMenus()
{
    QMenu* file = menuBar()->addMenu(tr("&File"));
    QAction* open = file->addAction(tr("&Open Project…"), this, &MainWindow::chooseProject);
    open->setShortcut(QKeySequence::Open);
    file->addAction(tr("Open &Params File…"), this, &MainWindow::chooseParamsFile);
    file->addAction(tr("Open &Report…"), this, &MainWindow::chooseReport);
    m_recentMenu = file->addMenu(tr("Open &Recent"));
    rebuildRecentMenu();
    file->addSeparator();
    QAction* quit = file->addAction(tr("&Quit"), this, &QWidget::close);
    quit->setShortcut(QKeySequence::Quit);
    quit->setMenuRole(QAction::QuitRole);

    m_viewMenu = menuBar()->addMenu(tr("&View"));
    m_viewMenu->addAction(m_projectDock->toggleViewAction());
    // Only the first 2,000 Python and YAML files are watched for changes (AnalysisRunner), so
    // a large project needs a way to pick up edits made to the others.
    QAction* reanalyse =
        m_viewMenu->addAction(tr("&Re-analyse Project"), m_analysis, &views::AnalysisRunner::rerun);
    reanalyse->setShortcut(QKeySequence::Refresh);
    reanalyse->setObjectName(QStringLiteral("reanalyseAction"));

    QMenu* help = menuBar()->addMenu(tr("&Help"));
    QAction* about = help->addAction(tr("&About Portolan"), this, [this] {
        auto* dialog = new AboutDialog(this);
        dialog->setAttribute(Qt::WA_DeleteOnClose);
        dialog->open();
    });
    about->setMenuRole(QAction::AboutRole);
    help->addAction(tr("About &Qt"), qApp, &QApplication::aboutQt);
}

void MainWindow::rebuildRecentMenu()
{
    m_recentMenu->clear();
    const QStringList folders = m_recent->folders();
    for (const QString& folder : folders)
        m_recentMenu->addAction(folder, this, [this, folder] { openProject(folder); });
    if (folders.isEmpty()) {
        m_recentMenu->addAction(tr("No recent projects"))->setEnabled(false);
        return;
    }
    m_recentMenu->addSeparator();
    m_recentMenu->addAction(tr("Clear List"), m_recent, &RecentProjects::clear);
}

void MainWindow::chooseProject()
{
    const QString start = m_projectFolder.isEmpty() ? QDir::homePath() : m_projectFolder;
    auto* dialog = new QFileDialog(this, tr("Open Project Folder"), start);
    dialog->setFileMode(QFileDialog::Directory);
    dialog->setOption(QFileDialog::ShowDirsOnly);
    dialog->setAttribute(Qt::WA_DeleteOnClose);
    connect(dialog, &QFileDialog::fileSelected, this, &MainWindow::openProject);
    dialog->open();
}

void MainWindow::chooseParamsFile()
{
    auto* dialog = new QFileDialog(this, tr("Open Params File"), m_projectFolder,
                                   tr("Params files (*.yaml *.yml);;All files (*)"));
    dialog->setFileMode(QFileDialog::ExistingFile);
    dialog->setAttribute(Qt::WA_DeleteOnClose);
    connect(dialog, &QFileDialog::fileSelected, this, &MainWindow::openProject);
    dialog->open();
}

void MainWindow::chooseReport()
{
    auto* dialog = new QFileDialog(this, tr("Open Compile Report"), m_projectFolder,
                                   tr("Portolan reports (*.json);;All files (*)"));
    dialog->setFileMode(QFileDialog::ExistingFile);
    dialog->setAttribute(Qt::WA_DeleteOnClose);
    connect(dialog, &QFileDialog::fileSelected, this, &MainWindow::openReport);
    dialog->open();
}

bool MainWindow::openReport(const QString& file)
{
    QString error;
    if (!m_profile->openReport(file, &error)) {
        statusBar()->showMessage(tr("Cannot open report %1").arg(file));
        warn(tr("Cannot open report"),
             tr("<b>%1</b><br>%2").arg(file.toHtmlEscaped(), error.toHtmlEscaped()));
        return false;
    }
    selectView(QStringLiteral("profile"));
    statusBar()->showMessage(tr("Opened report %1").arg(file));
    return true;
}

bool MainWindow::openParams(const QString& file)
{
    if (m_params->filePath() == file)
        return true;
    if (!m_params->filePath().isEmpty() && !m_params->maybeClose(this))
        return false;
    return m_params->openFile(file);
}

bool MainWindow::selectViewPath(const QString& path)
{
    const QString view = path.section(QLatin1Char(':'), 0, 0);
    const QString page = path.section(QLatin1Char(':'), 1);
    if (!selectView(view))
        return false;
    if (page.isEmpty())
        return true;
    if (view == QLatin1String("runs") && page == QLatin1String("new")) {
        // A new train-and-eval run as soon as the project is open (the screenshot waits for
        // it to finish, so the panel shows a finished run).
        m_startRunWhenLoaded = true;
        return true;
    }
    if (view == QLatin1String("runs") && page == QLatin1String("dry")) {
        // A dry run of the project's own code; only for a project already trusted (nothing
        // asks in a screenshot).
        m_startRunWhenLoaded = true;
        m_runs->setRunKind(views::RunPanel::RunKind::DryRun);
        return true;
    }
    if (view == QLatin1String("runs") && page == QLatin1String("slurm")) {
        // "Run on: Slurm cluster" with the job script to be submitted (nothing is submitted).
        m_runs->setRunOn(views::RunPanel::RunOn::Slurm);
        return true;
    }
    if (view == QLatin1String("wizard")) {
        m_wizardStepToShow = page; // a guide step id ("memory"), selected once analysed
        return true;
    }
    if (view == QLatin1String("port")) {
        m_portView = page.isEmpty() ? QStringLiteral("determined") : page;
        return true;
    }
    return view == QLatin1String("profile") && m_profile->showPage(page);
}

QString MainWindow::cliPath() const
{
    // Installed side by side in bin/, or in the build tree next to app/gui/.
    const QDir here(QCoreApplication::applicationDirPath());
    for (const QString& candidate : {here.filePath(QStringLiteral("portolan-cli")),
                                     here.filePath(QStringLiteral("../cli/portolan-cli"))})
        if (QFileInfo(candidate).isExecutable())
            return QFileInfo(candidate).canonicalFilePath();
    return QStringLiteral("portolan-cli"); // from PATH
}

void MainWindow::openProject(const QString& folder)
{
    if (!m_params->filePath().isEmpty() && !m_params->maybeClose(this))
        return;
    const QFileInfo info(folder);
    const QString path = info.absoluteFilePath();
    // The obvious cases are told at once; everything else comes back from the walk.
    if (!info.exists()) {
        onFailed(path, tr("The folder does not exist."));
        m_recent->remove(QDir::cleanPath(path));
        return;
    }
    const bool params =
        info.isFile() && (info.suffix().compare(QLatin1String("yaml"), Qt::CaseInsensitive) == 0 ||
                          info.suffix().compare(QLatin1String("yml"), Qt::CaseInsensitive) == 0);
    if (!info.isDir() && !params) {
        onFailed(path, tr("This is a file, not a folder. Open the project's folder instead."));
        return;
    }
    m_paramsToOpen.clear();
    if (params) {
        // A params file opens its project (the folder above configs/, else its own folder) with
        // this file chosen: the Params tab shows it and the Profile tab compiles its model, as
        // `portolan-cli compile PARAMS.yaml` does.
        m_paramsToOpen = path;
        QDir dir = info.absoluteDir();
        if (dir.dirName() == QLatin1String("configs"))
            dir.cdUp();
        m_loader->load(dir.absolutePath());
        return;
    }
    m_loader->load(path);
}

void MainWindow::onLoaded(const QString& folder, const views::ProjectScanPtr& scan,
                          const views::ProjectFilesTreePtr& tree)
{
    // Another project: the Code tab no longer shows the last one's file under the new name (a
    // port opened after it was written showed the original's main.py).
    if (QFileInfo(folder).canonicalFilePath() != QFileInfo(m_projectFolder).canonicalFilePath() &&
        !m_code->fileName().isEmpty()) {
        m_code->setSource(QString(), QString());
        m_views->setTabText(m_views->indexOf(m_code), tr("Code"));
        m_views->setTabToolTip(m_views->indexOf(m_code), QString());
    }
    m_projectFolder = folder;
    m_filesModel->setTree(tree); // built on the loader's thread
    m_overview->showScan(*scan);
    m_recent->add(folder);
    const QString paramsFile = std::exchange(m_paramsToOpen, QString());
    m_openParamsAfterAnalysis = paramsFile.isEmpty();
    if (!paramsFile.isEmpty())
        m_params->openFile(paramsFile);
    // A params file opened on its own is the one the checks and the flow read too, not the
    // folder's default (a Model Zoo config folder drew another model's flow).
    m_analysis->analyse(folder, {}, paramsFile);
    m_runs->setProject(folder);
    m_runs->setParamsFile(paramsFile); // a file opened on its own runs, not the folder's default
    if (m_startRunWhenLoaded) {
        m_startRunWhenLoaded = false;
        if (m_runs->runKind() != views::RunPanel::RunKind::DryRun)
            m_runs->setMode(QStringLiteral("train_and_eval"));
        m_runs->start();
    }
    m_profile->setProject(paramsFile.isEmpty() ? folder : paramsFile);
    setWindowTitle(tr("%1 — Portolan").arg(QFileInfo(folder).fileName()));
    setWindowFilePath(folder);
    statusBar()->showMessage(
        tr("%1, %2 skipped")
            .arg(QString::fromStdString(format::counted(long(scan->files.size()), "file")))
            .arg(scan->skipped.size()));
    if (scan->files.empty())
        warn(tr("Empty project"),
             tr("%1 has no files Portolan can analyse.").arg(QDir::toNativeSeparators(folder)));
    emit projectOpened(folder);
}

void MainWindow::onFailed(const QString& folder, const QString& message)
{
    statusBar()->showMessage(tr("Cannot open %1").arg(folder));
    warn(tr("Cannot open project"),
         tr("<b>%1</b><br>%2")
             .arg(QDir::toNativeSeparators(folder).toHtmlEscaped(), message.toHtmlEscaped()));
    emit projectFailed(folder, message);
}

void MainWindow::openCode(const QString& relativePath, int line, int column)
{
    if (m_projectFolder.isEmpty() || relativePath.isEmpty())
        return;
    if (m_code->fileName() != relativePath) {
        auto text = readFile((QDir(m_projectFolder).filePath(relativePath)).toStdString());
        if (!text) {
            statusBar()->showMessage(QString::fromStdString(text.error.toString()), 8000);
            return;
        }
        const std::string& bytes = *text.value;
        m_code->setSource(relativePath, QString::fromUtf8(bytes.data(), qsizetype(bytes.size())));
        // The file's name, cut in the middle to about 24 characters (its path on hover): a
        // flattened Model Zoo config's name put the Params, Runs and Profile tabs behind scroll
        // arrows, or made the window 1,254 pixels wide at 1024.
        const int tab = m_views->indexOf(m_code);
        const QFontMetrics fm = m_views->tabBar()->fontMetrics();
        m_views->setTabText(tab,
                            tr("Code: %1")
                                .arg(fm.elidedText(QFileInfo(relativePath).fileName(),
                                                   Qt::ElideMiddle, 24 * fm.averageCharWidth())));
        m_views->setTabToolTip(tab, relativePath);
    }
    m_code->setMarkers(m_wizard->markersForFile(relativePath));
    m_code->goTo(line, column);
}

void MainWindow::setInteractive(bool interactive)
{
    m_interactive = interactive;
    m_runs->setInteractive(interactive);
}

bool MainWindow::isBusy() const
{
    return m_loader->isLoading() || m_analysis->isRunning() || m_flow->graphView()->isRendering() ||
           m_profile->isBusy() || m_runs->isRunning() || isPortViewBusy();
}

void MainWindow::warn(const QString& title, const QString& text)
{
    if (!m_interactive)
        return;
    auto* box = new QMessageBox(QMessageBox::Warning, title, text, QMessageBox::Ok, this);
    box->setAttribute(Qt::WA_DeleteOnClose);
    box->open();
}

void MainWindow::addView(QWidget* view, const QString& id, const QString& title)
{
    view->setObjectName(id);
    m_views->addTab(view, title);
}

bool MainWindow::selectView(const QString& id)
{
    if (id == QLatin1String("port")) // the port dialog, over the Porting tab
        return selectView(QStringLiteral("wizard"));
    for (int i = 0; i < m_views->count(); ++i) {
        if (m_views->widget(i)->objectName() == id) {
            m_views->setCurrentIndex(i);
            return true;
        }
    }
    return false;
}

QStringList MainWindow::viewIds() const
{
    QStringList ids;
    for (int i = 0; i < m_views->count(); ++i)
        ids << m_views->widget(i)->objectName();
    return ids;
}

void MainWindow::closeEvent(QCloseEvent* event)
{
    // Unsaved params edits are never dropped silently.
    if (m_interactive && !m_params->maybeClose(this)) {
        event->ignore();
        return;
    }
    QSettings settings;
    settings.setValue(QStringLiteral("mainWindow/geometry"), saveGeometry());
    settings.setValue(QStringLiteral("mainWindow/state"), saveState());
    event->accept();
}

void MainWindow::dragEnterEvent(QDragEnterEvent* event)
{
    const auto urls = event->mimeData()->urls();
    if (urls.size() == 1 && urls.first().isLocalFile() &&
        QFileInfo(urls.first().toLocalFile()).isDir())
        event->acceptProposedAction();
}

void MainWindow::dropEvent(QDropEvent* event)
{
    const auto urls = event->mimeData()->urls();
    if (urls.isEmpty())
        return;
    openProject(urls.first().toLocalFile());
    event->acceptProposedAction();
}

} // namespace portolan::app
