// Rule kinds that look across files: configs against the code that reads them, Determined's
// entrypoint, names used but defined nowhere, and the anchors that place "missing" findings.
#include "core/analysis/analysis.h"
#include "core/analysis/config_reads.h"
#include "core/analysis/facts.h"
#include "core/analysis/port_scope.h"
#include "core/common/text.h"
#include "core/guides/fixes/params_from_argparse.h"
#include "core/guides/rules.h"

#include <map>
#include <set>

namespace portolan::guides {

using analysis::ConfigFile;
using analysis::ConfigRead;
using analysis::ConfigTarget;
using analysis::ProjectAnalysis;
using analysis::PythonFile;

bool findAnchor(const ProjectAnalysis& a, const std::vector<std::string>& anchors,
                SourceLocation& out)
{
    for (const auto& anchor : anchors) {
        const auto colon = anchor.find(':');
        if (colon == std::string::npos)
            continue;
        const std::string kind = anchor.substr(0, colon);
        const std::vector<std::string> glob{anchor.substr(colon + 1)};
        // A class anchor is the model the program builds (a layer is built inside it), when the
        // analysis can tell; else the first class of the kind.
        if (kind == "class-base" && a.resolver) {
            for (const auto& [file, call] : modelInstantiations(a, glob)) {
                const python::Symbol cls =
                    a.resolver->callee(a.indexOf(file), int(call - file->index.calls.data()));
                const PythonFile& df = a.python[std::size_t(cls.file)];
                out = {df.path, df.index.classes[std::size_t(cls.index)].span.line,
                       df.index.classes[std::size_t(cls.index)].span.column};
                return true;
            }
        }
        // The training path first: a missing piece is reported where the port will need it,
        // not in an inference script next to it (analysis/port_scope.h).
        std::vector<const PythonFile*> files;
        for (const auto& f : a.python)
            if (analysis::outsidePortReason(a, f.path).empty())
                files.push_back(&f);
        for (const auto& f : a.python)
            if (!analysis::outsidePortReason(a, f.path).empty())
                files.push_back(&f);
        for (const PythonFile* fp : files) {
            const PythonFile& f = *fp;
            const auto& idx = f.index;
            auto at = [&](const python::Span& s) {
                out = {f.path, s.line, s.column};
                return true;
            };
            if (kind == "call") {
                for (const auto& c : idx.calls)
                    if (!c.callee.empty() && (anyGlob(glob, c.callee) || anyGlob(glob, c.resolved)))
                        return at(c.nameSpan);
            } else if (kind == "class-base") {
                for (const auto& cls : idx.classes)
                    for (const auto& b : cls.bases)
                        if (anyGlob(glob, b) || anyGlob(glob, idx.resolve(b)))
                            return at(cls.span);
            } else if (kind == "function-param") {
                for (const auto& fn : idx.functions)
                    for (const auto& p : fn.parameters)
                        if (anyGlob(glob, p.name))
                            return at(fn.span);
            } else if (kind == "function-returns") {
                for (const auto& r : idx.returns)
                    if (!r.callee.empty() && anyGlob(glob, r.callee))
                        if (const auto* fn = idx.function(r.function))
                            return at(fn->span);
            } else if (kind == "function") {
                for (const auto& fn : idx.functions)
                    if (anyGlob(glob, fn.name))
                        return at(fn.span);
            } else if (kind == "function-calls") {
                for (const auto& c : idx.calls)
                    if (!c.callee.empty() && anyGlob(glob, c.callee))
                        if (const auto* fn = idx.function(c.function))
                            return at(fn->span);
            } else if (kind == "file") {
                if (anyGlob(glob, f.path)) {
                    out = {f.path, 1, 1};
                    return true;
                }
            }
        }
    }
    return false;
}

SourceLocation projectLocation(const ProjectAnalysis& a)
{
    for (const auto& f : a.python)
        if (analysis::outsidePortReason(a, f.path).empty())
            return {f.path, 1, 1};
    return a.python.empty() ? SourceLocation{".", 0, 0}
                            : SourceLocation{a.python.front().path, 1, 1};
}

namespace {

void emitMissingAt(RuleContext& ctx, const std::string& detail, std::optional<Fix> fix = {})
{
    SourceLocation loc;
    if (!findAnchor(ctx.analysis, ctx.check.params.list("anchor"), loc))
        loc = projectLocation(ctx.analysis);
    ctx.emitMissing(loc, {{"detail", detail}, {"name", detail}}, std::move(fix));
}

ConfigTarget targetOf(const RuleParams& p)
{
    const std::string t = p.get("target", "params");
    if (t == "hparams")
        return ConfigTarget::DeterminedHparam;
    if (t == "data")
        return ConfigTarget::DeterminedData;
    return ConfigTarget::Params;
}

// An entrypoint of the form module:Class (a trial); others are commands (Core API launchers).
bool isTrialEntrypoint(const std::string& value)
{
    return value.find(':') != std::string::npos && value.find(' ') == std::string::npos;
}

std::vector<const ConfigFile*> configsFor(const ProjectAnalysis& a, ConfigTarget t)
{
    if (t == ConfigTarget::Params) {
        const ConfigFile* c = a.paramsConfig();
        return c && !c->parseError ? std::vector<const ConfigFile*>{c}
                                   : std::vector<const ConfigFile*>{};
    }
    // Hyperparameters and data settings belong to the configs that launch a trial; a config
    // whose entrypoint is a command runs other code.
    std::vector<const ConfigFile*> out;
    for (const ConfigFile* c : a.experimentConfigs()) {
        const analysis::ConfigKey* k = c->find("entrypoint");
        if (!k || isTrialEntrypoint(k->value))
            out.push_back(c);
    }
    return out;
}

// The params file of a sub-project (a folder with its own run script and configs/), by the same
// rule as the project's.
const ConfigFile* scopeConfig(const ProjectAnalysis& a, const std::string& scope)
{
    const ParamsFileChoice choice = paramsFileFor(a.root / scope);
    if (choice.empty() || std::filesystem::path(choice.path).is_absolute())
        return nullptr;
    const ConfigFile* c = a.findConfig(scope + "/" + choice.path);
    return c && !c->parseError ? c : nullptr;
}

bool usesAllHparams(const ProjectAnalysis& a)
{
    // context.get_hparams() hands over the whole dict; what is read from it is not tracked.
    for (const auto& f : a.python)
        for (const auto& c : f.index.calls)
            if (c.callee.ends_with("get_hparams"))
                return true;
    return false;
}

} // namespace

void ruleConfigFile(RuleContext& ctx)
{
    if (ctx.check.params.get("config") == "trainer") {
        // A Trainer-generation model folder of the Model Zoo carries no YAML of its own (the
        // configs live elsewhere in the Zoo), so only a project that does not hand anything to
        // the Model Zoo yet is asked for one.
        if (ctx.analysis.facts().hasEntries())
            return;
        for (const auto& c : ctx.analysis.configs)
            if (c.kind == analysis::ConfigKind::TrainerParams)
                return;
        emitMissingAt(ctx, "no Trainer configuration (a YAML file with trainer: init: and fit:)",
                      std::nullopt);
        return;
    }
    if (exemptedByProjectCall(ctx))
        return;
    const bool determined = ctx.check.params.get("config") == "determined";
    if (determined ? ctx.analysis.experimentConfigs().empty()
                   : ctx.analysis.paramsConfig() == nullptr)
        emitMissingAt(ctx,
                      determined ? "no Determined experiment config" : "no configs/params.yaml",
                      paramsFixOfCheck(ctx.check, ctx.analysis));
}

void ruleConfigSections(RuleContext& ctx)
{
    const auto configs = configsFor(ctx.analysis, targetOf(ctx.check.params));
    if (configs.empty()) {
        ctx.applicable = false;
        return;
    }
    const auto& facts = ctx.analysis.facts();
    const RuleParams& p = ctx.check.params;
    const auto& required = facts.hasEntries() && p.has("with-entries-required")
                               ? p.list("with-entries-required")
                               : p.list("required");
    for (const ConfigFile* cfg : configs)
        for (const auto& s : required)
            if (!cfg->hasSection(s) && !facts.isProvided(s))
                ctx.emit(cfg->path, 1, 1, {{"name", s}, {"key", s}, {"detail", cfg->path}});
}

namespace {

// A read finds its key when any path it may be of does (a mapping bound in branches).
bool readFound(const ConfigFile& cfg, const ConfigRead& r)
{
    if (cfg.find(r.path))
        return true;
    for (const auto& alt : r.alternatives)
        if (cfg.find(alt))
            return true;
    return false;
}

bool readProvided(const analysis::ProjectFacts& facts, const ConfigRead& r)
{
    if (facts.isProvided(r.path))
        return true;
    for (const auto& alt : r.alternatives)
        if (facts.isProvided(alt))
            return true;
    return false;
}

} // namespace

void ruleConfigKeysExist(RuleContext& ctx)
{
    const ConfigTarget target = targetOf(ctx.check.params);
    const auto configs = configsFor(ctx.analysis, target);
    if (configs.empty()) {
        ctx.applicable = false;
        return;
    }
    const auto& facts = ctx.analysis.facts();
    const auto& reads = analysis::configReads(ctx.analysis);
    // Keys the code gives a default for (setdefault, .get) may be absent from the file.
    std::set<std::string> defaulted;
    for (const auto& r : reads)
        if (r.isDefault && r.verified)
            defaulted.insert(r.path);
    // Reads of a mapping the analysis cannot tie to the params file: one note per function.
    std::map<std::pair<const PythonFile*, python::FunctionId>, const ConfigRead*> unverified;
    for (const auto& r : reads) {
        if (r.target != target || r.isDefault || defaulted.count(r.path))
            continue;
        if (!r.verified) {
            // Its path is only the keys written at the read; when some key of the file ends
            // that way, it is most likely that one.
            bool somewhere = false;
            for (const ConfigFile* cfg : configs)
                for (const auto& k : cfg->keys)
                    somewhere = somewhere || k.path == r.path || k.path.ends_with("." + r.path);
            if (!somewhere && facts.isReachable(ctx.analysis, ctx.fileIndex(*r.file), r.function))
                unverified.emplace(std::make_pair(r.file, r.function), &r);
            continue;
        }
        if (target == ConfigTarget::Params && readProvided(facts, r))
            continue;
        // Code outside the program (a data-preparation script given its own --params) reads
        // whatever file it is given; only the program reads the project's params file.
        if (target == ConfigTarget::Params && facts.hasEntries() &&
            !facts.isInProgram(ctx.analysis, ctx.fileIndex(*r.file), r.function))
            continue;
        std::vector<const ConfigFile*> forRead = configs;
        if (target == ConfigTarget::Params && !r.scope.empty())
            if (const ConfigFile* own = scopeConfig(ctx.analysis, r.scope))
                forRead = {own};
        // A read that may not happen every time (under a condition, in a loop or a try) of a
        // key the file lacks: say so, do not claim.
        if (r.conditional && target == ConfigTarget::Params) {
            bool missing = false;
            for (const ConfigFile* cfg : forRead)
                missing = missing || !readFound(*cfg, r);
            if (missing && facts.isReachable(ctx.analysis, ctx.fileIndex(*r.file), r.function))
                unverified.emplace(std::make_pair(r.file, r.function), &r);
            continue;
        }
        for (const ConfigFile* cfg : forRead) {
            if (readFound(*cfg, r))
                continue;
            std::string shown = r.path;
            if (target == ConfigTarget::DeterminedHparam)
                shown = r.path.substr(std::string("hyperparameters.").size());
            ctx.emit(*r.file, r.span, {{"key", shown}, {"name", shown}, {"detail", cfg->path}});
        }
    }
    // Only where the vendor runs the code: elsewhere (scripts, tools) reads of other mappings are
    // none of the params file's business.
    if (target == ConfigTarget::Params && facts.hasEntries())
        for (const auto& [where, r] : unverified) {
            const auto* fn = r->file->index.function(r->function);
            const std::string why =
                r->verified ? "the read is conditional (it may guard against a missing key)"
                            : r->origin;
            ctx.note(*r->file, r->span,
                     "could not verify that '" + r->path + "' is in " + configs.front()->path +
                         ": in " + (fn ? fn->qualifiedName + "()" : std::string("this module")) +
                         ", " + why);
        }
}

// The flags a YAML configuration sets when the project hands a mapping to argparse's defaults
// (`parser.set_defaults(**config[args.config])`, as Graphcore's applications load their named
// configurations): every add_argument dest and every `args.x` read. Empty when no project code
// does that.
std::set<std::string> argparseDefaultsNames(const ProjectAnalysis& a)
{
    bool handsOver = false;
    for (const auto& f : a.python)
        for (const auto& c : f.index.calls)
            if (c.callee.ends_with("set_defaults"))
                for (const auto& arg : c.arguments)
                    handsOver = handsOver || arg.text.starts_with("**");
    std::set<std::string> names;
    if (!handsOver)
        return names;
    for (const auto& flag : a.facts().flags)
        names.insert(flag.dest);
    for (const auto& use : a.facts().cliUses)
        names.insert(use.dest);
    return names;
}

// One note for a file of named configurations none of whose keys the code is seen to read, the
// names included: it runs one chosen at run time (`yaml.load(f)[args.cfg]` merged into its own
// config object), which the analysis does not follow, so each key's "not read" would be noise.
// False when `cfg` is not such a file (its keys are listed one by one).
bool collapsedNamedConfigurations(RuleContext& ctx, const ConfigFile& cfg, std::size_t unread,
                                  std::size_t read)
{
    const std::vector<std::string> names = analysis::namedConfigurations(cfg);
    if (names.empty() || read > 0 || unread == 0)
        return false;
    const analysis::ConfigKey* first = cfg.find(names.front());
    std::string listed;
    for (std::size_t i = 0; i < names.size() && i < 3; ++i)
        listed += (i ? ", " : "") + names[i];
    if (names.size() > 3)
        listed += ", ...";
    ctx.emit(cfg.path, first ? first->line : 1, first ? first->column : 1,
             {{"key", names.front()}, {"name", names.front()}, {"detail", cfg.path}});
    Finding& note = ctx.out.back();
    note.message = cfg.path + " holds " + std::to_string(names.size()) + " named configurations (" +
                   listed +
                   "); the code reads none of them by name, so it runs one chosen at run time "
                   "and reads its keys through that choice: its " +
                   std::to_string(unread) + " keys are not checked one by one";
    note.hint = "Nothing to change: the configuration that runs is read through the project's "
                "own config object.";
    return true;
}

void ruleConfigKeysUnused(RuleContext& ctx)
{
    const RuleParams& p = ctx.check.params;
    const ConfigTarget target = targetOf(p);
    const auto configs = configsFor(ctx.analysis, target);
    if (configs.empty() ||
        (target == ConfigTarget::DeterminedHparam && usesAllHparams(ctx.analysis))) {
        ctx.applicable = false;
        return;
    }
    const auto& reads = analysis::configReads(ctx.analysis);
    std::vector<std::string> paths, suffixes;
    for (const auto& r : reads)
        if (r.target == target) {
            (r.verified ? paths : suffixes).push_back(r.path);
            if (r.verified)
                paths.insert(paths.end(), r.alternatives.begin(), r.alternatives.end());
        }
    const std::string section = p.get("section");
    const std::set<std::string> flagNames = argparseDefaultsNames(ctx.analysis);
    for (const ConfigFile* cfg : configs) {
        std::vector<const analysis::ConfigKey*> unread;
        std::size_t read = 0;
        for (const auto& k : cfg->keys) {
            const std::string top = k.path.substr(0, k.path.find('.'));
            if (!section.empty()) {
                // hyperparameters: every direct child is one name, whatever its (search) shape.
                if (top != section || k.depth != 2)
                    continue;
            } else if (k.isMapping || k.depth < 2) {
                continue;
            }
            if (anyGlob(p.list("ignore-sections"), top) || anyGlob(p.list("ignore-keys"), k.path))
                continue;
            bool used = false;
            for (const auto& r : paths)
                used = used || r == k.path || k.path.starts_with(r + ".");
            // A read whose mapping is not known may still be this key (a section handed over).
            for (const auto& s : suffixes)
                used = used || k.path == s || k.path.ends_with("." + s) ||
                       k.path.find("." + s + ".") != std::string::npos;
            // A named configuration's key becomes a flag's default (`name.key` -> args.key).
            if (!used && k.depth == 2 && flagNames.count(k.path.substr(top.size() + 1)))
                used = true;
            if (used)
                ++read;
            else
                unread.push_back(&k);
        }
        // A file of named configurations the code is seen to read nothing of: one note (issue
        // 26: 232 "not read" notes on a Graphcore application's configs.yaml).
        if (collapsedNamedConfigurations(ctx, *cfg, unread.size(), read))
            continue;
        for (const analysis::ConfigKey* k : unread)
            ctx.emit(cfg->path, k->line, k->column,
                     {{"key", k->path}, {"name", k->path}, {"detail", cfg->path}});
    }
}

void ruleDeterminedEntrypoint(RuleContext& ctx)
{
    const auto configs = ctx.analysis.experimentConfigs();
    if (configs.empty()) {
        ctx.applicable = false;
        return;
    }
    for (const ConfigFile* cfg : configs) {
        const analysis::ConfigKey* k = cfg->find("entrypoint");
        if (!k) {
            ctx.emit(cfg->path, 1, 1,
                     {{"name", "(none)"}, {"detail", "the config has no entrypoint"}});
            continue;
        }
        const auto colon = k->value.find(':');
        // `python3 -m determined.launch.torch_distributed python3 train.py`: a command that runs
        // a script (Core API), not a trial class.
        if (k->value.find(' ') != std::string::npos)
            continue;
        if (colon == std::string::npos) {
            ctx.emit(cfg->path, k->line, k->column,
                     {{"name", k->value},
                      {"detail", "'" + k->value + "' is not of the form module:Class"}});
            continue;
        }
        std::string module = k->value.substr(0, colon);
        const std::string cls = k->value.substr(colon + 1);
        for (auto& ch : module)
            if (ch == '.')
                ch = '/';
        const auto slash = cfg->path.rfind('/');
        const std::string dir = slash == std::string::npos ? "" : cfg->path.substr(0, slash + 1);
        const PythonFile* file = ctx.analysis.findPython(dir + module + ".py");
        if (!file)
            file = ctx.analysis.findPython(dir + module + "/__init__.py");
        if (!file) {
            ctx.emit(cfg->path, k->line, k->column,
                     {{"name", k->value},
                      {"detail", concat("there is no module ", dir, module, ".py")}});
        } else if (!file->index.findClass(cls)) {
            ctx.emit(cfg->path, k->line, k->column,
                     {{"name", k->value}, {"detail", file->path + " defines no class " + cls}});
        }
    }
}

namespace {

bool isPython2Builtin(std::string_view name)
{
    static const std::set<std::string_view> names{
        "unicode", "unichr", "basestring", "long",         "xrange", "raw_input",
        "file",    "reduce", "cmp",        "execfile",     "reload", "buffer",
        "intern",  "apply",  "coerce",     "StandardError"};
    return names.count(name) > 0;
}

} // namespace

void ruleUndefinedName(RuleContext& ctx)
{
    // `attributes-of: [Base]`: the names are the attributes of such classes (`self.x`).
    if (ctx.check.params.has("attributes-of"))
        return ruleAttributeUnset(ctx);
    // Where each name is a local, to say "it is a local of main() (train.py:102)".
    auto localElsewhere = [&](const std::string& name, std::string& where) {
        for (const auto& f : ctx.analysis.python)
            for (std::size_t s = 1; s < f.index.scopes.size(); ++s)
                for (const auto& d : f.index.scopes[s].defined)
                    if (d.name == name) {
                        const auto* fn = f.index.function(f.index.scopes[s].function);
                        where = "; it is a local of " +
                                (fn ? fn->qualifiedName : std::string("?")) + "() (" + f.path +
                                ":" + std::to_string(d.span.line) + ")";
                        return;
                    }
    };
    for (const auto& f : ctx.analysis.python) {
        const auto& idx = f.index;
        bool star = false;
        for (const auto& s : idx.scopes)
            star = star || s.hasStarImport;
        if (star || idx.scopes.empty())
            continue;
        std::set<std::string> module;
        for (const auto& d : idx.scopes[0].defined)
            module.insert(d.name);
        std::vector<std::set<std::string>> local(idx.functions.size());
        for (std::size_t s = 1; s < idx.scopes.size(); ++s)
            for (const auto& d : idx.scopes[s].defined)
                local[static_cast<std::size_t>(idx.scopes[s].function)].insert(d.name);
        for (std::size_t s = 1; s < idx.scopes.size(); ++s) {
            const python::FunctionId id = idx.scopes[s].function;
            for (const auto& use : idx.scopes[s].used) {
                if (module.count(use.name) || python::isBuiltinName(use.name))
                    continue;
                bool found = false;
                for (python::FunctionId p = id; p >= 0 && !found;
                     p = idx.functions[static_cast<std::size_t>(p)].parent)
                    found = local[static_cast<std::size_t>(p)].count(use.name) > 0;
                if (found)
                    continue;
                // Python 2's builtins in code that keeps Python 2 compatibility
                // (`unichr if sys.version_info[0] == 2 else chr`): defined there, so the line is
                // right on the interpreter that runs it.
                if (isPython2Builtin(use.name)) {
                    ctx.note(f, use.span,
                             "'" + use.name + "' is a Python 2 builtin; could not verify that " +
                                 "this line runs only on Python 2");
                    continue;
                }
                std::string where;
                localElsewhere(use.name, where);
                ctx.emit(f, use.span,
                         {{"name", use.name},
                          {"function", idx.functions[static_cast<std::size_t>(id)].qualifiedName},
                          {"detail", where}});
            }
        }
    }
}

} // namespace portolan::guides
