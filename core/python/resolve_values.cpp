// The resolver's value side: what a name, an argument or a return can hold (followed through
// assignments, parameters and returns up to a fixed depth), and the call sites of a definition.
#include "core/python/resolve_internal.h"

#include <algorithm>

namespace portolan::python {

std::vector<Value> Resolver::valuesOf(int file, FunctionId fn, ValueKind kind, int call,
                                      const std::string& text, const Span& span, int depth) const
{
    Value v;
    v.kind = kind;
    v.file = file;
    v.span = span;
    v.text = text;
    if (kind == ValueKind::Call && call >= 0) {
        v.call = call;
        v.symbol = callee(file, call);
        if (v.symbol.kind == SymbolKind::Function && v.symbol.rest.empty() &&
            depth < MaxResolveDepth) {
            auto inner = returns(v.symbol.file, v.symbol.index, depth + 1);
            if (!inner.empty())
                return inner;
        }
        return {v};
    }
    if (kind == ValueKind::Name) {
        auto out = namedValues(file, fn, text, span.startByte, depth + 1);
        for (auto& n : out)
            if (n.span.line == 0)
                n.span = span; // a name nothing assigns: point at where it is used
        return out;
    }
    return {v};
}

std::vector<Value> Resolver::namedValues(int file, FunctionId fn, std::string_view name,
                                         std::uint32_t before, int depth) const
{
    const PyIndex& idx = index(file);
    std::vector<Value> out;
    if (depth > MaxResolveDepth) {
        Value v;
        v.kind = ValueKind::Name;
        v.file = file;
        v.text = std::string(name);
        return {v};
    }
    // Assignments to the name in this function (a loop can bring a later one round, so all of
    // them count, not only the ones before the use).
    bool assigned = false;
    for (const auto& as : idx.assignments) {
        if (as.function != fn || as.target != name)
            continue;
        assigned = true;
        if (as.augmented) {
            Value v;
            v.kind = ValueKind::Other;
            v.file = file;
            v.span = as.span;
            v.text = as.value;
            out.push_back(std::move(v));
            continue;
        }
        // `x = x.cuda()` and friends: the value is the call; follow it like any other.
        auto vs = valuesOf(file, fn, as.kind, as.call, as.value, as.span, depth + 1);
        out.insert(out.end(), vs.begin(), vs.end());
    }
    (void)before;
    if (assigned)
        return out;
    Value v;
    v.kind = ValueKind::Name;
    v.file = file;
    v.text = std::string(name);
    v.symbol = resolve(file, fn, name);
    if (v.symbol.kind == SymbolKind::Local && v.symbol.function == ModuleLevel && fn != ModuleLevel)
        return namedValues(file, ModuleLevel, name, 0, depth + 1);
    return {v};
}

std::vector<Value> Resolver::returns(int file, FunctionId fn, int depth) const
{
    const PyIndex& idx = index(file);
    std::vector<Value> out;
    bool any = false;
    for (const auto& r : idx.returns) {
        if (r.function != fn)
            continue;
        any = true;
        if (r.text.empty()) {
            Value v;
            v.kind = ValueKind::None;
            v.file = file;
            v.span = r.span;
            out.push_back(std::move(v));
            continue;
        }
        auto vs = valuesOf(file, fn, r.kind, r.call, r.text, r.valueSpan, depth + 1);
        out.insert(out.end(), vs.begin(), vs.end());
    }
    if (!any && fn >= 0) {
        Value v;
        v.kind = ValueKind::None;
        v.file = file;
        v.span = idx.functions[static_cast<std::size_t>(fn)].nameSpan;
        v.text = "(no return statement)";
        out.push_back(std::move(v));
    }
    return out;
}

std::vector<Value> Resolver::returnValues(int file, FunctionId fn) const
{
    return returns(file, fn, 0);
}

std::vector<Value> Resolver::nameValues(int file, FunctionId fn, std::string_view name) const
{
    return namedValues(file, fn, name, 0xFFFFFFFFu, 0);
}

std::vector<Value> Resolver::argumentValues(int file, const Call& call, const Argument& arg) const
{
    const PyIndex& idx = index(file);
    // The argument's own call, when it is one: the call whose span is the argument's value.
    int argCall = -1;
    ValueKind kind = ValueKind::Other;
    const std::string& t = arg.text;
    if (arg.isString)
        kind = ValueKind::String;
    else if (!t.empty() && t.find_first_of("()[]{}+-*/%<>=!&|^~,:'\" ") == std::string::npos &&
             !std::isdigit(static_cast<unsigned char>(t[0])))
        kind = t.find('.') == std::string::npos ? ValueKind::Name : ValueKind::Attribute;
    else if (!t.empty() && t.back() == ')')
        for (std::size_t i = 0; i < idx.calls.size(); ++i)
            if (idx.calls[i].span.startByte == arg.valueSpan.startByte &&
                idx.calls[i].span.endByte == arg.valueSpan.endByte) {
                argCall = static_cast<int>(i);
                kind = ValueKind::Call;
                break;
            }
    if (kind == ValueKind::Attribute) {
        Value v;
        v.kind = ValueKind::Name;
        v.file = file;
        v.span = arg.valueSpan;
        v.text = t;
        v.symbol = resolve(file, call.function, t);
        if (!v.symbol.isDefinition())
            v.kind = ValueKind::Attribute;
        return {v};
    }
    return valuesOf(file, call.function, kind, argCall, t, arg.valueSpan, 0);
}

void Resolver::buildCallers() const
{
    std::call_once(m_callers->once, [this] {
        for (int f = 0; f < fileCount(); ++f) {
            const PyIndex& idx = index(f);
            for (std::size_t c = 0; c < idx.calls.size(); ++c) {
                if (idx.calls[c].callee.empty())
                    continue;
                const Symbol s = callee(f, static_cast<int>(c));
                if (s.isDefinition())
                    m_callers->sites[callerKey(s.file, s.kind, s.index)].push_back(
                        {f, static_cast<int>(c)});
            }
        }
    });
}

const std::vector<CallSite>& Resolver::callSites(const Symbol& definition) const
{
    static const std::vector<CallSite> none;
    if (!definition.isDefinition())
        return none;
    buildCallers();
    const auto it =
        m_callers->sites.find(callerKey(definition.file, definition.kind, definition.index));
    return it == m_callers->sites.end() ? none : it->second;
}

int Resolver::parameterFor(const FunctionDef& fn, const Call& call, std::size_t argument,
                           bool skipSelf)
{
    const Argument& arg = call.arguments[argument];
    if (arg.text.starts_with("*"))
        return -1; // *xs / **kw: cannot tell which parameters they fill
    const std::size_t first = skipSelf && !fn.parameters.empty() ? 1 : 0;
    if (!arg.keyword.empty()) {
        for (std::size_t p = first; p < fn.parameters.size(); ++p)
            if (fn.parameters[p].name == arg.keyword && fn.parameters[p].star == 0)
                return static_cast<int>(p);
        return -1;
    }
    std::size_t position = 0;
    for (std::size_t i = 0; i < argument; ++i) {
        if (call.arguments[i].text.starts_with("*"))
            return -1;
        if (call.arguments[i].keyword.empty())
            ++position;
    }
    std::size_t p = first + position;
    if (p < fn.parameters.size() && fn.parameters[p].star == 0 && !fn.parameters[p].keywordOnly)
        return static_cast<int>(p);
    return -1;
}

} // namespace portolan::python
