#include "views/common/trust_prompt.h"

#include "core/dryrun/dry_run.h"

#include <QDir>
#include <QMessageBox>
#include <QObject>

namespace portolan::views {

bool ensureProjectTrusted(QWidget* parent, const QString& project, bool interactive, QString* why)
{
    if (project.isEmpty())
        return false;
    if (dryrun::TrustStore().isTrusted(project.toStdString()))
        return true;
    if (!interactive) {
        if (why)
            *why = QObject::tr("%1 is not trusted, and a dry run runs its own code").arg(project);
        return false;
    }
    const auto answer = QMessageBox::question(
        parent, QObject::tr("Run this project's code?"),
        QObject::tr("A dry run starts the project's own Python code (its entry point, data "
                    "loaders and model) in a separate process on this computer, with the network "
                    "off and a time and memory limit. Only continue if you trust the code in\n%1"
                    "\n\nPortolan remembers the answer for this project.")
            .arg(QDir::toNativeSeparators(project)),
        QMessageBox::Yes | QMessageBox::Cancel, QMessageBox::Cancel);
    if (answer != QMessageBox::Yes)
        return false;
    if (auto error = dryrun::TrustStore().setTrusted(project.toStdString(), true)) {
        if (why)
            *why = QString::fromStdString(error->toString());
        return false;
    }
    return true;
}

} // namespace portolan::views
