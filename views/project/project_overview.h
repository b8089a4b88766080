#pragma once

#include "views/project/project_loader.h"

#include <QWidget>

class QLabel;

namespace portolan::analysis {
struct ProjectAnalysis;
}
class QTableView;

namespace portolan::views {

class DiagnosticsModel;

// The first page after opening a project: what was found, what was skipped and why.
class ProjectOverview : public QWidget
{
    Q_OBJECT
public:
    explicit ProjectOverview(QWidget* parent = nullptr);

    void showScan(const ProjectScan& scan);
    // Names the detected flavour (and Cerebras API generation), lists the files not checked as
    // the port (tests, vendored code) and replaces the diagnostics with the analysis' (walk,
    // syntax and YAML errors).
    void showAnalysis(const analysis::ProjectAnalysis& analysis);
    void showLoading(const QString& folder);
    // Says when only some of the project's files are watched for changes (AnalysisRunner).
    void showWatched(int watched, int watchable);
    void clear();

    DiagnosticsModel* diagnosticsModel() const { return m_model; }

private:
    void updateHeadings();

    QLabel* m_title = nullptr;
    QLabel* m_summary = nullptr;
    QLabel* m_flavour = nullptr;
    QLabel* m_skipped = nullptr; // what the walk left out, by reason
    QLabel* m_notPort = nullptr; // files read but not checked as the port (tests, vendored)
    QLabel* m_watchNote = nullptr;
    QLabel* m_diagnosticsHeading = nullptr; // "Diagnostics (N)", or "none"
    QTableView* m_table = nullptr;
    DiagnosticsModel* m_model = nullptr;
};

} // namespace portolan::views
