#include "views/graph/graphviz_render.h"

#include <QMutex>
#include <gvc.h>

namespace portolan::views {

namespace {

QMutex& graphvizMutex()
{
    static QMutex m;
    return m;
}

// One Graphviz context for the process, never freed (used under graphvizMutex). Graphviz 2.42's
// pango text layout plugin keeps the last font name it saw as a pointer into the context that
// laid the text out, and compares the next name with it; freeing the context after each render
// left that pointer dangling (ThreadSanitizer: heap-use-after-free, strcmp in
// libgvplugin_pango, on the second render in a process).
GVC_t* graphvizContext()
{
    static GVC_t* const gvc = gvContext();
    return gvc;
}

// Graphviz reports errors through a global callback; collect them for the caller.
thread_local QString* g_errors = nullptr;
int collectError(char* message)
{
    if (g_errors)
        g_errors->append(QString::fromUtf8(message).trimmed() + QLatin1Char('\n'));
    return 0;
}

} // namespace

SvgRender renderDotToSvg(const QByteArray& dot, const char* layoutEngine)
{
    QMutexLocker lock(&graphvizMutex());
    SvgRender out;
    QString errors;
    g_errors = &errors;
    agseterrf(collectError);
    agseterr(AGERR);

    GVC_t* gvc = graphvizContext();
    QByteArray text = dot; // agmemread wants a NUL-terminated, non-const buffer
    Agraph_t* g = agmemread(text.data());
    if (!g) {
        out.error = errors.isEmpty() ? QStringLiteral("Graphviz could not read the graph")
                                     : errors.trimmed();
    } else if (gvLayout(gvc, g, layoutEngine) != 0) {
        out.error = errors.isEmpty() ? QStringLiteral("Graphviz layout failed") : errors.trimmed();
        agclose(g);
    } else {
        char* data = nullptr;
        unsigned int length = 0;
        if (gvRenderData(gvc, g, "svg", &data, &length) == 0 && data)
            out.svg = QByteArray(data, qsizetype(length));
        else
            out.error = QStringLiteral("Graphviz could not render SVG");
        if (data)
            gvFreeRenderData(data);
        gvFreeLayout(gvc, g);
        agclose(g);
    }
    g_errors = nullptr;
    return out;
}

} // namespace portolan::views
