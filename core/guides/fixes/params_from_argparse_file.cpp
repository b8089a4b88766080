// The params file written from a plan, and the fix that rewrites the project's flag uses to read
// it (params_from_argparse.h); the plan itself is params_from_argparse.cpp.
#include "core/analysis/analysis.h"
#include "core/analysis/facts.h"
#include "core/common/text.h"
#include "core/guides/fixes/params_from_argparse.h"
#include "core/guides/guide.h"

#include <algorithm>
#include <map>
#include <set>

namespace portolan::guides {

using analysis::ProjectAnalysis;

// --- the file and the fix ---------------------------------------------------------------------

std::string renderParamsFile(const ParamsPlan& plan)
{
    std::set<std::string> scripts;
    for (const auto& e : plan.entries)
        scripts.insert(e.definedAt.file);
    std::string from;
    for (const auto& s : scripts)
        from += (from.empty() ? "" : ", ") + s;
    std::string out = "# Written by Portolan from the command-line flags of " + from +
                      ": one key per flag\n# the code reads; each comment is the flag's help.\n";
    auto entriesOf = [&](const std::string& section) {
        std::string body;
        for (const auto& e : plan.entries)
            if (e.section == section)
                body += "  " + e.key + ": " + e.value + "  # " + e.comment + "\n";
        return body;
    };
    if (plan.target == ParamsTarget::Determined) {
        out += "name: " + plan.name + "\n";
        const std::string body = entriesOf("hyperparameters");
        out += body.empty() ? "hyperparameters: {}\n" : "hyperparameters:\n" + body;
        std::string epochs = "1";
        for (const auto& e : plan.entries)
            if (e.key == "num_epochs" && !e.value.empty() &&
                std::all_of(e.value.begin(), e.value.end(),
                            [](char c) { return std::isdigit(static_cast<unsigned char>(c)); }))
                epochs = e.value;
        out += "searcher:\n  name: single\n  metric: validation_loss\n  smaller_is_better: true\n"
               "  max_length:\n    epochs: " +
               epochs + "\n";
        out += plan.entrypoint.empty()
                   ? "# entrypoint: model_def:Trial  # module:Class of the trial class, once it "
                     "exists\n"
                   : "entrypoint: " + plan.entrypoint + "\n";
        return out;
    }
    std::vector<std::string> sections = plan.sections;
    for (const auto& e : plan.entries)
        if (std::find(sections.begin(), sections.end(), e.section) == sections.end())
            sections.push_back(e.section);
    for (const auto& s : sections) {
        const std::string body = entriesOf(s);
        out += s;
        out += body.empty() ? ": {}\n" : ":\n";
        out += body;
    }
    return out;
}

namespace {

std::string subscript(const std::string& variable, const ParamsEntry& e)
{
    return variable + "[\"" + e.section + "\"][\"" + e.key + "\"]";
}

Diagnostic planError(const std::string& message)
{
    Diagnostic d;
    d.code = "fix.failed";
    d.message = message;
    return d;
}

bool isKey(const std::string& s)
{
    return !s.empty() && std::all_of(s.begin(), s.end(), [](char c) {
        return isIdentifierChar(c) || c == '-' || c == '.';
    });
}

} // namespace

std::string leftAloneSummary(const ParamsPlan& plan)
{
    // One line per flag and reason: "opt.manualSeed at main.py:45 (4 uses): the code assigns..."
    struct Group
    {
        const LeftUse* first;
        int count;
    };
    std::vector<Group> groups;
    for (const auto& l : plan.leftAlone) {
        auto it = std::find_if(groups.begin(), groups.end(), [&](const Group& g) {
            return g.first->text == l.text && g.first->reason == l.reason;
        });
        if (it == groups.end())
            groups.push_back({&l, 1});
        else
            ++it->count;
    }
    std::string out;
    for (const auto& g : groups) {
        out += (out.empty() ? "" : "; ") + g.first->text + " at " + g.first->at.file + ":" +
               std::to_string(g.first->at.line);
        if (g.count > 1)
            out += " (" + std::to_string(g.count) + " uses)";
        out += ": " + g.first->reason;
    }
    return out;
}

Result<Fix> buildParamsFix(const ProjectAnalysis& a, const ParamsPlan& plan)
{
    std::set<std::pair<std::string, std::string>> seen;
    for (const auto& e : plan.entries) {
        if (!isKey(e.section) || !isKey(e.key))
            return Result<Fix>::fail(
                planError("'" + e.section + "." + e.key + "' is not a plain YAML key"));
        if (!seen.insert({e.section, e.key}).second)
            return Result<Fix>::fail(
                planError("two flags would both be " + e.section + "." + e.key));
    }
    std::error_code ec;
    if (std::filesystem::exists(a.root / plan.file, ec))
        return Result<Fix>::fail(planError(plan.file + " exists already"));

    Fix fix;
    std::map<int, std::vector<TextEdit>> byFile;
    auto add = [&](int file, std::uint32_t start, std::uint32_t end, std::string replacement) {
        const auto& f = a.python[std::size_t(file)];
        byFile[file].push_back(
            {f.path, start, end, f.text.substr(start, end - start), std::move(replacement)});
    };
    for (const auto& load : plan.loads) {
        const std::string& v = load.variable;
        std::string code =
            concat(load.indent, "with open(\"", plan.file, "\") as ", v, "_stream:\n", load.indent,
                   "    ", v, " = yaml.safe_load(", v, "_stream)\n");
        const std::string import = "import yaml\n";
        if (load.needsImport && load.importAt != load.at)
            add(load.file, load.importAt, load.importAt, import);
        else if (load.needsImport)
            code.insert(0, import);
        add(load.file, load.at, load.at, code);
    }
    // Two loads in one file share one `import yaml`.
    for (auto& [file, edits] : byFile) {
        bool imported = false;
        std::vector<TextEdit> kept;
        for (auto& e : edits) {
            if (e.replacement == "import yaml\n") {
                if (imported)
                    continue;
                imported = true;
            }
            kept.push_back(std::move(e));
        }
        edits = std::move(kept);
    }
    int rewritten = 0;
    for (const auto& rw : plan.rewrites) {
        const ParamsEntry* e = plan.entry(rw.dest);
        if (!e)
            continue;
        std::string with;
        if (!rw.trialSelf.empty())
            with = rw.trialSelf + ".context.get_hparam(\"" + e->key + "\")";
        else
            with = subscript(plan.loads[std::size_t(rw.load)].variable, *e);
        add(rw.file, rw.span.startByte, rw.span.endByte, with);
        ++rewritten;
    }
    for (auto& [file, edits] : byFile)
        for (auto& e : edits)
            fix.edits.push_back(std::move(e));
    TextEdit created;
    created.file = plan.file;
    created.createsFile = true;
    created.replacement = renderParamsFile(plan);
    fix.edits.push_back(std::move(created));

    fix.description = "write " + plan.file + " from " + std::to_string(plan.entries.size()) +
                      " command-line flag" + (plan.entries.size() == 1 ? "" : "s") +
                      " and read it in " + std::to_string(rewritten) + " place" +
                      (rewritten == 1 ? "" : "s");
    if (!plan.leftAlone.empty())
        fix.description += "; left as they are: " + leftAloneSummary(plan);
    return Result<Fix>::ok(std::move(fix));
}

std::optional<Fix> paramsFixOfCheck(const Check& check, const ProjectAnalysis& a)
{
    if (check.fixKind != "params-from-argparse")
        return std::nullopt;
    const ParamsTarget target = check.fixParams.get("target") == "determined"
                                    ? ParamsTarget::Determined
                                    : ParamsTarget::Cerebras;
    if (target == ParamsTarget::Determined ? !a.experimentConfigs().empty()
                                           : a.paramsConfig() != nullptr)
        return std::nullopt;
    auto plan = planParamsFromArgparse(a, target);
    if (!plan)
        return std::nullopt;
    auto fix = buildParamsFix(a, *plan);
    if (!fix)
        return std::nullopt;
    return std::move(*fix.value);
}

} // namespace portolan::guides
