// The port dialog's verification: both dry runs under the stand-ins (cancellable), the losses
// compared step by step, and the two runs recorded in the port's run history.
#include "core/common/number_format.h"
#include "core/port/port_verified.h"
#include "views/common/trust_prompt.h"
#include "views/porting/port_dialog.h"
#include "views/porting/port_plan_model.h"
#include "views/porting/port_verify_panel.h"
#include "views/runs/run_history.h"

#include <QJsonObject>
#include <QLabel>
#include <QLineEdit>
#include <QMessageBox>
#include <QPushButton>
#include <QSettings>
#include <QTabWidget>
#include <QTimer>
#include <chrono>
#include <mutex>
#include <vector>

namespace portolan::views {

void PortDialog::setVerifySteps(int steps)
{
    m_verifyPanel->setSteps(steps);
}

// What the verifying thread hands to the GUI thread: (side, step, loss) triples, side 0 the
// original and 1 the port.
struct VerifyStepQueue
{
    struct Step
    {
        int side;
        int step;
        double loss;
    };
    std::mutex mutex;
    std::vector<Step> steps;
};

bool PortDialog::verify()
{
    if (m_verifying || !m_port || m_written.isEmpty())
        return false;
    // The dry runs run the original's code (and the port made from it): the Runs tab's trust.
    QString why;
    if (!ensureProjectTrusted(this, m_root, m_interactive, &why)) {
        m_verifyPanel->showMessage(why.isEmpty() ? tr("Not verified: the project is not trusted.")
                                                 : tr("Not verified: %1").arg(why.toHtmlEscaped()));
        m_tabs->setCurrentIndex(3);
        return false;
    }
    m_verifying = true;
    m_verify.reset();
    m_verifyPanel->showMessage(
        tr("Verifying: checking the port, then dry runs of the original and the port (%1)…")
            .arg(QString::fromStdString(format::counted(m_verifyPanel->steps(), "step"))));
    m_verifyPanel->beginLive(tr("original"), tr("port"));
    m_tabs->setCurrentIndex(3);
    updateButtons();
    beginVerifyRuns();
    emit verifyStarted();
    // The CLI's order (port::portWithVerification): the original's dry run first, so that what
    // it observed (the samples of an epoch: Determined's records_per_epoch) is in the port; the
    // port is planned and generated again from it and written over the files written before.
    port::PortRequest request;
    request.project = m_root.toStdString();
    request.out = m_written.toStdString();
    request.target = m_target.toStdString();
    request.options = m_options;
    request.verify = true;
    request.replaceFiles = true;
    port::VerifyOptions& options = request.verifyOptions;
    options.steps = m_verifyPanel->steps();
    options.python = m_python.toStdString();
    // The same arguments a dry run of the original in the Runs tab uses, kept per project.
    QSettings().setValue(QStringLiteral("dryrun/arguments/") + m_root, m_args->text().trimmed());
    request.args = argumentWords();
    m_verifyStop = std::make_shared<std::atomic<bool>>(false);
    options.stop = m_verifyStop.get();
    m_verifySteps = std::make_shared<VerifyStepQueue>();
    options.onStep = [queue = m_verifySteps](int side, int step, double loss) {
        const std::lock_guard lock(queue->mutex);
        queue->steps.push_back({side, step, loss});
    };
    m_verifyPanel->cancelButton()->setEnabled(true);
    m_verifyPoll->start();
    const quint64 id = m_verifyJob.next();
    runAsync(
        this,
        [analysis = m_analysis, request, stop = m_verifyStop] {
            (void)stop; // keeps the flag alive while the worker runs
            return port::portWithVerification(*analysis, request);
        },
        [this, id](port::PortRun run) {
            if (!m_verifyJob.isCurrent(id))
                return;
            m_verifyPoll->stop();
            drainVerifySteps();
            m_verifying = false;
            m_verifyStop.reset();
            if (!run.verify) {
                // Planned, generated or written no more: the files written before stay.
                m_verify.reset();
                finishVerifyRuns(nullptr);
                const std::string why = !run.plan   ? run.plan.error.message
                                        : !run.port ? run.port.error.message
                                                    : run.writeError->message;
                m_verifyPanel->showMessage(
                    tr("Not verified: %1").arg(QString::fromStdString(why).toHtmlEscaped()));
                updateButtons();
                emit verifyFinished(false);
                return;
            }
            port::VerifyResult v = std::move(*run.verify);
            if (v.cancelled) {
                m_verify.reset();
                finishVerifyRuns(nullptr);
                m_verifyPanel->showMessage(
                    tr("Verification cancelled: its dry runs were stopped."));
                updateButtons();
                emit verifyFinished(false);
                return;
            }
            // The port as written now, with what the original's dry run observed.
            m_plan = std::move(*run.plan.value);
            m_port = std::move(*run.port.value);
            m_planModel->setPlan(*m_plan, m_analysis.get(), &m_port->manual);
            const QString written = m_status->text(); // "Written to…", not "Ready to write."
            showPort();
            m_status->setText(written);
            m_verify = std::move(v);
            finishVerifyRuns(&*m_verify);
            showVerify();
            updateButtons();
            emit verifyFinished(m_verify->agrees);
        });
    return true;
}

// The verification's two dry runs as two labelled runs in the Runs history of the port
// (PORT/.portolan/runs.sqlite: the original folder is never written), begun now and given each
// step as it comes, so that the Runs tab draws both curves live; each run's reason is the
// verdict: the agreement, or the step where original and port part and by how much.
void PortDialog::beginVerifyRuns()
{
    m_runIds = {0, 0};
    m_verifyHistory = std::make_unique<RunHistory>();
    if (!m_verifyHistory->open(m_written)) {
        m_verifyHistory.reset();
        return;
    }
    const double now =
        std::chrono::duration<double>(std::chrono::system_clock::now().time_since_epoch()).count();
    auto begin = [&](const QString& side, const QString& label) {
        const QJsonObject config{{QStringLiteral("verification"), true},
                                 {QStringLiteral("side"), side},
                                 {QStringLiteral("label"), label},
                                 {QStringLiteral("original"), m_root},
                                 {QStringLiteral("port"), m_written}};
        const qint64 id = m_verifyHistory->beginRun(QStringLiteral("verify"), config);
        m_verifyHistory->appendEvent(
            id,
            RunEvent::fromJson(QJsonObject{{QStringLiteral("event"), QStringLiteral("started")},
                                           {QStringLiteral("time"), now},
                                           {QStringLiteral("model"), label},
                                           {QStringLiteral("max_steps"), m_verifyPanel->steps()}}));
        return id;
    };
    // Short names: the history's Model column is narrow at 1,024 pixels, and its Mode column
    // ("verify") and the verdict above the chart say that these are a verification.
    m_runIds.first = begin(QStringLiteral("original"), tr("original"));
    m_runIds.second = begin(QStringLiteral("port"), tr("port"));
    emit verifyProgress(m_written, m_runIds.first, m_runIds.second);
}

void PortDialog::drainVerifySteps()
{
    if (!m_verifySteps)
        return;
    std::vector<VerifyStepQueue::Step> steps;
    {
        const std::lock_guard lock(m_verifySteps->mutex);
        steps.swap(m_verifySteps->steps);
    }
    if (steps.empty())
        return;
    const double now =
        std::chrono::duration<double>(std::chrono::system_clock::now().time_since_epoch()).count();
    for (const auto& s : steps) {
        m_verifyPanel->appendLive(s.side, s.step, s.loss);
        const qint64 run = s.side == 0 ? m_runIds.first : m_runIds.second;
        if (m_verifyHistory && run > 0)
            m_verifyHistory->appendEvent(run, RunEvent::makeStep(s.step, s.loss, now));
    }
    if (m_verifyHistory)
        emit verifyProgress(m_written, m_runIds.first, m_runIds.second);
}

void PortDialog::finishVerifyRuns(const port::VerifyResult* v)
{
    m_verifySteps.reset();
    if (!m_verifyHistory)
        return;
    auto finish = [&](qint64 run, const std::string& error) {
        if (run <= 0)
            return;
        if (!v)
            m_verifyHistory->finishRun(run, QStringLiteral("stopped"),
                                       tr("verification cancelled"));
        else if (!error.empty())
            m_verifyHistory->finishRun(run, QStringLiteral("failed"),
                                       QString::fromStdString(error));
        else {
            // The fact beside the sentence: the Runs tab colours the verdict by it.
            m_verifyHistory->appendEvent(
                run, RunEvent::fromJson(QJsonObject{
                         {QStringLiteral("event"), QStringLiteral("info")},
                         {QStringLiteral("kind"), QStringLiteral("verification")},
                         {QStringLiteral("agrees"), v->agrees},
                         {QStringLiteral("first_divergence"), v->firstDivergence},
                         {QStringLiteral("message"), PortVerifyPanel::verdictText(*v)}}));
            m_verifyHistory->finishRun(run, QStringLiteral("completed"),
                                       PortVerifyPanel::verdictText(*v));
        }
    };
    finish(m_runIds.first, v ? v->originalError : std::string());
    finish(m_runIds.second, v ? v->dryRunError : std::string());
    m_verifyHistory.reset();
    emit verifyProgress(m_written, m_runIds.first, m_runIds.second);
}

bool PortDialog::cancelVerify()
{
    if (!m_verifying || !m_verifyStop)
        return false;
    m_verifyStop->store(true);
    m_verifyPanel->showMessage(tr("Cancelling the verification…"));
    m_verifyPanel->cancelButton()->setEnabled(false);
    return true;
}

void PortDialog::showVerify()
{
    if (m_verify)
        m_verifyPanel->showResult(*m_verify, m_port && m_port->full(&*m_verify));
}

LossChart* PortDialog::lossChart() const
{
    return m_verifyPanel->chart();
}

QString PortDialog::verifySummaryText() const
{
    return m_verifyPanel->summaryText();
}

} // namespace portolan::views
