#pragma once

#include "views/porting/port_dialog.h"
#include "views/porting/porting_snapshot.h"
#include "views/project/project_loader.h"

#include <QMainWindow>
#include <QPointer>

class QTabWidget;
class QMenu;
class QDockWidget;

namespace portolan::views {
class AnalysisRunner;
class CodeView;
class FlowPanel;
class ParamsEditor;
class PortingWizard;
class ProfilePanel;
class RunPanel;
class ProjectFilesModel;
class ProjectOverview;
class ProjectTreeView;
} // namespace portolan::views

namespace portolan::app {

class RecentProjects;

// Wires the views together: menus, docks, the project loader. No analysis happens here.
class MainWindow : public QMainWindow
{
    Q_OBJECT
public:
    explicit MainWindow(QWidget* parent = nullptr);
    ~MainWindow() override;

    // Opens a project folder. The walk runs off the GUI thread; projectOpened or projectFailed
    // follows. A missing, unreadable or empty folder gets a message, never a crash.
    void openProject(const QString& folder);
    QString projectFolder() const { return m_projectFolder; }

    // Central views, by id ("overview", later "wizard", "params", ...), for --view and tests.
    void addView(QWidget* view, const QString& id, const QString& title);
    bool selectView(const QString& id);
    QStringList viewIds() const;

    views::ProjectFilesModel* filesModel() const { return m_filesModel; }
    views::AnalysisRunner* analysisRunner() const { return m_analysis; }
    views::PortingWizard* wizard() const { return m_wizard; }
    views::CodeView* codeView() const { return m_code; }
    views::FlowPanel* flowPanel() const { return m_flow; }
    views::ParamsEditor* paramsEditor() const { return m_params; }
    views::RunPanel* runPanel() const { return m_runs; }
    views::ProfilePanel* profilePanel() const { return m_profile; }

    // Opens a saved compile report in the profile view. Returns false (with a message) on a
    // corrupt, truncated or unreadable report.
    bool openReport(const QString& file);
    // Opens a YAML file of the project in the params editor (after asking about unsaved edits).
    bool openParams(const QString& file);
    // "wizard", "profile:memory", ...: a view, and for the profile a page in it.
    bool selectViewPath(const QString& path);

    // Shows a project file in the code view at line:column with its findings marked.
    void openCode(const QString& relativePath, int line = 1, int column = 1);
    // True while anything the window shows is still being computed (for --screenshot and tests).
    bool isBusy() const;
    views::ProjectOverview* overview() const { return m_overview; }

    // What --screenshot grabs: the port dialog for --view port:TARGET[:TAB] (except its runs
    // tab, which is this window's Runs tab), else this window.
    QWidget* screenshotTarget();
    views::PortDialog* portDialog() const { return m_portDialog; }

    // Message boxes are shown non-modally; tests and --screenshot turn them off entirely.
    void setInteractive(bool interactive);

signals:
    void projectOpened(const QString& folder);
    void projectFailed(const QString& folder, const QString& message);
    // The analysis of the opened project is done (or failed); the views show it.
    void projectAnalysed();

protected:
    void closeEvent(QCloseEvent* event) override;
    void dragEnterEvent(QDragEnterEvent* event) override;
    void dropEvent(QDropEvent* event) override;

private:
    void createMenus();
    // The constructor's parts: what an analysis updates, and the views' links to each other.
    void onAnalysed(const views::PortingSnapshotPtr& snap);
    void connectViews();
    void rebuildRecentMenu();
    void chooseProject();
    void chooseReport();
    void chooseParamsFile();
    QString cliPath() const;
    void onLoaded(const QString& folder, const views::ProjectScanPtr& scan,
                  const views::ProjectFilesTreePtr& tree);
    void onFailed(const QString& folder, const QString& message);
    void warn(const QString& title, const QString& text);
    void continuePortView();
    bool isPortViewBusy() const;
    void connectPortFlow();

    views::ProjectLoader* m_loader = nullptr;
    views::ProjectFilesModel* m_filesModel = nullptr;
    views::ProjectTreeView* m_tree = nullptr;
    views::ProjectOverview* m_overview = nullptr;
    views::AnalysisRunner* m_analysis = nullptr;
    views::PortingWizard* m_wizard = nullptr;
    views::FlowPanel* m_flow = nullptr;
    views::CodeView* m_code = nullptr;
    views::ParamsEditor* m_params = nullptr;
    views::RunPanel* m_runs = nullptr;
    views::ProfilePanel* m_profile = nullptr;
    QDockWidget* m_projectDock = nullptr;
    QTabWidget* m_views = nullptr;
    QMenu* m_recentMenu = nullptr;
    QMenu* m_viewMenu = nullptr;
    RecentProjects* m_recent = nullptr;
    QString m_projectFolder;
    bool m_interactive = true;
    bool m_openParamsAfterAnalysis = false;
    QString m_paramsToOpen;            // a params file opened directly: its project opens around it
    bool m_startRunWhenLoaded = false; // --view runs:new
    QString m_wizardStepToShow;        // --view wizard:STEP_ID, once the analysis is done
    // --view port:TARGET[:TAB]: the port dialog for TARGET on TAB (plan, files, manual, verify,
    // or runs: written to the default folder and verified, shown in the Runs tab).
    QString m_portView;
    QPointer<views::PortDialog> m_portDialog;
};

} // namespace portolan::app
