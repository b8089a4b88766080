// A class's own attributes read where the class never set them (rule kind `undefined-name` with
// `attributes-of`): `self.model` read in a trial that builds no `self.model`, `self.self.x`, or an
// attribute that
// `__init__` reads before it assigns it (`self.model = wrap(self.model)`). Such a class fails on
// its first call, so a check of a vendor class says so before the vendor runs it.
#include "core/analysis/analysis.h"
#include "core/guides/rules.h"

#include <map>
#include <set>

namespace portolan::guides {

namespace {

// The attribute of `self` an access reads or a target writes: "self.model.fc" -> "model".
std::string ownAttribute(const std::string& chain)
{
    if (!chain.starts_with("self."))
        return {};
    const std::string rest = chain.substr(5);
    return rest.substr(0, rest.find('.'));
}

// `self.a, self.b` / `(self.a, self.b)` / `self.a`: the attributes a target assigns (a target
// that assigns through a subscript or deeper attribute, `self.a[0] = ...`, sets none).
std::vector<std::string> assignedAttributes(std::string target)
{
    std::vector<std::string> out;
    for (char& c : target)
        if (c == '(' || c == ')' || c == '[' || c == ']')
            c = ' ';
    std::size_t pos = 0;
    while (pos <= target.size()) {
        auto end = target.find(',', pos);
        if (end == std::string::npos)
            end = target.size();
        std::string part = target.substr(pos, end - pos);
        part.erase(0, part.find_first_not_of(" *\t\n"));
        part.erase(part.find_last_not_of(" \t\n") + 1);
        const std::string a = ownAttribute(part);
        if (!a.empty() && part == "self." + a)
            out.push_back(a);
        pos = end + 1;
    }
    return out;
}

} // namespace

void ruleAttributeUnset(RuleContext& ctx)
{
    const RuleParams& p = ctx.check.params;
    for (const auto& f : ctx.analysis.python) {
        if (!fileOk(p, f))
            continue;
        const auto& idx = f.index;
        for (int c = 0; c < static_cast<int>(idx.classes.size()); ++c) {
            const auto& cls = idx.classes[static_cast<std::size_t>(c)];
            // Only a class whose every base is one the check names (the vendor's): a project
            // base class, or any other, may set attributes this class reads.
            if (cls.bases.empty() || cls.nested)
                continue;
            bool vendorBases = true;
            for (const auto& b : cls.bases)
                vendorBases = vendorBases && anyGlob(p.list("attributes-of"), lastPart(b));
            if (!vendorBases)
                continue;
            std::set<std::string> known(cls.methods.begin(), cls.methods.end());
            for (const auto& field : cls.fields)
                known.insert(field.name);
            for (const auto& a : p.list("provided"))
                known.insert(a);
            // Where each attribute is assigned: per method, the end of each assignment.
            std::map<std::string, std::set<python::FunctionId>> setIn;
            std::map<std::string, std::uint32_t> firstSetInInit;
            std::vector<std::pair<std::uint32_t, std::uint32_t>> targets; // byte ranges
            for (const auto& as : idx.assignments) {
                if (as.function < 0 ||
                    idx.functions[static_cast<std::size_t>(as.function)].className != cls.name)
                    continue;
                const auto& fn = idx.functions[static_cast<std::size_t>(as.function)];
                targets.emplace_back(as.span.startByte,
                                     as.span.startByte +
                                         static_cast<std::uint32_t>(as.target.size()));
                for (const auto& a : assignedAttributes(as.target)) {
                    setIn[a].insert(as.function);
                    if (fn.name == "__init__" && !firstSetInInit.count(a))
                        firstSetInInit[a] = as.span.endByte;
                }
            }
            std::set<std::pair<std::string, python::FunctionId>> said;
            for (const auto& u : idx.attributes) {
                if (u.base != "self" || u.function < 0)
                    continue;
                const auto& fn = idx.functions[static_cast<std::size_t>(u.function)];
                if (fn.className != cls.name)
                    continue;
                const std::string a = ownAttribute(u.chain);
                if (a.empty() || known.count(a) || a.starts_with("__"))
                    continue;
                bool isTarget = false;
                for (const auto& [s, e] : targets)
                    isTarget = isTarget || (u.span.startByte >= s && u.span.endByte <= e &&
                                            u.span.startByte == s);
                if (isTarget)
                    continue;
                std::string detail;
                const auto set = setIn.find(a);
                if (set == setIn.end()) {
                    detail = cls.name + " sets self." + a + " nowhere";
                } else if (fn.name == "__init__" && set->second.size() == 1 &&
                           set->second.count(u.function) &&
                           firstSetInInit.at(a) > u.span.startByte) {
                    detail = "__init__ sets it only after this line";
                } else {
                    continue;
                }
                if (!said.insert({a, u.function}).second)
                    continue;
                ctx.emit(
                    f, u.span,
                    {{"name", "self." + a}, {"function", fn.qualifiedName}, {"detail", detail}});
            }
        }
    }
}

} // namespace portolan::guides
