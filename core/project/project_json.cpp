#include "core/project/project_json.h"

#include "core/common/json.h"

namespace portolan {

nlohmann::json toJson(const ProjectScan& scan)
{
    nlohmann::json files = nlohmann::json::array();
    nlohmann::json counts = nlohmann::json::object();
    for (const auto& f : scan.files) {
        files.push_back({{"path", f.path}, {"size", f.size}, {"kind", fileKindName(f.kind)}});
        counts[std::string(fileKindName(f.kind))] = counts.value(std::string(fileKindName(f.kind)), 0) + 1;
    }
    nlohmann::json skipped = nlohmann::json::array();
    for (const auto& s : scan.skipped)
        skipped.push_back({{"path", s.path}, {"reason", skipReasonName(s.reason)}, {"detail", s.detail}});
    nlohmann::json diagnostics = nlohmann::json::array();
    for (const auto& d : scan.diagnostics)
        diagnostics.push_back(toJson(d));
    return {{"root", scan.root.string()},
            {"file_counts", counts},
            {"files", files},
            {"skipped", skipped},
            {"diagnostics", diagnostics},
            {"cancelled", scan.cancelled}};
}

} // namespace portolan
