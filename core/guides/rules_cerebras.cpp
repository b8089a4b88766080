// Rules of the newer Cerebras Model Zoo generations (cstorch R1.9-2.2, Trainer R2.3 on), where the
// model is a plain torch.nn.Module that returns its loss and a typed config class describes it.
#include "core/analysis/analysis.h"
#include "core/analysis/facts.h"
#include "core/analysis/model_config.h"
#include "core/common/text.h"
#include "core/guides/rules.h"
#include "core/params/validate.h"

#include <algorithm>
#include <cctype>
#include <set>

namespace portolan::guides {

using analysis::PythonFile;
using python::FunctionId;
using python::Span;
using python::SymbolKind;

namespace {

const PythonFile& fileAt(const analysis::ProjectAnalysis& a, int file)
{
    return a.python[static_cast<std::size_t>(file)];
}

// Identifiers in an expression's text: `loss, logits` -> {loss, logits}.
std::set<std::string> identifiersIn(std::string_view text)
{
    std::set<std::string> out;
    std::string cur;
    auto flush = [&] {
        if (!cur.empty() && !std::isdigit(static_cast<unsigned char>(cur.front())))
            out.insert(cur);
        cur.clear();
    };
    for (const char c : text) {
        if (std::isalnum(static_cast<unsigned char>(c)) || c == '_')
            cur += c;
        else
            flush();
    }
    flush();
    return out;
}

// The project classes whose forward the vendor runs as "the model": the entries of role `model`
// (the cstorch flow's main(params, Model, ...), cstorch.compile(model)), else the torch modules
// that no other project module builds and that take a config or params (the Trainer builds the
// top-level model from its config class).
std::vector<std::pair<int, int>> modelClasses(const analysis::ProjectAnalysis& a)
{
    std::vector<std::pair<int, int>> out;
    for (const auto& e : a.facts().entries)
        if (e.role == "model" && e.definition.kind == SymbolKind::Class &&
            std::find(out.begin(), out.end(), std::pair{e.definition.file, e.definition.index}) ==
                out.end())
            out.emplace_back(e.definition.file, e.definition.index);
    if (!out.empty())
        return out;
    for (int f = 0; f < static_cast<int>(a.python.size()); ++f) {
        const auto& idx = fileAt(a, f).index;
        for (int c = 0; c < static_cast<int>(idx.classes.size()); ++c) {
            const auto& cls = idx.classes[static_cast<std::size_t>(c)];
            if (cls.function != python::ModuleLevel || cls.nested)
                continue;
            const auto ancestry = classAncestry(a, fileAt(a, f), c);
            if (std::none_of(ancestry.begin(), ancestry.end(), [](const std::string& s) {
                    return s == "torch.nn.Module" || s == "torch.nn.modules.module.Module";
                }))
                continue;
            const auto* init = idx.findFunction(cls.name + ".__init__");
            if (!init || !idx.findFunction(cls.name + ".forward"))
                continue;
            bool takesConfig = false;
            for (const auto& prm : init->parameters)
                takesConfig = takesConfig || prm.name == "config" || prm.name == "params" ||
                              prm.annotation.ends_with("Config");
            if (!takesConfig)
                continue;
            python::Symbol self;
            self.kind = SymbolKind::Class;
            self.file = f;
            self.index = c;
            bool builtByProject = false;
            for (const auto& site : a.resolver->callSites(self))
                builtByProject = builtByProject || site.file >= 0;
            if (!builtByProject)
                out.emplace_back(f, c);
        }
    }
    return out;
}

} // namespace

// The model's forward returns its loss: the cstorch flow and the Trainer call the model and
// backpropagate what it returns. An error only where forward provably computes a loss and does
// not return it, or returns only values that are not a loss; otherwise a note.
void ruleModelReturnsLoss(RuleContext& ctx)
{
    const RuleParams& p = ctx.check.params;
    const auto lossGlobs = p.list("loss");
    const auto& a = ctx.analysis;
    const auto classes = modelClasses(a);
    if (classes.empty()) {
        ctx.applicable = false;
        return;
    }
    for (const auto& [file, cls] : classes) {
        const PythonFile& f = fileAt(a, file);
        const auto& c = f.index.classes[static_cast<std::size_t>(cls)];
        const python::Symbol fwd = a.resolver->method(file, cls, "forward");
        if (fwd.kind != SymbolKind::Function) {
            ctx.note(f, c.nameSpan,
                     "could not verify that " + c.name +
                         " returns its loss: its forward is not in the project");
            continue;
        }
        const PythonFile& ff = fileAt(a, fwd.file);
        const FunctionId id = fwd.index;
        const auto& fn = ff.index.functions[static_cast<std::size_t>(id)];
        // Locals that hold a loss: assigned from a loss function's call.
        std::set<std::string> lossNames;
        int lossLine = 0;
        for (const auto& as : ff.index.assignments) {
            if (as.function != id || as.call < 0)
                continue;
            const auto& call = ff.index.calls[static_cast<std::size_t>(as.call)];
            if (anyGlob(lossGlobs, call.callee) || anyGlob(lossGlobs, call.resolved)) {
                for (const auto& name : identifiersIn(as.target))
                    lossNames.insert(name);
                lossLine = lossLine ? lossLine : as.span.line;
            }
        }
        bool returnsLoss = false, unknown = false, anyReturn = false;
        std::string returned;
        for (const auto& r : ff.index.returns) {
            if (r.function != id)
                continue;
            anyReturn = true;
            returned = r.text;
            for (const auto& name : identifiersIn(r.text))
                returnsLoss = returnsLoss || lossNames.count(name) > 0 || anyGlob(lossGlobs, name);
            if (!r.callee.empty() && anyGlob(lossGlobs, r.callee))
                returnsLoss = true;
            // A call of something else (a wrapped model, a helper) may return the loss.
            unknown = unknown || r.kind == python::ValueKind::Call ||
                      r.kind == python::ValueKind::Attribute ||
                      r.kind == python::ValueKind::Subscript;
        }
        if (returnsLoss)
            continue;
        if (!lossNames.empty() || (anyReturn && !unknown)) {
            std::string detail =
                anyReturn ? "returns " + oneLine(returned) + ", not the loss" : "returns nothing";
            if (lossLine)
                detail +=
                    " (the loss computed at line " + std::to_string(lossLine) + " is not returned)";
            ctx.emit(ff, fn.nameSpan, {{"name", c.name}, {"detail", detail}});
        } else {
            ctx.note(ff, fn.nameSpan,
                     "could not verify that " + c.name + ".forward returns the loss: it returns " +
                         (returned.empty() ? std::string("nothing it computes itself")
                                           : oneLine(returned)));
        }
    }
}

namespace {

// Fields every Model Zoo config has through its base classes (NamedConfig's discriminator), read
// from src/cerebras/modelzoo/config/ (Release 2.10.0). Anything else must be declared by the
// project's own config classes.
bool isBaseConfigField(std::string_view key)
{
    return key == "name";
}

} // namespace

// Every key the Trainer YAML gives the model (trainer.init.model) is a field of the model's
// config class: the Trainer validates the section against that class and refuses unknown keys.
void ruleTrainerModelKeys(RuleContext& ctx)
{
    const auto& a = ctx.analysis;
    bool any = false;
    for (const auto& cfg : a.configs) {
        if (cfg.kind != analysis::ConfigKind::TrainerParams)
            continue;
        const analysis::ConfigKey* nameKey = cfg.find("trainer.init.model.name");
        if (!nameKey || nameKey->value.empty())
            continue;
        any = true;
        const analysis::ModelConfigClasses fields = analysis::modelConfigClasses(a, nameKey->value);
        if (fields.classes.empty()) {
            // The model is registered elsewhere (the Model Zoo's own registry): nothing to claim.
            continue;
        }
        const auto& [cf, cc] = fields.classes.back();
        const auto& cls = fileAt(a, cf).index.classes[static_cast<std::size_t>(cc)];
        for (const analysis::ConfigKey* k : cfg.children("trainer.init.model")) {
            const std::string key = k->path.substr(k->path.rfind('.') + 1);
            if (fields.field(key) || isBaseConfigField(key) || !fields.complete)
                continue;
            std::vector<std::string> names;
            for (const auto& field : fields.fields)
                names.push_back(field.name);
            const std::string near = params::closestMatch(key, names);
            ctx.emit(
                cfg.path, k->line, k->column,
                {{"key", key},
                 {"name", cls.name},
                 {"detail", cls.name + " (" + fileAt(a, cf).path + ":" +
                                std::to_string(cls.nameSpan.line) + ") has no field '" + key + "'" +
                                (near.empty() ? "" : "; did you mean '" + near + "'?")}});
        }
    }
    if (!any)
        ctx.applicable = false;
}

} // namespace portolan::guides
