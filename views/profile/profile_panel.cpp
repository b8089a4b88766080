#include "views/profile/profile_panel.h"

#include "core/graph/graph_json.h"
#include "core/graph/torch_child.h"
#include "core/report/report.h"
#include "core/sim/auto_config.h"
#include "core/workflow/compile_project.h"
#include "views/common/action_texts.h"
#include "views/common/eliding_combo_box.h"
#include "views/common/form_scroll_area.h"
#include "views/common/status_line.h"
#include "views/common/tab_rows.h"
#include "views/common/wrap_anywhere_label.h"
#include "views/graph/graph_view.h"
#include "views/profile/compare_page.h"
#include "views/profile/compile_settings.h"
#include "views/profile/cs_page.h"
#include "views/profile/liveness_page.h"
#include "views/profile/memory_chart.h"
#include "views/profile/memory_page.h"
#include "views/profile/op_graph_page.h"
#include "views/profile/pipeline_page.h"
#include "views/profile/summary_page.h"
#include "views/profile/tile_map_page.h"

#include <QComboBox>
#include <QDir>
#include <QFileDialog>
#include <QFileInfo>
#include <QGridLayout>
#include <QGroupBox>
#include <QHBoxLayout>
#include <QLabel>
#include <QMessageBox>
#include <QProcess>
#include <QProgressBar>
#include <QPushButton>
#include <QScrollArea>
#include <QScrollBar>
#include <QSet>
#include <QSplitter>
#include <QTabWidget>
#include <QTimer>
#include <QVBoxLayout>

namespace portolan::views {

namespace {
const char* const kPageIds[] = {"summary",  "memory", "tilemap", "liveness",
                                "pipeline", "cs",     "graph",   "compare"};
constexpr int kRelativePathRole = Qt::UserRole + 1; // a params file relative to the project

} // namespace

ProfilePanel::ProfilePanel(QWidget* parent) : QWidget(parent)
{
    setObjectName(QStringLiteral("profilePanel"));
    auto* layout = new QHBoxLayout(this);
    auto* splitter = new QSplitter(Qt::Horizontal, this);
    layout->addWidget(splitter);
    splitter->addWidget(createSettingsColumn());
    splitter->addWidget(createPages());
    splitter->setStretchFactor(1, 1);
    connectParts();
    setResult(nullptr);
}

ProfilePanel::~ProfilePanel()
{
    // A Torch child still recording is a QObject child: ~QWidget would delete it after this
    // class's part is gone, and ~QProcess emits finished() into a handler that uses this panel.
    for (QProcess* child : findChildren<QProcess*>(Qt::FindDirectChildrenOnly)) {
        child->disconnect(this);
        child->kill();
    }
}

void ProfilePanel::setParamsFiles(const QString& root, const QStringList& candidates,
                                  const QString& current)
{
    m_paramsCombo->clear();
    // The file names when they tell the files apart: at 1,024 pixels the pane is narrow, and
    // "configs/params_gpt2_large.yaml" showed as "configs/params_gpt2" (the path is the
    // tooltip).
    QStringList names;
    for (const QString& c : candidates)
        names << QFileInfo(c).fileName();
    const bool unique = QSet<QString>(names.begin(), names.end()).size() == names.size();
    for (int i = 0; i < candidates.size(); ++i) {
        const QString& c = candidates[i];
        m_paramsCombo->addItem(unique ? names[i] : c, QDir(root).filePath(c));
        m_paramsCombo->setItemData(i, QDir(root).filePath(c), Qt::ToolTipRole);
        m_paramsCombo->setItemData(i, c, kRelativePathRole);
    }
    m_paramsCombo->setCurrentIndex(m_paramsCombo->findData(current, kRelativePathRole));
    showCompiledParams();
    m_paramsLabel->setVisible(!candidates.isEmpty());
    m_paramsCombo->setVisible(!candidates.isEmpty());
    m_paramsCombo->setEnabled(candidates.size() > 1);
    updateSelectors();
}

// The selector shows the file compiled, whichever way it was chosen: a params file opened on its
// own showed the project's default (params_gpt2_large.yaml over a compiled params_gpt2_xl.yaml).
void ProfilePanel::showCompiledParams()
{
    if (m_compiledParams.isEmpty())
        return;
    const QString compiled = QFileInfo(m_compiledParams).canonicalFilePath();
    for (int i = 0; i < m_paramsCombo->count(); ++i)
        if (QFileInfo(m_paramsCombo->itemData(i).toString()).canonicalFilePath() == compiled) {
            m_paramsCombo->setCurrentIndex(i);
            return;
        }
}

QString ProfilePanel::paramsFile() const
{
    return m_paramsCombo->currentData(kRelativePathRole).toString();
}

void ProfilePanel::showNamedConfigs(const std::vector<std::string>& names,
                                    const std::string& current)
{
    m_configCombo->clear();
    for (const auto& n : names)
        m_configCombo->addItem(QString::fromStdString(n));
    m_configCombo->setCurrentIndex(m_configCombo->findText(QString::fromStdString(current)));
    m_configLabel->setVisible(!names.empty());
    m_configCombo->setVisible(!names.empty());
    m_configCombo->setEnabled(names.size() > 1);
    updateSelectors();
}

void ProfilePanel::updateSelectors()
{
    m_paramsRow->setVisible(!m_paramsCombo->isHidden() || !m_configCombo->isHidden());
}

QStringList ProfilePanel::namedConfigs() const
{
    QStringList names;
    for (int i = 0; i < m_configCombo->count(); ++i)
        names << m_configCombo->itemText(i);
    return names;
}

QString ProfilePanel::namedConfig() const
{
    return m_configCombo->currentText();
}

bool ProfilePanel::selectNamedConfig(const QString& name)
{
    const int i = m_configCombo->findText(name);
    if (i < 0 || i == m_configCombo->currentIndex())
        return false;
    m_configCombo->setCurrentIndex(i);
    setProject(m_projectPath, name);
    return true;
}

QStringList ProfilePanel::pageIds() const
{
    QStringList ids;
    for (const char* id : kPageIds)
        ids << QString::fromLatin1(id);
    return ids;
}

bool ProfilePanel::showPage(const QString& id)
{
    for (int i = 0; i < m_tabs->count(); ++i)
        if (m_tabs->widget(i)->objectName() == id) {
            m_tabs->setCurrentIndex(i);
            return true;
        }
    return false;
}

QString ProfilePanel::currentPage() const
{
    return m_tabs->currentWidget()->objectName();
}

bool ProfilePanel::isBusy() const
{
    return m_compiling || m_compilePending || m_loading > 0 || m_recording > 0 ||
           m_debounce->isActive() || m_graph->isRendering() || m_compare->isLoading();
}

void ProfilePanel::setSettleDelay(int ms)
{
    m_debounce->setInterval(ms);
}

void ProfilePanel::setBusy(const QString& what)
{
    m_status->setMessage(what);
    m_progress->show();
}

void ProfilePanel::setIdle(const QString& status)
{
    m_status->setMessage(status);
    m_progress->setVisible(m_compiling || m_loading > 0 || m_recording > 0);
    m_cancel->setVisible(m_recording > 0);
}

void ProfilePanel::setResult(std::shared_ptr<const sim::CompileResult> result)
{
    m_result = std::move(result);
    if (m_result) {
        m_settings->setOptions(m_result->options);
        if (!m_opGraph)
            m_opGraph = std::shared_ptr<const graph::OpGraph>(m_result, &m_result->graph);
    }
    m_summary->setResult(m_result);
    m_memory->setResult(m_result);
    m_tileMap->setResult(m_result);
    m_liveness->setResult(m_result);
    m_pipeline->setResult(m_result);
    m_cs->setResult(m_result);
    m_graph->setResult(m_result);
    m_compare->setCurrent(m_result);
    if (m_result)
        m_needsDryRun = false;
    updatePagesNotice();
    emit resultChanged();
}

void ProfilePanel::setProject(const QString& folder, const QString& namedConfig)
{
    m_dryRun->hide();
    m_needsDryRun = false;
    updatePagesNotice();
    cancelRecording();
    m_settings->forgetTargetChoice();
    m_defaultTargetReason.clear();
    m_project.reset();
    m_compiledParams.clear();
    // Another file has other configurations (or none); the same file keeps its list while the
    // one picked is built, and after a failure, so another can be picked.
    if (folder != m_projectPath)
        showNamedConfigs({}, {});
    m_projectPath = folder;
    // The project by name; its path (eight lines of the narrow column at 1024 pixels, twice
    // with the model's origin) is on hover.
    m_source->setText(tr("Project %1").arg(QFileInfo(folder).fileName()));
    m_source->setToolTip(QDir::toNativeSeparators(folder));
    const quint64 id = m_recordTicket.next();
    ++m_recording;
    setBusy(tr("Finding the model of %1...").arg(QFileInfo(folder).fileName()));
    m_cancel->show();
    workflow::ModelInput input;
    input.path = folder.toStdString();
    input.namedConfig = namedConfig.toStdString();
    // The workflow finds the model (and builds a Model Zoo family) off the GUI thread; a model
    // that needs LibTorch is recorded by the Torch child in a QProcess that Cancel can end.
    runAsync(
        this, [input] { return workflow::openModel(input); },
        [this, id, folder](Result<workflow::ProjectModel> found) {
            if (!m_recordTicket.isCurrent(id))
                return; // cancelled or replaced; the count was settled there
            if (!found) {
                --m_recording;
                // The Profile's wording: its button does what the CLI's command would.
                recordingFailed(
                    QString::fromStdString(workflow::guiWording(found.error).toString()));
                return;
            }
            workflow::ProjectModel& model = *found.value;
            showNamedConfigs(model.namedConfigs, model.source.training
                                                     ? model.source.training->namedConfig
                                                     : std::string());
            if (!model.source.params.empty()) {
                m_compiledParams = QString::fromStdString(model.source.params.string());
                showCompiledParams();
            }
            // The vendor's hardware first, by the CLI's rule (sim::defaultTarget): a Cerebras
            // config on a CS-2, a PopTorch project on an IPU, with the reason on the source line.
            if (const sim::DefaultTarget d = sim::defaultTarget(model.source); !d.id.empty()) {
                m_defaultTargetReason = QString::fromStdString(d.reason);
                m_settings->suggestTarget(QString::fromStdString(d.id));
                m_source->setText(tr("Project %1 · target: %2")
                                      .arg(QFileInfo(folder).fileName(), m_defaultTargetReason));
            }
            // Start from the defaults on the target and how the project trains, by the one rule
            // the CLI uses (workflow::projectOptions). Not from the form: it holds the previous
            // model's settings (a 2-IPU configuration's per-IPU proportions failed a 4-IPU one).
            QString ignored;
            sim::CompileOptions o;
            o.target = m_settings->options(&ignored).target;
            if (model.source.training) {
                m_project = std::make_shared<workflow::ProjectModel>();
                m_project->source = model.source;
                applyProjectTraining(o);
            }
            m_settings->setOptions(o);
            if (model.graph) {
                --m_recording;
                m_family = model.family
                               ? std::make_shared<const sim::ModelFamilyNotes>(*model.family)
                               : nullptr;
                acceptGraph(std::move(*model.graph));
                return;
            }
            QStringList args;
            for (const auto& a : model.torchArguments)
                args << QString::fromStdString(a);
            setBusy(
                tr("Recording the model of %1 (%2)...")
                    .arg(QFileInfo(folder).fileName(),
                         QString::fromLatin1(graph::graphSourceName(model.source.kind).data())));
            startRecording(id, args);
        });
}

void ProfilePanel::applyProjectTraining(sim::CompileOptions& o) const
{
    if (m_project)
        o = workflow::projectOptions(*m_project, std::move(o));
}

void ProfilePanel::suggestTarget(const QString& id)
{
    // The model source's own hardware (a Cerebras config) wins over the guide's suggestion.
    if (!m_defaultTargetReason.isEmpty())
        return;
    if (id.isEmpty() || !m_settings->suggestTarget(id))
        return;
    sim::CompileOptions o = m_settings->options();
    applyProjectTraining(o);
    m_settings->setOptions(o);
    if (m_opGraph)
        m_debounce->start();
}

void ProfilePanel::startRecording(quint64 id, const QStringList& args)
{
    const QString program = QString::fromStdString(graph::torchChildPath().string());
    if (program.isEmpty()) {
        --m_recording;
        recordingFailed(tr("Cannot find %1, the program that runs LibTorch for Portolan; looked "
                           "in %2.")
                            .arg(QString::fromLatin1(graph::kTorchChildName),
                                 QString::fromStdString(graph::torchChildSearchText())));
        return;
    }
    auto* child = new QProcess(this);
    m_child = child;
    child->setProgram(program);
    child->setArguments(args);
    connect(child, &QProcess::errorOccurred, this, [this, child, id](QProcess::ProcessError e) {
        if (e != QProcess::FailedToStart || !m_recordTicket.isCurrent(id))
            return;
        m_child = nullptr;
        child->deleteLater();
        --m_recording;
        recordingFailed(tr("Cannot start %1: %2").arg(child->program(), child->errorString()));
    });
    connect(child, &QProcess::finished, this, [this, child, id](int code, QProcess::ExitStatus st) {
        child->deleteLater();
        if (m_child == child)
            m_child = nullptr;
        if (!m_recordTicket.isCurrent(id))
            return; // cancelled: cancelRecording settled the count
        const std::string out = child->readAllStandardOutput().toStdString();
        // The last lines of the child's stderr explain a crash that left no document.
        QString err = QString::fromLocal8Bit(child->readAllStandardError()).trimmed();
        if (err.size() > 600)
            err = QStringLiteral("...") + err.right(600);
        const QString how = st == QProcess::CrashExit
                                ? tr("%1 crashed").arg(QString::fromLatin1(graph::kTorchChildName))
                                : tr("%1 ended with exit code %2")
                                      .arg(QString::fromLatin1(graph::kTorchChildName))
                                      .arg(code);
        const std::string source = child->program().toStdString();
        runAsync(
            this, [out, source] { return graph::parseGraphDocument(out, source); },
            [this, id, how, err](Result<graph::OpGraph> g) {
                if (!m_recordTicket.isCurrent(id))
                    return; // cancelled or replaced: cancelRecording settled the count
                --m_recording;
                if (!g) {
                    QString message = QString::fromStdString(g.error.toString());
                    if (g.error.code == "graph.document")
                        message = how + QStringLiteral(": ") + message +
                                  (err.isEmpty() ? QString() : QStringLiteral("\n") + err);
                    recordingFailed(message);
                    return;
                }
                m_family.reset(); // a recorded model has no Model Zoo family
                acceptGraph(std::move(*g.value));
            });
    });
    // Qt 6's start() with setProgram/setArguments: clazy 1.11's porting check names every
    // QProcess::start through a local (it does not look at the arguments).
    child->start(); // clazy:exclude=qt6-deprecated-api-fixes
}

void ProfilePanel::acceptGraph(graph::OpGraph g)
{
    // The origin's paths inside the project read relative to it; the whole is on hover.
    const QString origin = QString::fromStdString(g.origin);
    QString shown = origin;
    if (!m_projectPath.isEmpty())
        shown.replace(QDir::toNativeSeparators(m_projectPath) + QDir::separator(), QString());
    m_source->setText(m_source->text().section(QLatin1Char('\n'), 0, 0) + QStringLiteral("\n") +
                      tr("Model from %1").arg(shown));
    m_source->setToolTip(m_source->toolTip().section(QLatin1Char('\n'), 0, 0) +
                         QStringLiteral("\n") + origin);
    m_opGraph = std::make_shared<const graph::OpGraph>(std::move(g));
    recompile();
}

void ProfilePanel::recordingFailed(const QString& message)
{
    setIdle(message);
    // Nothing knows the model until a dry run captures it: the GUI's way to that is a button,
    // not the portolan-cli command the message names.
    const bool noModel = message.contains(QLatin1String("compile.no-model"));
    m_dryRun->setVisible(noModel);
    // The project's report is gone with its model: the pages must not keep the previous
    // project's, and the summary (where one looks) says why, with the same button.
    m_compileTicket.invalidate();
    m_opGraph.reset();
    setResult(nullptr);
    m_summary->showNoModel(message, noModel);
    if (noModel) {
        m_memory->showNeedsDryRun();
        m_tileMap->showNeedsDryRun();
    }
    m_needsDryRun = noModel;
    updatePagesNotice();
    emit compileFailed(message);
}

void ProfilePanel::cancelRecording()
{
    if (m_recording == 0)
        return;
    m_recordTicket.invalidate();
    m_recording = 0;
    if (m_child) {
        QProcess* child = m_child;
        m_child = nullptr;
        child->disconnect(this);
        child->kill();
        connect(child, &QProcess::finished, child, &QObject::deleteLater);
    }
    setIdle(tr("Recording cancelled."));
}

void ProfilePanel::recompile()
{
    m_debounce->stop();
    if (!m_opGraph) {
        setIdle(tr("Nothing to compile yet: open a project or a report."));
        return;
    }
    if (m_compiling) {
        m_compilePending = true; // one more run with the newest settings when this one ends
        return;
    }
    startCompile();
}

void ProfilePanel::startCompile()
{
    QString error;
    const sim::CompileOptions options = m_settings->options(&error);
    if (!error.isEmpty()) {
        setIdle(error);
        return;
    }
    m_compiling = true;
    m_compilePending = false;
    const quint64 id = m_compileTicket.next();
    setBusy(tr("Simulating %1...").arg(QString::fromStdString(options.target)));
    emit compileStarted();
    std::shared_ptr<const graph::OpGraph> g = m_opGraph;
    std::shared_ptr<const sim::ModelFamilyNotes> family = m_family;
    if (m_simGraph != g) { // holding the graph keeps its address from being reused
        m_simGraph = g;
        m_simCache = std::make_shared<sim::IpuSimCache>();
    }
    runAsync(
        this,
        [g, options, family, cache = m_simCache] {
            return workflow::compileModel(*g, options, family.get(), cache.get());
        },
        [this, id](Result<sim::CompileResult> r) {
            m_compiling = false;
            const bool current = m_compileTicket.isCurrent(id);
            if (m_compilePending) {
                startCompile();
                return;
            }
            if (!current) {
                setIdle(m_status->message());
                return;
            }
            // The settings changed while this run was on (the guide's target suggested after
            // the first compile started): its result is stale, and showing it would put its
            // settings back into the form. The debounce's run follows.
            if (m_debounce->isActive())
                return;
            if (!r) {
                const QString message = QString::fromStdString(r.error.toString());
                setIdle(message);
                emit compileFailed(message);
                return;
            }
            auto result = std::make_shared<const sim::CompileResult>(std::move(*r.value));
            const double ms = result->compileMilliseconds;
            const bool fits = result->fits;
            setResult(result);
            setIdle(tr("Simulated in %1: %2.")
                        .arg(secondsText(ms / 1000))
                        .arg(fits ? tr("fits") : tr("does not fit")));
        });
}

void ProfilePanel::findConfiguration()
{
    QString error;
    const sim::CompileOptions base = m_settings->options(&error);
    if (!m_opGraph || !error.isEmpty()) {
        setIdle(m_opGraph ? error : tr("Nothing to search yet: open a project first."));
        return;
    }
    const quint64 id = m_searchTicket.next();
    ++m_loading;
    setBusy(tr("Searching for a configuration that fits..."));
    std::shared_ptr<const graph::OpGraph> g = m_opGraph;
    runAsync(
        this,
        [g, base] {
            auto target = targets::loadTarget(base.target);
            if (!target)
                return Result<sim::AutoResult>::fail(target.error);
            sim::AutoRequest req;
            req.base = base;
            return sim::findFittingConfiguration(*g, *target.value, req);
        },
        [this, id](Result<sim::AutoResult> r) {
            --m_loading;
            if (!m_searchTicket.isCurrent(id))
                return;
            if (!r) {
                setIdle(QString::fromStdString(r.error.toString()));
                return;
            }
            if (!r.value->found) {
                setIdle(tr("No configuration fits (%1 simulated).").arg(r.value->simulated));
                return;
            }
            sim::CompileOptions best = r.value->best.options;
            best.advice = true;
            m_settings->setOptions(best);
            recompile();
            setIdle(tr("Found in %1 (%2 configurations simulated): %3.")
                        .arg(secondsText(r.value->milliseconds / 1000))
                        .arg(r.value->simulated)
                        .arg(QString::fromStdString(sim::describeOptions(best))));
        });
}

} // namespace portolan::views
