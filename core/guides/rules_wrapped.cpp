// What a vendor wraps, whatever the project names it: `self.sgd.step()` after
// `opt = self.context.wrap_optimizer(opt); self.sgd = opt` is an optimizer step, though no
// `optim` is in its name; and whether a construction reaches a wrapper (isWrapped), through a
// name, a factory's return, a tuple or a method's callers.
#include "core/analysis/analysis.h"
#include "core/common/text.h"
#include "core/guides/rules.h"
#include "core/python/resolve.h"

#include <set>

namespace portolan::guides {

using analysis::ProjectAnalysis;
using analysis::PythonFile;
using python::Call;
using python::FunctionId;

bool receiverFrom(const PythonFile& f, const Call& call, const std::vector<std::string>& globs)
{
    const std::string receiver = receiverOf(call.callee);
    if (receiver.empty())
        return false;
    for (const auto& c : f.index.calls)
        if (c.assignedTo == receiver && calleeOk(globs, c))
            return true;
    return false;
}

bool methodOfWrapped(const RuleParams& p, const PythonFile& f, const Call& c)
{
    if (!p.has("method-of-wrapped") || lastPart(c.callee) != p.get("method-of-wrapped"))
        return false;
    const std::string receiver = receiverOf(c.callee);
    if (receiver.empty())
        return false;
    // The receiver and the plain names it was assigned from (`self.sgd = opt`), a few hops.
    std::set<std::string> names{receiver};
    for (int hop = 0; hop < 3; ++hop)
        for (const auto& a : f.index.assignments)
            if (names.count(a.target) && !a.augmented &&
                a.value.find_first_of("()[], ") == std::string::npos)
                names.insert(a.value);
    const auto wrappers = p.list("wrapped-by");
    for (const auto& w : f.index.calls)
        if (names.count(w.assignedTo) && calleeOk(wrappers, w))
            return true;
    return false;
}

namespace {

// "a, b, c" / "(a, b)" -> {"a", "b", "c"}
std::vector<std::string> tupleNames(std::string text)
{
    std::vector<std::string> out;
    std::erase_if(text, [](char ch) { return ch == '(' || ch == ')' || ch == ' ' || ch == '\n'; });
    std::size_t at = 0;
    while (at <= text.size()) {
        const auto comma = text.find(',', at);
        out.push_back(text.substr(at, comma == std::string::npos ? std::string::npos : comma - at));
        if (comma == std::string::npos)
            break;
        at = comma + 1;
    }
    return out;
}

bool hasIdentifier(const std::string& text, const std::string& name)
{
    const auto word = [](char ch) {
        return std::isalnum(static_cast<unsigned char>(ch)) || ch == '_' || ch == '.';
    };
    for (auto at = text.find(name); at != std::string::npos; at = text.find(name, at + 1))
        if ((at == 0 || !word(text[at - 1])) &&
            (at + name.size() == text.size() || !word(text[at + name.size()])))
            return true;
    return false;
}

// Whether a name is read in a function: an argument or the receiver of a call there.
bool readsName(const PythonFile& f, python::FunctionId fn, const std::string& name)
{
    return std::any_of(f.index.calls.begin(), f.index.calls.end(), [&](const Call& c) {
        if (c.function != fn)
            return false;
        if (c.callee.starts_with(name + "."))
            return true;
        return std::any_of(c.arguments.begin(), c.arguments.end(),
                           [&](const auto& x) { return hasIdentifier(x.text, name); });
    });
}

// The calls of function `index` of `file`: the resolver's, and for a method it finds none of,
// the calls by the method's name on a receiver it cannot type (`net.configure_optimizers(cfg)`,
// `net` bound to the class's instance), when no other definition in the project has that name.
std::vector<python::CallSite> callSitesOf(const ProjectAnalysis& a, int file, FunctionId index)
{
    python::Symbol fn;
    fn.kind = python::SymbolKind::Function;
    fn.file = file;
    fn.index = index;
    std::vector<python::CallSite> out = a.resolver->callSites(fn);
    const auto& def =
        a.python[static_cast<std::size_t>(file)].index.functions[static_cast<std::size_t>(index)];
    if (!out.empty() || def.className.empty())
        return out;
    int same = 0;
    for (const auto& f : a.python)
        for (const auto& d : f.index.functions)
            same += d.name == def.name ? 1 : 0;
    if (same != 1)
        return out;
    const std::string suffix = "." + def.name;
    for (std::size_t f = 0; f < a.python.size(); ++f) {
        const auto& calls = a.python[f].index.calls;
        for (std::size_t c = 0; c < calls.size(); ++c)
            if (calls[c].callee.ends_with(suffix) && !calls[c].callee.starts_with("self.") &&
                !a.resolver->callee(static_cast<int>(f), static_cast<int>(c)).isDefinition())
                out.push_back({static_cast<int>(f), static_cast<int>(c)});
    }
    return out;
}

// `opt = SGD(...)` in a factory that returns it in a tuple (`return data, model, opt`): wrapped
// when a caller that unpacks the tuple wraps that element, and no caller reads it unwrapped
// (a second call of the factory for its data set leaves the optimizer unused).
bool wrappedThroughTuple(const ProjectAnalysis& a, const PythonFile& f, const Call& call,
                         const std::vector<std::string>& wrappers)
{
    const int file = a.indexOf(&f);
    if (!a.resolver || call.function < 0)
        return false;
    std::size_t position = 0;
    bool returned = false;
    for (const auto& r : f.index.returns) {
        if (r.function != call.function || r.text.find(',') == std::string::npos)
            continue;
        const auto names = tupleNames(r.text);
        for (std::size_t i = 0; i < names.size(); ++i)
            if (names[i] == call.assignedTo) {
                position = i;
                returned = true;
            }
    }
    if (!returned)
        return false;
    bool wrapped = false;
    for (const auto& site : callSitesOf(a, file, call.function)) {
        const PythonFile& sf = a.python[static_cast<std::size_t>(site.file)];
        const Call& sc = sf.index.calls[static_cast<std::size_t>(site.call)];
        const auto names = tupleNames(sc.assignedTo);
        if (names.size() <= position || names[position].empty())
            return false;
        const std::string& name = names[position];
        bool here = false;
        for (const auto& c : sf.index.calls)
            if (c.function == sc.function && calleeOk(wrappers, c))
                for (const auto& arg : c.arguments)
                    here = here || arg.text == name;
        if (!here && readsName(sf, sc.function, name))
            return false;
        wrapped = wrapped || here;
    }
    return wrapped;
}

} // namespace

bool isWrapped(const ProjectAnalysis& a, const PythonFile& f, const Call& call,
               const std::vector<std::string>& wrappers, int depth)
{
    for (int p = call.parentCall; p >= 0; p = f.index.calls[static_cast<std::size_t>(p)].parentCall)
        if (calleeOk(wrappers, f.index.calls[static_cast<std::size_t>(p)]))
            return true;
    // return SGD(...) in a helper whose every caller wraps what it returns. A call nested in
    // the returned one counts as returned: a submodule built as an argument of the returned
    // container (return nn.Sequential(..., Flatten(), ...)) is wrapped along with it.
    const int file = a.indexOf(&f);
    std::set<int> chain;
    for (int c = static_cast<int>(&call - f.index.calls.data()); c >= 0;
         c = f.index.calls[static_cast<std::size_t>(c)].parentCall)
        chain.insert(c);
    // `opt = SGD(...); return opt` returns it as well.
    const auto returnsIt = [&](const python::Return& r) {
        return chain.count(r.call) > 0 ||
               (r.function == call.function && r.kind == python::ValueKind::Name &&
                !call.assignedTo.empty() && r.text == call.assignedTo);
    };
    if (depth < 4 && file >= 0 && a.resolver && call.function >= 0)
        for (const auto& r : f.index.returns)
            if (returnsIt(r)) {
                const auto sites = callSitesOf(a, file, call.function);
                bool all = !sites.empty();
                for (const auto& site : sites) {
                    const PythonFile& sf = a.python[static_cast<std::size_t>(site.file)];
                    all =
                        all && isWrapped(a, sf, sf.index.calls[static_cast<std::size_t>(site.call)],
                                         wrappers, depth + 1);
                }
                if (all)
                    return true;
            }
    if (call.assignedTo.empty())
        return false;
    if (depth < 4 && file >= 0 && wrappedThroughTuple(a, f, call, wrappers))
        return true;
    // model = Net(...); self.model = context.wrap_model(model). A part of a model set before
    // the model is wrapped (`net.head = Head(...)`, `net.body[1] = Gate()`, then
    // `net = context.wrap_model(net)`) goes with the model it is part of.
    const std::size_t cut = call.assignedTo.find_first_of(".[");
    const std::string whole = cut == std::string::npos ? "" : call.assignedTo.substr(0, cut);
    for (const auto& c : f.index.calls)
        if (c.function == call.function && calleeOk(wrappers, c))
            for (const auto& arg : c.arguments)
                if (arg.text == call.assignedTo ||
                    (!whole.empty() && arg.text == whole && c.span.startByte > call.span.startByte))
                    return true;
    return false;
}

} // namespace portolan::guides
