#include "core/analysis/model_config.h"

#include "core/analysis/analysis.h"
#include "core/python/resolve.h"

#include <set>

namespace portolan::analysis {

const ConfigField* ModelConfigClasses::field(const std::string& name) const
{
    for (const auto& f : fields)
        if (f.name == name)
            return &f;
    return nullptr;
}

ModelConfigClasses modelConfigClasses(const ProjectAnalysis& a, const std::string& modelName)
{
    ModelConfigClasses out;
    const std::string quoted1 = "\"" + modelName + "\"", quoted2 = "'" + modelName + "'";
    std::set<std::pair<int, int>> seen;
    for (int f = 0; f < static_cast<int>(a.python.size()); ++f) {
        const auto& idx = a.python[static_cast<std::size_t>(f)].index;
        for (int c = 0; c < static_cast<int>(idx.classes.size()); ++c) {
            const auto& cls = idx.classes[static_cast<std::size_t>(c)];
            bool named = false;
            for (const auto& field : cls.fields)
                named = named || (field.name == "name" && field.annotation.starts_with("Literal") &&
                                  (field.annotation.find(quoted1) != std::string::npos ||
                                   field.annotation.find(quoted2) != std::string::npos));
            if (!named)
                continue;
            out.classes.emplace_back(f, c);
            // The class and its project ancestors, through the resolver.
            std::vector<std::pair<int, int>> todo{{f, c}};
            while (!todo.empty()) {
                const auto [tf, tc] = todo.front();
                todo.erase(todo.begin());
                if (!seen.insert({tf, tc}).second)
                    continue;
                const auto& tcls = a.python[static_cast<std::size_t>(tf)]
                                       .index.classes[static_cast<std::size_t>(tc)];
                for (const auto& field : tcls.fields)
                    if (!out.field(field.name))
                        out.fields.push_back({field.name, tcls.name, tf, field.span});
                for (const auto& base : tcls.bases) {
                    const python::Symbol s = a.resolver->resolve(tf, tcls.function, base);
                    if (s.kind == python::SymbolKind::Class && s.rest.empty())
                        todo.emplace_back(s.file, s.index);
                    else if (!(s.kind == python::SymbolKind::External &&
                               (s.qualified.starts_with("cerebras.modelzoo.config") ||
                                s.qualified.starts_with("pydantic"))))
                        out.complete = false;
                }
            }
        }
    }
    return out;
}

std::pair<int, int> modelClassFor(const ProjectAnalysis& a, const ModelConfigClasses& configs)
{
    std::set<std::string> names;
    for (const auto& [f, c] : configs.classes)
        names.insert(
            a.python[static_cast<std::size_t>(f)].index.classes[static_cast<std::size_t>(c)].name);
    // Of the classes built from the config, the one no other project code builds: an inner
    // network that takes the same config is a part of the model, not the model.
    std::pair<int, int> any{-1, -1};
    for (int f = 0; f < static_cast<int>(a.python.size()); ++f) {
        const auto& idx = a.python[static_cast<std::size_t>(f)].index;
        for (int c = 0; c < static_cast<int>(idx.classes.size()); ++c) {
            const auto* init =
                idx.findFunction(idx.classes[static_cast<std::size_t>(c)].name + ".__init__");
            if (!init)
                continue;
            bool takesConfig = false;
            for (const auto& p : init->parameters)
                takesConfig = takesConfig ||
                              names.count(p.annotation.substr(p.annotation.rfind('.') + 1)) > 0;
            if (!takesConfig)
                continue;
            python::Symbol self;
            self.kind = python::SymbolKind::Class;
            self.file = f;
            self.index = c;
            if (a.resolver->callSites(self).empty())
                return {f, c};
            if (any.first < 0)
                any = {f, c};
        }
    }
    return any;
}

} // namespace portolan::analysis
