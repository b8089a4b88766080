// Graphviz's C library lays DOT out in process. It keeps global state, so calls are serialised.
#include "core/analysis/flow.h"

#include <graphviz/cgraph.h>
#include <graphviz/gvc.h>
#include <mutex>

namespace portolan::analysis {

Result<std::string> renderSvg(const std::string& dot)
{
    static std::mutex mutex;
    std::lock_guard lock(mutex);
    // One context for the process, never freed: Graphviz 2.42's pango text layout plugin keeps
    // the last font name as a pointer into the context that laid the text out and compares the
    // next one with it, so a context freed after each render left it dangling for the next.
    static GVC_t* const gvc = gvContext();
    auto fail = [](const std::string& message) {
        Diagnostic d;
        d.code = "flow.graphviz";
        d.message = message;
        return Result<std::string>::fail(std::move(d));
    };
    if (!gvc)
        return fail("Graphviz could not start");
    Agraph_t* g = agmemread(dot.c_str());
    if (!g)
        return fail("Graphviz could not read the DOT text");
    std::string svg;
    bool ok = gvLayout(gvc, g, "dot") == 0;
    if (ok) {
        char* data = nullptr;
        unsigned int length = 0;
        ok = gvRenderData(gvc, g, "svg", &data, &length) == 0 && data;
        if (ok)
            svg.assign(data, length);
        if (data)
            gvFreeRenderData(data);
        gvFreeLayout(gvc, g);
    }
    agclose(g);
    if (!ok)
        return fail("Graphviz could not lay the graph out (is the dot layout plugin installed?)");
    return Result<std::string>::ok(std::move(svg));
}

} // namespace portolan::analysis
