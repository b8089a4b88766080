// The port dialog's wiring into the window: the port it writes opens as the current project, and
// its verification's two runs show live in the Runs tab. Also --view port:TARGET[:TAB], which
// walks the same path a user does (open the original, choose the workflow, "Generate the Port…",
// write, Verify) for screenshots.
#include "app/gui/main_window.h"
#include "core/port/generate.h"
#include "views/porting/analysis_runner.h"
#include "views/porting/port_dialog.h"
#include "views/porting/porting_wizard.h"
#include "views/runs/run_panel.h"

#include <QStatusBar>
#include <QTabWidget>
#include <algorithm>
#include <cstdio>

namespace portolan::app {

void MainWindow::connectPortFlow()
{
    connect(m_wizard, &views::PortingWizard::portWritten, this, &MainWindow::openProject);
    // The verification's curves are drawn in the Runs tab as they come, whether the port is the
    // open project yet (it opens while the original is dry-run) or not.
    connect(m_wizard, &views::PortingWizard::portVerifyStarted, this,
            [this] { selectView(QStringLiteral("runs")); });
    connect(m_wizard, &views::PortingWizard::portVerifyProgress, m_runs,
            &views::RunPanel::showVerification);
}

void MainWindow::continuePortView()
{
    if (m_portView.isEmpty() || m_portDialog)
        return;
    const QString target = m_portView.section(QLatin1Char(':'), 0, 0);
    const QString tab = m_portView.section(QLatin1Char(':'), 1);
    std::string api;
    const QString guide = QString::fromStdString(port::targetGuide(target.toStdString(), {}, &api));
    auto give = [this](const QString& why) {
        std::fprintf(stderr, "portolan: --view port: %s\n", qPrintable(why));
        statusBar()->showMessage(why);
        m_portView.clear();
    };
    if (guide.isEmpty())
        return give(tr("unknown port target '%1' (determined, cerebras or poptorch)").arg(target));
    const auto snapshot = m_analysis->snapshot();
    if (!snapshot)
        return give(tr("the project was not analysed"));
    // The workflow chosen in the Porting tab is the port's target, as a user would choose it.
    if (QString::fromStdString(snapshot->guideId) != guide) {
        m_analysis->setGuide(guide);
        return;
    }
    views::PortDialog* dialog = m_wizard->openPortDialog();
    if (!dialog)
        return give(tr("no \"Generate the Port…\" here: the project is not an original"));
    m_portDialog = dialog;
    dialog->setInteractive(false);
    dialog->resize(size());
    static const QStringList tabs{QStringLiteral("plan"), QStringLiteral("files"),
                                  QStringLiteral("manual"), QStringLiteral("verify")};
    const bool runs = tab == QLatin1String("runs");
    dialog->tabs()->setCurrentIndex(runs ? 3 : std::max<int>(0, int(tabs.indexOf(tab))));
    if (runs || tab == QLatin1String("verify")) {
        // Written to the default sibling folder and verified (a trusted original only: nothing
        // asks in a screenshot).
        connect(dialog, &views::PortDialog::generated, this, [dialog] {
            if (dialog->writtenFolder().isEmpty() && dialog->writePort())
                dialog->verify();
        });
    }
    if (runs)
        connect(dialog, &views::PortDialog::verifyFinished, this,
                [this] { selectView(QStringLiteral("runs")); });
}

bool MainWindow::isPortViewBusy() const
{
    if (m_portView.isEmpty())
        return false;
    if (!m_portDialog)
        return true; // waiting for the analysis with the target's guide
    return m_portDialog->isGenerating() || m_portDialog->isVerifying();
}

QWidget* MainWindow::screenshotTarget()
{
    if (m_portDialog && !m_portView.endsWith(QLatin1String(":runs")))
        return m_portDialog;
    return this;
}

} // namespace portolan::app
