// The port's hyperparameters: each flag of the original with its value (the command line's,
// else its default, else the value the original computes from the flags before training), as
// YAML, with its Python annotation for typed configs.
#include "core/port/generate_internal.h"
#include "core/port/static_branch.h"

#include <algorithm>
#include <charconv>
#include <cstdlib>

namespace portolan::port::detail {

namespace {

std::string yamlValue(const std::string& python, const std::string& type)
{
    if (python.empty())
        return "null";
    if (python == "True")
        return "true";
    if (python == "False")
        return "false";
    if (python == "None")
        return "null";
    const bool number = python.find_first_not_of("0123456789.-+eE") == std::string::npos &&
                        python.find_first_of("0123456789") != std::string::npos;
    if (number) {
        if (type == "float" && python.find_first_of(".eE") == std::string::npos)
            return python + ".0";
        // YAML 1.1 (PyYAML, Determined) reads `1e-4` and `1.0e5` as strings: a float with an
        // exponent needs its dot and the exponent's sign.
        std::string v = python;
        auto e = v.find_first_of("eE");
        if (e != std::string::npos && v.find('.') == std::string::npos) {
            v = v.substr(0, e) + ".0" + v.substr(e);
            e += 2;
        }
        if (e != std::string::npos && e + 1 < v.size() &&
            std::isdigit(static_cast<unsigned char>(v[e + 1])))
            v.insert(e + 1, "+");
        return v;
    }
    // One string literal only (`"./" + str(x) + "/"` is an expression, not a string).
    if ((python.front() == '"' || python.front() == '\'') && python.back() == python.front() &&
        python.size() >= 2 && python.find(python.front(), 1) == python.size() - 1 &&
        python.find('\\') == std::string::npos)
        return "\"" + python.substr(1, python.size() - 2) + "\"";
    return "null";
}

std::string annotationOf(const analysis::CliFlag& f, const std::string& yaml)
{
    if (f.action == "store_true" || f.action == "store_false")
        return "bool";
    if (yaml.starts_with("["))
        return "list";
    if (f.type == "int" || f.type == "float" || f.type == "str")
        return yaml == "null" ? "Optional[" + f.type + "]" : f.type;
    if (yaml == "null")
        return "Optional[Any]";
    if (yaml == "true" || yaml == "false")
        return "bool";
    if (yaml.front() == '"')
        return "str";
    if (yaml.find_first_of(".eE") != std::string::npos)
        return "float";
    return "int";
}

// A value the code computed, as YAML: numbers in their shortest exact form.
std::optional<std::string> yamlOf(const StaticBranches::Value& v)
{
    using Kind = StaticBranches::Value::Kind;
    switch (v.kind) {
    case Kind::Bool:
        return v.number != 0 ? "true" : "false";
    case Kind::None:
        return "null";
    case Kind::String:
        return "\"" + v.text + "\"";
    case Kind::Number: {
        char buf[64];
        const auto r = std::to_chars(buf, buf + sizeof buf, v.number);
        return std::string(buf, r.ptr);
    }
    case Kind::Unknown:
        break;
    }
    return std::nullopt;
}

// The spots where the original reads its flags for what the port carries: the batch loop, its
// epoch loop, and the constructions of the optimizers, the schedulers and the loaders
// (`lr=args.lr` in main(), which calls the function holding the loop). A flag set in code before
// one of them is set for the training.
std::vector<CodeRef> flagReadingSpots(const PortPlan& plan)
{
    std::vector<CodeRef> out{plan.loop->loop, plan.loop->epochLoop};
    for (const auto& o : plan.optimizers)
        out.push_back(o.construction);
    for (const auto& s : plan.schedulers)
        out.push_back(s.construction);
    out.push_back(plan.train.construction);
    out.push_back(plan.eval.construction);
    std::erase_if(out, [](const CodeRef& r) { return !r.valid(); });
    return out;
}

// A flag the original sets in code before it trains (`args.lr = args.lr * args.scale`): the
// port's value is the one the original trains with. The statement is looked for before each spot
// that reads the flags, in that spot's function.
void applyReboundFlags(const PortPlan& plan, std::map<std::string, Hyper>& out)
{
    if (!plan.loop || plan.argsName.empty())
        return;
    const auto spots = flagReadingSpots(plan);
    for (auto& [dest, h] : out) {
        std::optional<StaticBranches::Rebound> r;
        const SourceFile* src = nullptr;
        std::string file;
        for (const auto& at : spots) {
            src = plan.source(at.file);
            if (!src)
                continue;
            r = StaticBranches(plan, *src).reboundFlag(dest, at.start);
            if (r) {
                file = at.file;
                break;
            }
        }
        if (!r)
            continue;
        const std::string where = file + ":" + std::to_string(r->statement->line);
        const std::string text = src->text(r->statement->start, r->statement->end);
        if (const auto v = yamlOf(r->value)) {
            h.value = *v;
            h.comment = "computed as the original does before training (" + where + ": " + text +
                        ")" + (h.comment.empty() ? "" : "; " + h.comment);
        } else {
            h.comment = "the original sets it in code before training (" + where + ": " + text +
                        "): the value here is the command line's; set the one it computes" +
                        (h.comment.empty() ? "" : "; " + h.comment);
        }
    }
}

// One word of the command line as YAML, as argparse converts it: type=int and type=float give
// numbers (in the form YAML reads as one), other words are strings.
std::string wordValue(const analysis::CliFlag& f, const std::string& word)
{
    if (f.type == "int" || f.type == "float") {
        const std::string v = yamlValue(word, f.type);
        if (v != "null")
            return v;
    }
    std::string quoted;
    for (const char c : word) {
        if (c == '"' || c == '\\')
            quoted += '\\';
        quoted += c;
    }
    return "\"" + quoted + "\"";
}

// A flag given on the command line as YAML: what the action stores, else its word, or its words
// as a list when it takes several (nargs; argumentValues joins them with a newline).
std::string givenValue(const analysis::CliFlag& f, const std::string& word)
{
    if (f.action == "store_true")
        return "true";
    if (f.action == "store_false")
        return "false";
    if (f.action == "store_const")
        return yamlValue(f.constText, f.type);
    if (f.nargs.empty() || f.nargs == "?")
        return word.empty() && f.nargs == "?" ? yamlValue(f.constText, f.type)
                                              : wordValue(f, word);
    std::string list;
    std::size_t at = 0;
    while (!word.empty() && at <= word.size()) {
        const auto end = std::min(word.find('\n', at), word.size());
        list += (list.empty() ? "" : ", ") + wordValue(f, word.substr(at, end - at));
        at = end + 1;
    }
    return "[" + list + "]";
}

bool positional(const analysis::CliFlag& f)
{
    return std::none_of(f.options.begin(), f.options.end(),
                        [](const std::string& o) { return o.starts_with("-"); });
}

// Each positional argument's key in argumentValues: its place among the positionals, in the
// order the parser defines them. Only when one file defines them all: the words are one
// script's command line, and positionals of several scripts have no one order.
std::map<std::string, std::string> positionalKeys(const PortPlan& plan)
{
    std::map<std::string, std::string> keys;
    int file = -1;
    int n = 0;
    for (const auto& f : plan.flags) {
        if (!positional(f) || keys.count(f.dest))
            continue;
        if (file >= 0 && f.file != file)
            return {};
        file = f.file;
        keys[f.dest] = positionalKey(++n);
    }
    return keys;
}

} // namespace

std::map<std::string, Hyper> hyperparameters(const PortPlan& plan,
                                             const std::map<std::string, std::string>& values)
{
    std::map<std::string, Hyper> out;
    const auto placeOf = positionalKeys(plan);
    for (const auto& f : plan.flags) {
        if (out.count(f.dest))
            continue;
        Hyper h;
        h.key = f.dest;
        std::string def = f.defaultText;
        if (def.empty() && f.action == "store_true")
            def = "False";
        if (def.empty() && f.action == "store_false")
            def = "True";
        h.value = yamlValue(def, f.type);
        h.comment = f.help;
        if (h.value == "null" && !def.empty() && def != "None")
            h.comment = "the default `" + def + "` is an expression: set the value" +
                        (h.comment.empty() ? "" : "; " + h.comment);
        std::vector<std::string> keys = f.options;
        if (const auto place = placeOf.find(f.dest); place != placeOf.end()) {
            keys.push_back(place->second);
            // A positional argument without a default has no value until the command line
            // gives one: the original's dry run stops there, and so would the port's.
            if (def.empty() && !values.count(place->second))
                h.comment = "required on the original's command line, not given: give it after "
                            "-- (portolan-cli port ... -- VALUE) or set it here" +
                            (h.comment.empty() ? "" : "; " + h.comment);
        }
        int counted = 0;
        for (const auto& o : keys) {
            const auto it = values.find(o);
            if (it == values.end())
                continue;
            if (f.action == "count")
                counted += std::atoi(it->second.c_str());
            else
                h.value = givenValue(f, it->second);
            // The command line's value replaces a default the port could not write.
            if (h.comment.starts_with("the default `"))
                h.comment = f.help;
        }
        if (counted > 0)
            h.value = std::to_string(counted);
        h.type = annotationOf(f, h.value);
        out[f.dest] = h;
    }
    applyReboundFlags(plan, out);
    return out;
}

} // namespace portolan::port::detail
