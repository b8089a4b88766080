// portolan-cli params get|set|validate: read, edit (losslessly) and check params.yaml and
// Determined experiment configs from scripts and CI.
#include "app/cli/cli_common.h"
#include "core/common/json.h"
#include "core/common/number_format.h"
#include "core/params/block_scalar.h"
#include "core/params/params_document.h"
#include "core/params/validate.h"

#include <iostream>
#include <memory>

namespace portolan::cli {

namespace {

struct ParamsOptions
{
    std::string file;
    std::string key;
    std::string value;
    std::string schema;
    std::string format = "text";
    bool asString = false;
    bool raw = false;
    bool create = false;
    bool force = false;
    bool atAnchor = false;
    bool showInfo = false;
};

// Opens the file; prints why and returns nullopt when it cannot be read or parsed.
std::optional<params::ParamsDocument> openOrReport(const std::string& file)
{
    auto opened = params::ParamsDocument::open(file);
    if (!opened) {
        std::cerr << "portolan-cli: " << opened.error.toString() << "\n";
        return std::nullopt;
    }
    if (!opened.value->isParsed()) {
        printDiagnostic(std::cerr, *opened.value->syntaxError());
        return std::nullopt;
    }
    return std::move(*opened.value);
}

int runGet(const ParamsOptions& o)
{
    auto doc = openOrReport(o.file);
    if (!doc)
        return ExitUsage;
    const params::Resolved r = doc->resolve(o.key);
    if (r.node < 0) {
        std::cerr << "portolan-cli: " << o.file << ": no key '" << o.key << "'"
                  << (r.missing.empty() ? "" : " ('" + r.missing + "' is missing)") << "\n";
        return ExitFindings;
    }
    const params::YamlNode& n = doc->tree().at(r.node);
    if (o.format == "json") {
        nlohmann::json j;
        j["key"] = o.key;
        j["value"] = *doc->get(o.key);
        j["kind"] = n.kind == params::NodeKind::Mapping    ? "mapping"
                    : n.kind == params::NodeKind::Sequence ? "list"
                    : n.kind == params::NodeKind::Null     ? "null"
                                                           : "scalar";
        j["line"] = n.line;
        j["column"] = n.column;
        std::cout << j.dump(2) << "\n";
        return ExitOk;
    }
    std::cout << *doc->get(o.key) << "\n";
    return ExitOk;
}

int runSet(const ParamsOptions& o)
{
    auto doc = openOrReport(o.file);
    if (!doc)
        return ExitUsage;
    const params::ValueHint hint = o.raw        ? params::ValueHint::Raw
                                   : o.asString ? params::ValueHint::String
                                                : params::ValueHint::Auto;
    const auto before = doc->get(o.key);
    // `"$(portolan-cli params get ...)"` loses a block scalar's final line breaks; putting back
    // what `get` printed must not change the file.
    std::string value = o.value;
    if (const int node = doc->find(o.key); node >= 0 && !o.raw)
        value = params::restoreFinalBreaks(doc->tree().at(node), value);
    const auto anchor = o.atAnchor ? doc->anchorOf(o.key) : std::nullopt;
    auto err = o.create     ? doc->setOrAdd(o.key, value, hint)
               : o.atAnchor ? doc->setScalarAtAnchor(o.key, value, hint)
                            : doc->setScalar(o.key, value, hint);
    if (err) {
        if (err->location.file.empty())
            err->location.file = o.file;
        if (err->code == "params.through-alias")
            err->message += "; --at-anchor edits it there";
        printDiagnostic(std::cerr, *err);
        return ExitUsage;
    }
    if (anchor && doc->isModified()) {
        std::cerr << o.key << " is written at " << anchor->path << " (line " << anchor->line
                  << ", anchor &" << anchor->anchor << "); the change also applies to:";
        for (const auto& p : anchor->usedBy)
            std::cerr << " " << p;
        std::cerr << "\n";
    }
    if (!doc->isModified()) {
        std::cerr << o.key << " is already that value; file unchanged\n";
        return ExitOk;
    }
    if (auto saveErr = doc->save(o.force)) {
        printDiagnostic(std::cerr, *saveErr);
        return ExitUsage;
    }
    std::cerr << o.key << ": " << (before ? *before : std::string("(new)")) << " -> "
              << *doc->get(o.key) << "\n";
    return ExitOk;
}

int runValidate(const ParamsOptions& o)
{
    auto opened = params::ParamsDocument::open(o.file);
    if (!opened) {
        std::cerr << "portolan-cli: " << opened.error.toString() << "\n";
        return ExitUsage;
    }
    const params::ParamsDocument& doc = *opened.value;
    const params::SchemaSet schemas = params::loadBuiltinSchemas();
    for (const auto& e : schemas.errors)
        printDiagnostic(std::cerr, e);
    params::ValidationReport report;
    if (!doc.isParsed()) {
        report.diagnostics.push_back(*doc.syntaxError());
    } else if (!o.schema.empty()) {
        const params::Schema* s = schemas.find(o.schema);
        if (!s) {
            std::cerr << "portolan-cli: unknown schema '" << o.schema << "'; known:";
            for (const auto& k : schemas.schemas)
                std::cerr << " " << k.name;
            std::cerr << "\n";
            return ExitUsage;
        }
        report = params::validate(doc.tree(), *s, o.file);
    } else {
        report = params::validateDetected(doc.tree(), schemas, o.file);
    }
    const int errors = report.errors();
    const int warnings = report.count(Severity::Warning);
    const int infos = report.count(Severity::Info);
    if (o.format == "json") {
        nlohmann::json j;
        j["file"] = o.file;
        j["schema"] = report.schema.empty() ? nlohmann::json() : nlohmann::json(report.schema);
        j["detected"] = report.detected;
        j["syntax_ok"] = doc.isParsed();
        j["errors"] = errors;
        j["warnings"] = warnings;
        j["infos"] = infos;
        j["diagnostics"] = nlohmann::json::array();
        for (const auto& d : report.diagnostics)
            j["diagnostics"].push_back(toJson(d));
        std::cout << j.dump(2) << "\n";
    } else {
        for (const auto& d : report.diagnostics)
            if (d.severity != Severity::Info || o.showInfo || !doc.isParsed())
                printDiagnostic(std::cout, d);
        std::cout << o.file << ": "
                  << (report.schema.empty()
                          ? std::string("unknown layout")
                          : report.schema + (report.detected ? " (detected)" : ""))
                  << ": " << format::counted(errors, "error") << ", "
                  << format::counted(warnings, "warning") << ", " << format::counted(infos, "note")
                  << (infos && !o.showInfo ? " (--info shows them)" : "") << "\n";
    }
    if (!doc.isParsed())
        return ExitUsage;
    return errors > 0 ? ExitFindings : ExitOk;
}

Subcommand registerParams(CLI::App& root)
{
    auto o = std::make_shared<ParamsOptions>();
    CLI::App* cmd = root.add_subcommand(
        "params", "Read, edit (keeping comments and layout) and validate params.yaml files");
    cmd->require_subcommand(1);
    auto mode = std::make_shared<std::string>();

    CLI::App* get = cmd->add_subcommand("get", "Print the value at KEY.PATH (a.b[2].c)");
    get->add_option("FILE", o->file, "YAML file")->required();
    get->add_option("KEY", o->key, "Key path, such as optimizer.learning_rate")->required();
    addFormatOption(*get, o->format, {"text", "json"});
    get->callback([mode] { *mode = "get"; });

    CLI::App* set = cmd->add_subcommand(
        "set", "Set the value at KEY.PATH; only that value's bytes change, the save is atomic");
    set->add_option("FILE", o->file, "YAML file")->required();
    set->add_option("KEY", o->key, "Key path, such as optimizer.learning_rate")->required();
    set->add_option("VALUE", o->value, "New value, as YAML reads it (0.01 is a number)")
        ->required();
    set->add_flag("--string", o->asString, "Keep the value a string (quote 1e-3 or true)");
    set->add_flag("--raw", o->raw, "VALUE is YAML text, such as [1, 2] or {a: 1}");
    set->add_flag("--create", o->create, "Add the key (and missing parents) if it is absent");
    set->add_flag("--force", o->force, "Overwrite even if the file changed on disk meanwhile");
    set->add_flag("--at-anchor", o->atAnchor,
                  "KEY is read through an alias: edit the value where its anchor defines it "
                  "(every alias of that anchor changes too)");
    set->callback([mode] { *mode = "set"; });

    CLI::App* validate =
        cmd->add_subcommand("validate", "Check types, ranges, enums and keys against a schema "
                                        "(exit 1 on errors, 2 if unreadable or not YAML)");
    validate->add_option("FILE", o->file, "YAML file")->required();
    validate->add_option("--schema", o->schema,
                         "modelzoo-classic, modelzoo-trainer or determined-experiment "
                         "(default: detected from the top-level keys)");
    validate->add_flag("--info", o->showInfo, "Also print notes (keys a model's code may read)");
    addFormatOption(*validate, o->format, {"text", "json"});
    validate->callback([mode] { *mode = "validate"; });

    return {cmd, [o, mode] {
                if (*mode == "get")
                    return runGet(*o);
                if (*mode == "set")
                    return runSet(*o);
                return runValidate(*o);
            }};
}
// Self-registration, the idiom of cli_common.h: a static object by design.
const CommandRegistration // clazy:exclude=non-pod-global-static
    registration{"params", 30, &registerParams};

} // namespace

} // namespace portolan::cli
