#include "views/common/library_versions.h"

#include "core/about/about.h"

#include <gvc.h>
#include <qcustomplot.h>

namespace portolan::views {

namespace {
QString graphvizVersion()
{
    // gvContext() without plugins is cheap and tells the version of the library actually loaded.
    GVC_t* gvc = gvContext();
    QString v = QString::fromUtf8(gvcVersion(gvc));
    gvFreeContext(gvc);
    return v;
}
} // namespace

QList<QPair<QString, QString>> libraryVersions()
{
    QList<QPair<QString, QString>> out;
    out.append({QStringLiteral("Qt"), QString::fromLatin1(qVersion())});
    for (const auto& [name, version] : coreLibraryVersions())
        out.append({QString::fromStdString(name), QString::fromStdString(version)});
    out.append({QStringLiteral("QCustomPlot"), QStringLiteral(QCUSTOMPLOT_VERSION_STR)});
    out.append({QStringLiteral("Graphviz"), graphvizVersion()});
    return out;
}

} // namespace portolan::views
