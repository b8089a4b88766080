#include "core/report/trace.h"

#include <nlohmann/json.hpp>

namespace portolan::report {

std::string chromeTrace(const sim::CompileResult& r)
{
    using nlohmann::json;
    json events = json::array();
    events.push_back({{"name", "process_name"},
                      {"ph", "M"},
                      {"pid", 0},
                      {"args", {{"name", r.targetName + " pipeline (" + r.graph.name + ")"}}}});
    if (r.ipu) {
        for (const auto& st : r.ipu->stages) {
            events.push_back({{"name", "thread_name"},
                              {"ph", "M"},
                              {"pid", 0},
                              {"tid", st.index},
                              {"args",
                               {{"name", "stage " + std::to_string(st.index) + " (IPU " +
                                             std::to_string(st.ipu) + ")"}}}});
            events.push_back({{"name", "thread_sort_index"},
                              {"ph", "M"},
                              {"pid", 0},
                              {"tid", st.index},
                              {"args", {{"sort_index", st.index}}}});
        }
        for (const auto& e : r.ipu->schedule) {
            // Microseconds, as the format wants.
            events.push_back(
                {{"name", std::string(e.backward ? "B" : "F") + std::to_string(e.microBatch)},
                 {"cat", e.backward ? "backward" : "forward"},
                 {"ph", "X"},
                 {"pid", 0},
                 {"tid", e.stage},
                 {"ts", e.start * 1e6},
                 {"dur", (e.end - e.start) * 1e6},
                 {"args", {{"micro_batch", e.microBatch}, {"stage", e.stage}}}});
        }
    }
    return json{{"traceEvents", events}, {"displayTimeUnit", "ms"}}.dump() + "\n";
}

} // namespace portolan::report
