// Contracts are read from YAML into plain structs once; a malformed file is a positioned
// diagnostic and the other files still load.
#include "core/analysis/contracts.h"

#include "core/common/atomic_file.h"
#include "core/common/glob.h"
#include "core/common/resources.h"

#include <algorithm>
#include <mutex>
#include <set>
#include <yaml-cpp/yaml.h>

namespace portolan::analysis {

namespace {

struct ContractError
{
    std::string message;
    YAML::Mark mark;
};

std::string text(const YAML::Node& n, const char* key, bool required = false)
{
    const YAML::Node v = n[key];
    if (!v || v.IsNull()) {
        if (required)
            throw ContractError{std::string("missing '") + key + "'", n.Mark()};
        return {};
    }
    if (!v.IsScalar())
        throw ContractError{std::string("'") + key + "' must be text", v.Mark()};
    return v.Scalar();
}

std::vector<std::string> list(const YAML::Node& n, const char* key)
{
    std::vector<std::string> out;
    const YAML::Node v = n[key];
    if (!v || v.IsNull())
        return out;
    if (v.IsScalar()) {
        out.push_back(v.Scalar());
        return out;
    }
    if (!v.IsSequence())
        throw ContractError{std::string("'") + key + "' must be a list", v.Mark()};
    for (const auto& item : v) {
        if (!item.IsScalar())
            throw ContractError{std::string("'") + key + "' must be a list of text", item.Mark()};
        out.push_back(item.Scalar());
    }
    return out;
}

std::vector<Signature> signatures(const YAML::Node& n)
{
    std::vector<Signature> out;
    if (const YAML::Node sigs = n["signatures"]; sigs && sigs.IsSequence()) {
        for (const auto& s : sigs) {
            if (!s.IsMap())
                throw ContractError{"a signature must be a mapping with params", s.Mark()};
            Signature sig;
            sig.releases = text(s, "releases");
            sig.params = parseSignatureParams(list(s, "params"));
            out.push_back(std::move(sig));
        }
    } else if (n["params"]) {
        Signature sig;
        sig.releases = text(n, "releases");
        sig.params = parseSignatureParams(list(n, "params"));
        out.push_back(std::move(sig));
    }
    return out;
}

std::vector<Role> roles(const YAML::Node& n)
{
    std::vector<Role> out;
    const YAML::Node r = n["roles"];
    if (!r || r.IsNull())
        return out;
    if (!r.IsMap())
        throw ContractError{"'roles' must map parameter names to roles", r.Mark()};
    for (auto it = r.begin(); it != r.end(); ++it) {
        Role role;
        role.parameter = it->first.Scalar();
        if (!it->second.IsMap())
            throw ContractError{"a role must be a mapping", it->second.Mark()};
        role.role = text(it->second, "role", true);
        role.receivesParams = text(it->second, "receives-params");
        role.returns = text(it->second, "returns");
        const std::string pos = text(it->second, "position");
        role.position = pos.empty() ? -1 : std::stoi(pos);
        out.push_back(std::move(role));
    }
    return out;
}

void parseInto(const YAML::Node& root, const std::string& path, ContractSet& set)
{
    if (!root.IsMap())
        throw ContractError{"a contract file must be a mapping", root.Mark()};
    const std::string id = text(root, "id", true);
    if (const YAML::Node apis = root["apis"]; apis && apis.IsSequence())
        for (const auto& a : apis) {
            ApiContract api;
            api.contract = id;
            api.name = text(a, "name", true);
            api.match = list(a, "match");
            api.methodOf = text(a, "method-of");
            api.methods = list(a, "method");
            api.source = text(a, "source");
            api.signatures = signatures(a);
            api.roles = roles(a);
            if (const YAML::Node inf = a["inference-only"]; inf && inf.IsScalar())
                api.inferenceOnly = inf.as<std::string>() == "true";
            if (const YAML::Node tr = a["trains"]; tr && tr.IsScalar())
                api.trains = tr.as<std::string>() == "true";
            api.definedAt = {path, a.Mark().line + 1, a.Mark().column + 1};
            if (api.match.empty() && api.methodOf.empty())
                throw ContractError{"api '" + api.name + "' needs 'match' or 'method-of'",
                                    a.Mark()};
            set.apis.push_back(std::move(api));
        }
    if (const YAML::Node types = root["types"]; types && types.IsSequence())
        for (const auto& t : types) {
            TypeContract type;
            type.name = text(t, "name", true);
            type.source = text(t, "source");
            if (const YAML::Node ms = t["methods"]; ms && ms.IsSequence())
                for (const auto& m : ms) {
                    MethodContract mc;
                    mc.name = text(m, "name", true);
                    mc.signatures = signatures(m);
                    type.methods.push_back(std::move(mc));
                }
            set.types.push_back(std::move(type));
        }
    if (const YAML::Node classes = root["classes"]; classes && classes.IsSequence())
        for (const auto& c : classes) {
            ClassContract cls;
            cls.name = text(c, "name", true);
            cls.bases = list(c, "base");
            cls.source = text(c, "source");
            if (const std::string role = text(c, "role"); !role.empty())
                cls.role = role;
            if (const YAML::Node ip = c["init-params"]; ip && ip.IsSequence())
                for (const auto& p : ip)
                    cls.initParams.emplace_back(std::stoi(text(p, "position", true)),
                                                text(p, "type", true));
            if (const YAML::Node rm = c["required-methods"]; rm && rm.IsSequence())
                for (const auto& group : rm) {
                    std::vector<std::string> alternatives;
                    if (group.IsScalar())
                        alternatives.push_back(group.Scalar());
                    else
                        for (const auto& m : group)
                            alternatives.push_back(m.Scalar());
                    cls.requiredMethods.push_back(std::move(alternatives));
                }
            cls.optionalMethods = list(c, "optional-methods");
            if (const YAML::Node ms = c["method-signatures"]; ms && ms.IsSequence())
                for (const auto& m : ms) {
                    Signature sig;
                    sig.params = parseSignatureParams(list(m, "params"));
                    cls.methodSignatures.emplace_back(text(m, "method", true), std::move(sig));
                }
            if (const YAML::Node dl = c["data-loaders"]; dl && dl.IsMap()) {
                cls.dataLoaderMethods = list(dl, "methods");
                cls.dataLoaderReturns = list(dl, "returns");
                cls.dataLoaderAlsoAccepted = list(dl, "also-accepted");
                cls.dataLoaderSource = text(dl, "source");
            }
            set.classes.push_back(std::move(cls));
        }
    if (const YAML::Node rf = root["runconfig-flags"]; rf && rf.IsMap()) {
        RunconfigFlags flags;
        flags.section = text(rf, "section", true);
        flags.flags = list(rf, "flags");
        flags.source = text(rf, "source");
        set.runconfigFlags.push_back(std::move(flags));
    }
    for (auto& m : list(root, "mutating-calls"))
        set.mutatingCalls.push_back(std::move(m));
    if (const YAML::Node ff = root["fills-from-args"]; ff && ff.IsSequence())
        for (const auto& f : ff) {
            FillsFromArgs fill;
            fill.match = list(f, "match");
            const std::string a = text(f, "args-argument"), s = text(f, "section-argument");
            fill.argsArgument = a.empty() ? 0 : std::stoi(a);
            fill.sectionArgument = s.empty() ? 1 : std::stoi(s);
            set.fillsFromArgs.push_back(std::move(fill));
        }
}

} // namespace

std::string Signature::toString(std::string_view name) const
{
    std::string out = std::string(name) + "(";
    for (std::size_t i = 0; i < params.size(); ++i) {
        if (i)
            out += ", ";
        const auto& p = params[i];
        out += std::string(std::size_t(p.star), '*') + p.name + (p.optional ? "=..." : "");
    }
    return out + ")";
}

const Role* ApiContract::role(std::string_view parameter) const
{
    for (const auto& r : roles)
        if (r.parameter == parameter)
            return &r;
    return nullptr;
}

const MethodContract* TypeContract::method(std::string_view name) const
{
    for (const auto& m : methods)
        if (m.name == name)
            return &m;
    return nullptr;
}

const ApiContract* ContractSet::findApi(std::string_view qualified) const
{
    for (const auto& a : apis)
        for (const auto& m : a.match)
            if (globMatch(m, qualified))
                return &a;
    return nullptr;
}

const ApiContract* ContractSet::findMethodApi(std::string_view type, std::string_view method) const
{
    for (const auto& a : apis)
        if (a.methodOf == type &&
            std::find(a.methods.begin(), a.methods.end(), method) != a.methods.end())
            return &a;
    return nullptr;
}

const TypeContract* ContractSet::findType(std::string_view name) const
{
    for (const auto& t : types)
        if (t.name == name)
            return &t;
    return nullptr;
}

std::vector<SignatureParam> parseSignatureParams(const std::vector<std::string>& items)
{
    std::vector<SignatureParam> out;
    bool keywordOnly = false;
    for (std::string item : items) {
        if (item == "*") {
            keywordOnly = true;
            continue;
        }
        SignatureParam p;
        while (!item.empty() && item[0] == '*') {
            ++p.star;
            item.erase(0, 1);
        }
        if (!item.empty() && item.back() == '=') {
            p.optional = true;
            item.pop_back();
        }
        p.name = item;
        p.keywordOnly = keywordOnly && p.star == 0;
        if (p.star == 1)
            keywordOnly = true;
        out.push_back(std::move(p));
    }
    return out;
}

namespace {

std::optional<SignatureProblem> mismatch(const Signature& sig, const python::Call& call,
                                         bool implicitSelf)
{
    std::vector<SignatureParam> params = sig.params;
    if (implicitSelf && !params.empty() && params[0].star == 0)
        params.erase(params.begin());
    bool varArgs = false, varKw = false;
    std::size_t positional = 0; // how many parameters can be filled by position
    for (const auto& p : params) {
        if (p.star == 1)
            varArgs = true;
        else if (p.star == 2)
            varKw = true;
        else if (!p.keywordOnly && !varArgs)
            ++positional;
    }
    std::vector<bool> filled(params.size(), false);
    std::size_t nextPositional = 0;
    std::size_t given = 0;
    for (std::size_t ai = 0; ai < call.arguments.size(); ++ai) {
        const auto& arg = call.arguments[ai];
        if (!arg.keyword.empty())
            continue;
        ++given;
        // The n-th positional argument fills the n-th positional parameter.
        std::size_t seen = 0;
        bool placed = false;
        for (std::size_t i = 0; i < params.size(); ++i) {
            if (params[i].star || params[i].keywordOnly)
                continue;
            if (seen++ == nextPositional) {
                filled[i] = true;
                placed = true;
                break;
            }
        }
        ++nextPositional;
        if (!placed && !varArgs) {
            std::size_t total = 0;
            for (const auto& a : call.arguments)
                total += a.keyword.empty() ? 1 : 0;
            return SignatureProblem{"takes at most " + std::to_string(positional) +
                                        " positional argument" + (positional == 1 ? "" : "s") +
                                        ", " + std::to_string(total) + " given",
                                    static_cast<int>(ai)};
        }
    }
    for (std::size_t ai = 0; ai < call.arguments.size(); ++ai) {
        const auto& arg = call.arguments[ai];
        if (arg.keyword.empty())
            continue;
        bool known = false;
        for (std::size_t i = 0; i < params.size(); ++i)
            if (params[i].star == 0 && params[i].name == arg.keyword) {
                if (filled[i])
                    return SignatureProblem{"'" + arg.keyword + "' is given twice",
                                            static_cast<int>(ai)};
                filled[i] = true;
                known = true;
            }
        if (!known && !varKw)
            return SignatureProblem{"unknown keyword '" + arg.keyword + "'", static_cast<int>(ai)};
    }
    for (std::size_t i = 0; i < params.size(); ++i)
        if (params[i].star == 0 && !params[i].optional && !filled[i])
            return SignatureProblem{"missing required argument '" + params[i].name + "'", -1};
    return std::nullopt;
}

} // namespace

std::optional<SignatureProblem> signatureMismatch(const std::vector<Signature>& sigs,
                                                  const python::Call& call, bool implicitSelf)
{
    if (sigs.empty())
        return std::nullopt;
    for (const auto& arg : call.arguments)
        if (arg.text.starts_with("*"))
            return std::nullopt; // *xs or **kw: the arguments cannot be counted
    std::optional<SignatureProblem> first;
    for (const auto& sig : sigs) {
        auto why = mismatch(sig, call, implicitSelf);
        if (!why)
            return std::nullopt;
        if (!first)
            first = why;
    }
    return first;
}

ContractSet parseContracts(std::string_view yamlText, const std::string& path)
{
    ContractSet set;
    try {
        parseInto(YAML::Load(std::string(yamlText)), path, set);
    } catch (const ContractError& e) {
        set = {};
        set.diagnostics.push_back({Severity::Error,
                                   "contract.invalid",
                                   e.message,
                                   {path, e.mark.line + 1, e.mark.column + 1}});
    } catch (const YAML::Exception& e) {
        set = {};
        set.diagnostics.push_back({Severity::Error,
                                   "contract.invalid",
                                   "YAML cannot be read: " + e.msg,
                                   {path, e.mark.line + 1, e.mark.column + 1}});
    } catch (const std::exception& e) {
        set = {};
        set.diagnostics.push_back(
            {Severity::Error, "contract.invalid", std::string("bad value: ") + e.what(), {path}});
    }
    return set;
}

ContractSet loadContracts(const std::filesystem::path& dir)
{
    ContractSet all;
    std::error_code ec;
    std::vector<std::filesystem::path> files;
    for (std::filesystem::directory_iterator it(dir, ec), end; !ec && it != end; it.increment(ec))
        if (it->path().extension() == ".yaml")
            files.push_back(it->path());
    if (ec) {
        all.diagnostics.push_back({Severity::Error,
                                   "contract.folder",
                                   "contracts folder cannot be read: " + ec.message(),
                                   {dir.string()}});
        return all;
    }
    std::sort(files.begin(), files.end());
    for (const auto& f : files) {
        auto text = readFile(f);
        if (!text) {
            all.diagnostics.push_back(text.error);
            continue;
        }
        ContractSet one = parseContracts(*text.value, f.string());
        auto move = [](auto& from, auto& to) {
            std::move(from.begin(), from.end(), std::back_inserter(to));
        };
        move(one.apis, all.apis);
        move(one.types, all.types);
        move(one.classes, all.classes);
        move(one.runconfigFlags, all.runconfigFlags);
        move(one.fillsFromArgs, all.fillsFromArgs);
        move(one.mutatingCalls, all.mutatingCalls);
        move(one.diagnostics, all.diagnostics);
    }
    return all;
}

std::shared_ptr<const ContractSet> defaultContracts()
{
    static std::mutex mutex;
    static std::shared_ptr<const ContractSet> cached;
    static std::filesystem::path cachedDir;
    std::lock_guard lock(mutex);
    const std::filesystem::path dir = resourcesDir() / "contracts";
    if (!cached || cachedDir != dir) {
        cached = std::make_shared<const ContractSet>(loadContracts(dir));
        cachedDir = dir;
    }
    return cached;
}

} // namespace portolan::analysis
