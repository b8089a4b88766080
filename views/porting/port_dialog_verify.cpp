// The port dialog's verification: both dry runs under the stand-ins (cancellable), the losses
// compared step by step, and the two runs recorded in the port's run history.
#include "views/common/trust_prompt.h"
#include "views/porting/port_dialog.h"
#include "views/porting/port_verify_panel.h"
#include "views/runs/run_history.h"

#include <QJsonObject>
#include <QMessageBox>
#include <QPushButton>
#include <QTabWidget>
#include <chrono>

namespace portolan::views {

void PortDialog::setVerifySteps(int steps)
{
    m_verifyPanel->setSteps(steps);
}

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
        tr("Verifying: checking the port, then dry runs of the original and the port (%1 "
           "step(s))…")
            .arg(m_verifyPanel->steps()));
    m_tabs->setCurrentIndex(3);
    updateButtons();
    emit verifyStarted();
    port::VerifyOptions options;
    options.steps = m_verifyPanel->steps();
    options.python = m_python.toStdString();
    m_verifyStop = std::make_shared<std::atomic<bool>>(false);
    options.stop = m_verifyStop.get();
    m_verifyPanel->cancelButton()->setEnabled(true);
    const quint64 id = m_verifyJob.next();
    runAsync(
        this,
        [original = m_root.toStdString(), out = m_written.toStdString(), result = *m_port, options,
         stop = m_verifyStop] {
            (void)stop; // keeps the flag alive while the worker runs
            return port::verifyPort(original, out, result, options);
        },
        [this, id](port::VerifyResult v) {
            if (!m_verifyJob.isCurrent(id))
                return;
            m_verifying = false;
            m_verifyStop.reset();
            if (v.cancelled) {
                m_verify.reset();
                m_verifyPanel->showMessage(
                    tr("Verification cancelled: its dry runs were stopped."));
                updateButtons();
                emit verifyFinished(false);
                return;
            }
            m_verify = std::move(v);
            recordVerifyRuns(*m_verify);
            showVerify();
            updateButtons();
            emit verifyFinished(m_verify->agrees);
        });
    return true;
}

// The verification's two dry runs as two labelled runs in the Runs history of the port
// (PORT/.portolan/runs.sqlite: the original folder is never written), each with its per-step
// losses, so the Runs tab shows their curves; each run's reason is the agreement or the step
// where original and port part.
void PortDialog::recordVerifyRuns(const port::VerifyResult& v)
{
    m_runIds = {0, 0};
    RunHistory history;
    if (m_written.isEmpty() || !history.open(m_written))
        return;
    const QString verdict =
        v.agrees ? tr("verification: the port agrees with the original over %1 step(s)")
                       .arg(v.stepsCompared)
        : v.firstDivergence > 0
            ? tr("verification: original and port part at step %1").arg(v.firstDivergence)
            : tr("verification: not compared");
    const double now =
        std::chrono::duration<double>(std::chrono::system_clock::now().time_since_epoch()).count();
    auto record = [&](const QString& label, const std::vector<double>& losses,
                      const std::string& error) {
        QJsonObject config{{QStringLiteral("verification"), true},
                           {QStringLiteral("label"), label},
                           {QStringLiteral("original"), m_root},
                           {QStringLiteral("port"), m_written}};
        const qint64 id = history.beginRun(QStringLiteral("verify"), config);
        history.appendEvent(id, RunEvent::fromJson(QJsonObject{
                                    {QStringLiteral("event"), QStringLiteral("started")},
                                    {QStringLiteral("time"), now},
                                    {QStringLiteral("model"), label},
                                    {QStringLiteral("max_steps"), qint64(losses.size())}}));
        for (std::size_t i = 0; i < losses.size(); ++i)
            history.appendEvent(id, RunEvent::makeStep(qint64(i) + 1, losses[i], now));
        history.finishRun(id,
                          error.empty() ? QStringLiteral("completed") : QStringLiteral("failed"),
                          error.empty() ? verdict : QString::fromStdString(error));
        return id;
    };
    m_runIds.first = record(tr("original (verification)"), v.originalLosses, v.originalError);
    m_runIds.second = record(tr("port (verification)"), v.portLosses, v.dryRunError);
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
