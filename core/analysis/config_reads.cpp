#include "core/analysis/config_reads.h"

#include "core/analysis/analysis.h"

#include <set>

namespace portolan::analysis {

namespace {

bool isParamsBase(std::string_view base)
{
    if (base.starts_with("self."))
        base.remove_prefix(5);
    static const std::set<std::string_view> names{"params",     "config",  "cfg", "hparams",
                                                  "run_params", "configs", "conf"};
    return names.count(base) > 0;
}

} // namespace

std::vector<ConfigRead> configReads(const ProjectAnalysis& a)
{
    std::vector<ConfigRead> out;
    for (const auto& file : a.python) {
        const auto& idx = file.index;
        // Names bound to Determined's data config in this file.
        std::set<std::string> dataConfig;
        for (const auto& as : idx.assignments)
            if (as.value.find("get_data_config()") != std::string::npos)
                dataConfig.insert(as.target);
        for (const auto& k : idx.keyReads) {
            ConfigRead r;
            r.file = &file;
            r.span = k.span;
            r.function = k.function;
            r.isDefault = k.isDefault;
            if (dataConfig.count(k.base)) {
                r.target = ConfigTarget::DeterminedData;
                r.path = "data." + k.path();
            } else if (isParamsBase(k.base)) {
                r.path = k.path();
            } else {
                continue;
            }
            out.push_back(std::move(r));
        }
        for (const auto& h : idx.hparams) {
            ConfigRead r;
            r.file = &file;
            r.target = ConfigTarget::DeterminedHparam;
            r.path = "hyperparameters." + h.name;
            r.span = h.span;
            r.function = h.function;
            out.push_back(std::move(r));
        }
    }
    return out;
}

} // namespace portolan::analysis
