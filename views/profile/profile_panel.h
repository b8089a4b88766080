#pragma once

// The profile views (docs/ARCHITECTURE.md, Profile, after PopVision Graph Analyser): a compile
// panel that re-simulates off the GUI thread when a setting changes, and pages for the summary,
// memory, tile map, liveness, pipeline, CS placement, op graph and comparison of two reports.

#include "core/graph/op_graph.h"
#include "core/workflow/compile_project.h"
#include "views/common/job.h"
#include "views/profile/plot_theme.h"

#include <QStringList>
#include <QWidget>
#include <optional>

class QLabel;
class QProcess;
class QProgressBar;
class QPushButton;
class QComboBox;
class QTabWidget;
class QTimer;

namespace portolan::views {

class CompileSettings;
class ComparePage;
class CsPage;
class DryRunNotice;
class LivenessPage;
class MemoryPage;
class OpGraphPage;
class PipelinePage;
class StatusLine;
class SummaryPage;
class TileMapPage;

class ProfilePanel : public QWidget
{
    Q_OBJECT
public:
    explicit ProfilePanel(QWidget* parent = nullptr);
    ~ProfilePanel() override;

    // Reports up to kSyncLoadBytes load at once and a parse error returns false with the
    // positioned message in `error`. Bigger ones load off the GUI thread: true means started, and
    // reportLoaded or reportFailed follows.
    bool openReport(const QString& file, QString* error);
    static constexpr qint64 kSyncLoadBytes = qint64{4} * 1024 * 1024;
    // Records the project's model and compiles it with the current settings. The graph source
    // is chosen off the GUI thread (core/workflow/graph_source.h), and the recording runs in the
    // Torch child (portolan-torch) as a process of its own, which cancelRecording() ends.
    // `namedConfig`: in a file of Graphcore named configurations, the one to compile (empty:
    // the first that describes a model, as portolan-cli compile without --config).
    void setProject(const QString& folder, const QString& namedConfig = {});
    // The hardware the project's guide ports to (a resources/targets id), until the user picks a
    // target: the project's training is mapped onto it again and the model recompiled.
    void suggestTarget(const QString& id);
    // The project's params files (relative to root) and the one compiled, for the selector.
    void setParamsFiles(const QString& root, const QStringList& candidates, const QString& current);
    QString paramsFile() const;
    // A file of Graphcore named configurations: those that describe a model (the selector's
    // items) and the one compiled; empty otherwise.
    QStringList namedConfigs() const;
    QString namedConfig() const;
    // Compiles the named configuration `name` of the params file compiled now, as a pick in
    // the selector does; false when the file has no such configuration or it is compiled now.
    bool selectNamedConfig(const QString& name);
    // The params file the model was built or recorded from (absolute); empty for a capture, a
    // report or before a model is found.
    QString compiledParamsFile() const { return m_compiledParams; }
    // Why the Profile compiles for the model source's vendor's hardware ("a Cerebras Model Zoo
    // config (params.yaml): Cerebras CS-2"); empty when the source names none.
    QString defaultTargetReason() const { return m_defaultTargetReason; }
    void cancelRecording();
    bool isRecording() const { return m_recording > 0; }
    // Delay between a change of the settings and the re-simulation (150 ms: a spin box held
    // down re-simulates once).
    void setSettleDelay(int ms);
    void setResult(std::shared_ptr<const sim::CompileResult> result);
    ResultPtr result() const { return m_result; }

    QStringList pageIds() const;
    bool showPage(const QString& id);
    QString currentPage() const;
    bool isBusy() const;

    // Re-simulates now with the settings (the debounce timer calls this).
    void recompile();
    // Searches for the fewest IPUs (or a CS configuration) that fit, off the GUI thread, and
    // puts the result into the settings.
    void findConfiguration();
    CompileSettings* settings() const { return m_settings; }
    SummaryPage* summaryPage() const { return m_summary; }
    MemoryPage* memoryPage() const { return m_memory; }
    TileMapPage* tileMapPage() const { return m_tileMap; }
    LivenessPage* livenessPage() const { return m_liveness; }
    PipelinePage* pipelinePage() const { return m_pipeline; }
    CsPage* csPage() const { return m_cs; }
    OpGraphPage* opGraphPage() const { return m_graph; }
    ComparePage* comparePage() const { return m_compare; }
    // The status line's sentence, and the whole message behind it (a diagnostic with its
    // position and code, a child's stderr), on hover and behind its Details link.
    QString statusText() const;
    QString statusMessage() const;

signals:
    void resultChanged();
    // A simulation started, with the settings in the form (its result follows, unless newer
    // settings replace it).
    void compileStarted();
    void reportLoaded(const QString& file);
    void reportFailed(const QString& message);
    void compileFailed(const QString& message);
    // The model is unknown until a dry run captures it: the user asked for one.
    void dryRunRequested();

private:
    // The constructor's parts (profile_panel_layout.cpp).
    QWidget* createSettingsColumn();
    void createSelectors(QWidget* left);
    QWidget* createPages();
    void connectParts();
    void startCompile();
    void startRecording(quint64 id, const QStringList& args);
    void recordingFailed(const QString& message);
    void showNamedConfigs(const std::vector<std::string>& names, const std::string& current);
    void updateSelectors();             // the selectors' row shows when either selector does
    void showCompiledParams();          // the params selector shows the file compiled
    void acceptGraph(graph::OpGraph g); // a recorded or built graph becomes the one compiled
    void setBusy(const QString& what);
    void applyProjectTraining(sim::CompileOptions& o) const;
    void setIdle(const QString& status);
    void saveReportAs();
    void openReportDialog();

    CompileSettings* m_settings = nullptr;
    QLabel* m_source = nullptr;
    StatusLine* m_status = nullptr;
    QProgressBar* m_progress = nullptr;
    QPushButton* m_cancel = nullptr;
    QProcess* m_child = nullptr; // the Torch child recording the project's model
    QTabWidget* m_tabs = nullptr;
    QWidget* m_paramsRow = nullptr;
    QLabel* m_paramsLabel = nullptr;
    QComboBox* m_paramsCombo = nullptr;
    QLabel* m_configLabel = nullptr;
    QComboBox* m_configCombo = nullptr; // a Graphcore application's named configurations
    QString m_projectPath;              // what setProject was given last
    QString m_compiledParams;
    QPushButton* m_dryRun = nullptr; // shown when only a dry run can tell the model
    // Over the pages without a notice of their own (Liveness, Pipeline, CS placement, Op graph)
    // while only a dry run can tell the model; m_needsDryRun says it is so.
    DryRunNotice* m_pagesNotice = nullptr;
    bool m_needsDryRun = false;
    void updatePagesNotice();
    QTimer* m_debounce = nullptr;
    SummaryPage* m_summary = nullptr;
    MemoryPage* m_memory = nullptr;
    TileMapPage* m_tileMap = nullptr;
    LivenessPage* m_liveness = nullptr;
    PipelinePage* m_pipeline = nullptr;
    CsPage* m_cs = nullptr;
    OpGraphPage* m_graph = nullptr;
    ComparePage* m_compare = nullptr;

    ResultPtr m_result;
    std::shared_ptr<const graph::OpGraph> m_opGraph; // what re-simulation compiles
    // The stages of the latest simulations of m_simGraph (a split drag re-places only the
    // stages it touches); replaced with m_opGraph, whose address it is keyed by. Used on the
    // worker thread only.
    std::shared_ptr<const graph::OpGraph> m_simGraph;
    std::shared_ptr<sim::IpuSimCache> m_simCache;
    // The project's model source and how it trains (its graph is m_opGraph): mapped onto the
    // target by workflow::projectOptions whenever the target changes by suggestion.
    std::shared_ptr<workflow::ProjectModel> m_project;
    // Why the target is the model source's vendor's (sim::defaultTarget); empty: no such rule.
    QString m_defaultTargetReason;
    // The Model Zoo family of m_opGraph when it was built from a params file (or read from an
    // opened report): every result compiled from it carries it, so a saved report does.
    std::shared_ptr<const sim::ModelFamilyNotes> m_family;
    JobTicket m_compileTicket, m_loadTicket, m_recordTicket, m_searchTicket;
    bool m_compiling = false, m_compilePending = false;
    int m_loading = 0, m_recording = 0;
};

} // namespace portolan::views
