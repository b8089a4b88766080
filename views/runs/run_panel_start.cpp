// Whether Start can start, and why not: the rule next to the Start button (RunPanel's part that
// reads the project's params file).
#include "core/runtime/model_names.h"
#include "core/runtime/params_access.h"
#include "core/runtime/run_config.h"
#include "views/common/wrap_anywhere_label.h"
#include "views/runs/run_panel.h"

#include <QDateTime>
#include <QFileInfo>
#include <QStringList>
#include <filesystem>
#include <optional>

namespace portolan::views {

QString RunPanel::startBlockedReason() const
{
    // The built-in runtime trains from the project's params file (the rule every tab uses), and
    // rebuilds only the models it knows (runtime::knownModelIn, the rule the Profile's graph
    // source follows too); the dry run and the project's own command need neither. Said here,
    // next to Start, in GUI words: the run would only fail in the log ("give --params", "the
    // params file has no model: section"). The link switches to the dry run, the way that does
    // run such a project.
    if (m_project.isEmpty() || runKind() != RunKind::Builtin)
        return {};
    const QString dryRun = tr("<a href=\"dryrun\">Dry-run the project's own code</a> instead.");
    const auto params = m_paramsFile.isEmpty()
                            ? runtime::findParamsFile(m_project.toStdString())
                            : std::optional<std::filesystem::path>(m_paramsFile.toStdString());
    if (!params)
        return tr("No params file: the built-in runtime trains from configs/params.yaml, "
                  "params.yaml or const.yaml. Choose one in the Porting tab, or: %1")
            .arg(dryRun);
    if (!builtinKnowsModel(QString::fromStdString(params->string()))) {
        QStringList known;
        for (const auto& name : runtime::knownModelNames())
            known << QString::fromStdString(name);
        return tr("The built-in runtime cannot rebuild this model: %1 names none of its models "
                  "(%2). %3")
            .arg(breakableName(QString::fromStdString(params->filename().string())).toHtmlEscaped(),
                 known.join(", "), dryRun);
    }
    return {};
}

void RunPanel::setParamsFile(const QString& file)
{
    m_paramsFile = file;
    updateButtons();
}

QString RunPanel::paramsFile() const
{
    if (!m_paramsFile.isEmpty() || m_project.isEmpty())
        return m_paramsFile;
    const auto params = runtime::findParamsFile(m_project.toStdString());
    return params ? QString::fromStdString(params->string()) : QString();
}

QStringList RunPanel::paramsArguments() const
{
    return m_paramsFile.isEmpty() ? QStringList() : QStringList{"--params", m_paramsFile};
}

bool RunPanel::builtinKnowsModel(const QString& paramsFile) const
{
    // updateButtons runs on every change of a combo box: the file is read again only when it
    // changed.
    const QFileInfo info(paramsFile);
    const QString key =
        paramsFile + QLatin1Char('|') + QString::number(info.lastModified().toMSecsSinceEpoch());
    if (key != m_knownModelKey) {
        m_knownModelKey = key;
        try {
            m_knownModel = runtime::knownModelIn(runtime::loadParamsFile(paramsFile.toStdString()))
                               .has_value();
        } catch (const std::exception&) {
            m_knownModel = false; // a file that does not load has no model the runtime knows
        }
    }
    return m_knownModel;
}

} // namespace portolan::views
