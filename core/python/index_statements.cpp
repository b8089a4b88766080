// What the index records of each statement: classes, functions and their parameters, imports,
// calls with their arguments, attribute uses, config key reads through subscripts, assignments
// (and the aliases they make) and returns.
#include "core/python/indexer.h"

#include <algorithm>
#include <cstring>

namespace portolan::python::detail {

void Indexer::classDef(TSNode n, int depth)
{
    ClassDef cls;
    const TSNode name = field(n, "name");
    if (!ts_node_is_null(name)) {
        cls.name = text(name);
        cls.nameSpan = span(name);
        define(name);
    }
    cls.span = span(n);
    cls.function = m_function;
    cls.nested = !m_class.empty() && m_classFunction == m_function;
    m_pendingDecorators.clear();
    const TSNode supers = field(n, "superclasses");
    if (!ts_node_is_null(supers)) {
        children(supers, [&](TSNode c, std::string_view) {
            if (ts_node_is_named(c) && type(c) != "keyword_argument" && type(c) != "comment")
                cls.bases.push_back(text(c));
        });
        walk(supers, depth + 1);
    }
    const std::size_t index = m_out.classes.size();
    m_out.classes.push_back(std::move(cls));
    const std::string saved = m_class;
    const std::size_t savedIndex = m_classIndex;
    const FunctionId savedClassFunction = m_classFunction;
    m_class = m_out.classes[index].name;
    m_classIndex = index;
    m_classFunction = m_function;
    const TSNode body = field(n, "body");
    if (!ts_node_is_null(body))
        walk(body, depth + 1);
    m_class = saved;
    m_classIndex = savedIndex;
    m_classFunction = savedClassFunction;
}

void Indexer::functionDef(TSNode n, int depth)
{
    FunctionDef fn;
    const TSNode name = field(n, "name");
    if (!ts_node_is_null(name)) {
        fn.name = text(name);
        fn.nameSpan = span(name);
        define(name);
    }
    fn.span = span(n);
    fn.decorators = std::move(m_pendingDecorators);
    m_pendingDecorators.clear();
    fn.parent = m_function;
    // A def directly in a class body is a method; one inside a method is a nested function.
    const bool method = !m_class.empty() && m_classFunction == m_function;
    if (method) {
        fn.className = m_class;
        fn.qualifiedName = m_class + "." + fn.name;
        m_out.classes[m_classIndex].methods.push_back(fn.name);
    } else if (m_function != ModuleLevel) {
        fn.qualifiedName =
            m_out.functions[static_cast<std::size_t>(m_function)].qualifiedName + "." + fn.name;
    } else {
        fn.qualifiedName = fn.name;
    }
    // Annotations and defaults are evaluated in the enclosing scope.
    const TSNode params = field(n, "parameters");
    const TSNode returns = field(n, "return_type");
    if (!ts_node_is_null(returns))
        walk(returns, depth + 1);

    const FunctionId id = static_cast<FunctionId>(m_out.functions.size());
    m_out.functions.push_back(std::move(fn));
    m_out.scopes.push_back(Scope{id, {}, {}, false});

    const FunctionId savedFunction = m_function;
    const std::string savedClass = m_class;
    const FunctionId savedClassFunction = m_classFunction;
    std::vector<Parameter> parsed;
    if (!ts_node_is_null(params))
        parameters(params, &parsed, depth + 1, id);
    m_out.functions[static_cast<std::size_t>(id)].parameters = std::move(parsed);
    m_function = id;
    m_class.clear(); // a class defined inside a function starts its own context
    const int savedConditional = m_conditional;
    m_conditional = 0; // a body runs in full as far as its own reads are concerned
    const TSNode body = field(n, "body");
    if (!ts_node_is_null(body))
        walk(body, depth + 1);
    m_conditional = savedConditional;
    m_function = savedFunction;
    m_class = savedClass;
    m_classFunction = savedClassFunction;
}

// Parameters: names go to the new function's scope, defaults and annotations to the current.
void Indexer::parameters(TSNode n, std::vector<Parameter>* out, int depth, FunctionId into)
{
    bool keywordOnly = false;
    children(n, [&](TSNode c, std::string_view) {
        const std::string_view t = type(c);
        Parameter p;
        p.span = span(c);
        p.keywordOnly = keywordOnly;
        if (t == "keyword_separator") {
            keywordOnly = true;
            return;
        }
        if (t == "list_splat_pattern") {
            p.star = 1;
            keywordOnly = true;
        } else if (t == "dictionary_splat_pattern") {
            p.star = 2;
        } else if (t == "typed_parameter") {
            children(c, [&](TSNode g, std::string_view) {
                if (type(g) == "list_splat_pattern") {
                    p.star = 1;
                    keywordOnly = true;
                } else if (type(g) == "dictionary_splat_pattern")
                    p.star = 2;
            });
        }
        TSNode nameNode{};
        bool haveName = false;
        if (t == "identifier") {
            nameNode = c;
            haveName = true;
        } else if (t == "default_parameter" || t == "typed_default_parameter") {
            nameNode = field(c, "name");
            haveName = !ts_node_is_null(nameNode);
            const TSNode value = field(c, "value");
            if (!ts_node_is_null(value)) {
                p.defaultText = shortText(value);
                walk(value, depth + 1);
            }
            const TSNode ty = field(c, "type");
            if (!ts_node_is_null(ty)) {
                p.annotation = text(ty);
                walk(ty, depth + 1);
            }
        } else if (t == "typed_parameter") {
            const TSNode ty = field(c, "type");
            if (!ts_node_is_null(ty)) {
                p.annotation = text(ty);
                walk(ty, depth + 1);
            }
            children(c, [&](TSNode g, std::string_view) {
                const std::string_view gt = type(g);
                if (gt == "identifier" && !haveName) {
                    nameNode = g;
                    haveName = true;
                } else if ((gt == "list_splat_pattern" || gt == "dictionary_splat_pattern") &&
                           ts_node_named_child_count(g) > 0) {
                    nameNode = ts_node_named_child(g, 0);
                    haveName = true;
                }
            });
        } else if (t == "list_splat_pattern" || t == "dictionary_splat_pattern") {
            if (ts_node_named_child_count(c) > 0) {
                nameNode = ts_node_named_child(c, 0);
                haveName = true;
            }
        }
        if (!haveName)
            return;
        p.name = text(nameNode);
        const FunctionId target = into == -2 ? m_function : into;
        m_out.scopes[PyIndex::scopeSlot(target)].defined.push_back({p.name, span(nameNode)});
        if (out)
            out->push_back(std::move(p));
    });
}

void Indexer::importStmt(TSNode n)
{
    const std::string_view t = type(n);
    std::string module;
    if (t == "import_from_statement") {
        const TSNode m = field(n, "module_name");
        if (!ts_node_is_null(m))
            module = text(m);
    } else if (t == "future_import_statement") {
        module = "__future__";
    }
    children(n, [&](TSNode c, std::string_view f) {
        const std::string_view ct = type(c);
        Import imp;
        imp.span = span(c);
        imp.function = m_function;
        if (ct == "wildcard_import") {
            imp.module = module;
            imp.name = "*";
            imp.span = span(n);
            scope().hasStarImport = true;
            m_out.imports.push_back(std::move(imp));
            return;
        }
        if (f == "module_name")
            return;
        if (ct == "dotted_name") {
            if (t == "import_statement")
                imp.module = text(c);
            else {
                imp.module = module;
                imp.name = text(c);
            }
        } else if (ct == "aliased_import") {
            const TSNode name = field(c, "name"), alias = field(c, "alias");
            if (ts_node_is_null(name))
                return;
            if (t == "import_statement")
                imp.module = text(name);
            else {
                imp.module = module;
                imp.name = text(name);
            }
            if (!ts_node_is_null(alias))
                imp.alias = text(alias);
        } else {
            return;
        }
        defineName(imp.boundName(), c);
        m_out.imports.push_back(std::move(imp));
    });
}

void Indexer::call(TSNode n, int depth)
{
    Call c;
    const TSNode fn = field(n, "function");
    c.span = span(n);
    c.function = m_function;
    if (!m_argStack.empty()) {
        c.parentCall = m_argStack.back().first;
        c.parentKeyword = m_argStack.back().second;
    }
    if (!ts_node_is_null(fn)) {
        c.callee = dotted(fn);
        c.calleeSpan = span(fn);
        TSNode last = fn;
        if (type(fn) == "attribute") {
            const TSNode a = field(fn, "attribute");
            if (!ts_node_is_null(a))
                last = a;
        }
        c.nameSpan = span(last);
    }
    if (!c.callee.empty())
        c.resolved = m_out.resolve(c.callee);
    const int index = static_cast<int>(m_out.calls.size());
    const TSNode args = field(n, "arguments");
    if (!ts_node_is_null(args) && type(args) == "argument_list") {
        children(args, [&](TSNode a, std::string_view) {
            if (!ts_node_is_named(a) || type(a) == "comment")
                return;
            Argument arg;
            arg.span = span(a);
            TSNode value = a;
            if (type(a) == "keyword_argument") {
                const TSNode k = field(a, "name"), v = field(a, "value");
                if (!ts_node_is_null(k))
                    arg.keyword = text(k);
                if (!ts_node_is_null(v))
                    value = v;
            }
            arg.text = shortText(value);
            arg.valueSpan = span(value);
            arg.isString = stringValue(value, arg.stringValue);
            c.arguments.push_back(std::move(arg));
        });
    }
    // get_hparam("lr") and X.get("key") / X.setdefault("key", ...) on a config mapping.
    if (!c.arguments.empty() && c.arguments[0].keyword.empty() && c.arguments[0].isString) {
        const std::string& callee = c.callee;
        if (callee == "get_hparam" || callee.ends_with(".get_hparam")) {
            m_out.hparams.push_back(
                {c.arguments[0].stringValue, c.arguments[0].valueSpan, m_function});
        } else if ((callee.ends_with(".get") || callee.ends_with(".setdefault") ||
                    callee.ends_with(".pop")) &&
                   type(fn) == "attribute") {
            std::string base;
            std::vector<std::string> keys;
            bool viaAlias = false;
            const TSNode obj = field(fn, "object");
            if (!ts_node_is_null(obj) && keyChain(obj, base, keys, viaAlias)) {
                keys.push_back(c.arguments[0].stringValue);
                // pop("k") without a default fails on a missing key, like ["k"].
                const bool optional = !callee.ends_with(".pop") || c.arguments.size() > 1;
                KeyRead k{base, std::move(keys), c.span, m_function, viaAlias, optional};
                k.conditional = m_conditional > 0;
                m_out.keyReads.push_back(std::move(k));
            }
        }
    }
    m_out.calls.push_back(std::move(c));

    if (!ts_node_is_null(fn))
        walk(fn, depth + 1);
    if (!ts_node_is_null(args)) {
        if (type(args) == "argument_list") {
            children(args, [&](TSNode a, std::string_view) {
                std::string kw;
                if (type(a) == "keyword_argument") {
                    const TSNode k = field(a, "name");
                    if (!ts_node_is_null(k))
                        kw = text(k);
                }
                m_argStack.emplace_back(index, kw);
                walk(a, depth + 1);
                m_argStack.pop_back();
            });
        } else {
            m_argStack.emplace_back(index, std::string());
            walk(args, depth + 1);
            m_argStack.pop_back();
        }
    }
}

void Indexer::attribute(TSNode n, int depth, bool inner)
{
    // Only the outermost chain of identifiers is recorded: "self.context.backward", once.
    if (!inner) {
        const std::string chain = dotted(n);
        if (!chain.empty() && chain.find('(') == std::string::npos && chain[0] != '?') {
            AttributeUse u;
            u.base = chain.substr(0, chain.find('.'));
            u.chain = chain;
            u.span = span(n);
            u.function = m_function;
            m_out.attributes.push_back(std::move(u));
        }
    }
    const TSNode obj = field(n, "object");
    if (!ts_node_is_null(obj) && type(obj) == "attribute") {
        m_nextIsObject = true;
        walk(obj, depth + 1);
    } else if (!ts_node_is_null(obj)) {
        walk(obj, depth + 1); // the attribute name itself is not a use of a variable
    }
}

void Indexer::subscript(TSNode n, int depth, bool inner)
{
    if (!inner) {
        std::string base;
        std::vector<std::string> keys;
        bool viaAlias = false;
        if (keyChain(n, base, keys, viaAlias) && !keys.empty()) {
            const bool handled = guarded(base, keys);
            m_out.keyReads.push_back(
                {base, std::move(keys), span(n), m_function, viaAlias, handled});
            m_out.keyReads.back().conditional = m_conditional > 0;
        } else {
            // params["model"][i]: keep the string prefix.
            TSNode cur = n;
            while (type(cur) == "subscript") {
                const TSNode v = field(cur, "value");
                if (ts_node_is_null(v))
                    break;
                cur = v;
                if (type(cur) == "subscript") {
                    base.clear();
                    keys.clear();
                    viaAlias = false;
                    if (keyChain(cur, base, keys, viaAlias) && !keys.empty()) {
                        const bool handled = guarded(base, keys);
                        m_out.keyReads.push_back(
                            {base, std::move(keys), span(cur), m_function, viaAlias, handled});
                        m_out.keyReads.back().conditional = m_conditional > 0;
                        break;
                    }
                }
            }
        }
    }
    const TSNode value = field(n, "value");
    children(n, [&](TSNode c, std::string_view) {
        m_nextIsObject = type(c) == "subscript" && ts_node_eq(c, value);
        walk(c, depth + 1);
    });
}

// The mapping a value is a view or a copy of: params["model"], params["model"].copy(),
// copy.deepcopy(params), dict(params["model"]).
bool Indexer::aliasSource(TSNode v, std::string& base, std::vector<std::string>& keys) const
{
    v = unwrap(v);
    bool viaAlias = false;
    if (type(v) == "subscript")
        return keyChain(v, base, keys, viaAlias) && !keys.empty();
    if (type(v) != "call")
        return false;
    const TSNode fn = field(v, "function");
    const TSNode args = field(v, "arguments");
    if (ts_node_is_null(fn) || ts_node_is_null(args))
        return false;
    if (type(fn) == "attribute" && text(field(fn, "attribute")) == "copy" &&
        ts_node_named_child_count(args) == 0) {
        const TSNode obj = unwrap(field(fn, "object"));
        return (type(obj) == "subscript" || type(obj) == "identifier" ||
                type(obj) == "attribute") &&
               keyChain(obj, base, keys, viaAlias);
    }
    const std::string f = dotted(fn);
    if ((f == "dict" || f == "deepcopy" || f == "copy.deepcopy" || f == "copy.copy") &&
        ts_node_named_child_count(args) == 1) {
        const TSNode a = unwrap(ts_node_named_child(args, 0));
        return (type(a) == "subscript" || type(a) == "identifier" || type(a) == "attribute") &&
               keyChain(a, base, keys, viaAlias);
    }
    return false;
}

void Indexer::assignment(TSNode n, int depth)
{
    const TSNode left = field(n, "left");
    const TSNode right = field(n, "right");
    // Directly in a class body: a field of the class (annotated or assigned).
    if (!m_class.empty() && m_classFunction == m_function && !ts_node_is_null(left) &&
        type(left) == "identifier" && type(n) == "assignment") {
        const TSNode annotation = field(n, "type");
        m_out.classes[m_classIndex].fields.push_back(
            {text(left), ts_node_is_null(annotation) ? std::string() : text(annotation),
             span(left)});
    }
    std::size_t assignmentIndex = m_out.assignments.size();
    if (!ts_node_is_null(left) && !ts_node_is_null(right)) {
        Assignment a{shortText(left), shortText(right), span(n), m_function};
        a.kind = valueKind(right);
        a.augmented = type(n) == "augmented_assignment";
        m_out.assignments.push_back(std::move(a));
    } else {
        assignmentIndex = std::size_t(-1);
    }
    // The value first: `x = x + 1` uses x before it binds it.
    if (!ts_node_is_null(right)) {
        const std::size_t before = m_out.calls.size();
        walk(right, depth + 1);
        if (type(unwrap(right)) == "call" && before < m_out.calls.size()) {
            if (!ts_node_is_null(left))
                m_out.calls[before].assignedTo = text(left);
            if (assignmentIndex != std::size_t(-1))
                m_out.assignments[assignmentIndex].call = static_cast<int>(before);
        }
    }
    if (!ts_node_is_null(left)) {
        if (type(n) == "augmented_assignment")
            walk(left, depth + 1);
        const std::size_t readsBefore = m_out.keyReads.size();
        target(left, depth + 1);
        // params["model"]["x"] = v provides the key rather than reading it.
        if (type(n) == "assignment")
            for (std::size_t i = readsBefore; i < m_out.keyReads.size(); ++i)
                if (m_out.keyReads[i].span.startByte == ts_node_start_byte(left) &&
                    m_out.keyReads[i].span.endByte == ts_node_end_byte(left))
                    m_out.keyReads[i].isWrite = true;
        // mp = params["model"]: later mp["depth"] reads model.depth.
        if (type(n) == "assignment" && !ts_node_is_null(right) &&
            (type(left) == "identifier" || type(left) == "attribute")) {
            std::string base;
            std::vector<std::string> keys;
            const std::string name = dotted(left);
            if (aliasSource(right, base, keys) && base != name) {
                m_aliases[aliasKey(name)] = {base, keys};
                m_out.aliases.push_back({name, base, keys, span(n), m_function});
            } else {
                m_aliases.erase(aliasKey(name));
                // mp = params["model"] if "model" in params else params: one alias per branch,
                // at the same place; reads of mp may be of either (analysis/facts_bindings).
                const TSNode v = unwrap(right);
                if (type(v) == "conditional_expression" && ts_node_named_child_count(v) == 3) {
                    std::vector<Alias> branches;
                    for (const uint32_t i : {0U, 2U}) {
                        const TSNode b = unwrap(ts_node_named_child(v, i));
                        std::string bb;
                        std::vector<std::string> bk;
                        bool via = false;
                        const bool ok = aliasSource(b, bb, bk) ||
                                        ((type(b) == "identifier" || type(b) == "attribute") &&
                                         keyChain(b, bb, bk, via));
                        if (ok && bb != name)
                            branches.push_back({name, bb, bk, span(n), m_function});
                    }
                    if (branches.size() == 2)
                        m_out.aliases.insert(m_out.aliases.end(), branches.begin(), branches.end());
                }
            }
        }
    }
    const TSNode ty = field(n, "type");
    if (!ts_node_is_null(ty))
        walk(ty, depth + 1);
}

void Indexer::returnStmt(TSNode n, int depth)
{
    Return r;
    r.span = span(n);
    r.function = m_function;
    const std::size_t callsBefore = m_out.calls.size();
    if (ts_node_named_child_count(n) > 0) {
        const TSNode v = unwrap(ts_node_named_child(n, 0));
        r.text = shortText(v);
        r.kind = valueKind(v);
        r.valueSpan = span(v);
        if (type(v) == "call") {
            r.callee = dotted(field(v, "function"));
            const TSNode args = field(v, "arguments");
            if (!ts_node_is_null(args))
                children(args, [&](TSNode a, std::string_view) {
                    if (type(a) == "keyword_argument") {
                        const TSNode k = field(a, "name");
                        if (!ts_node_is_null(k))
                            r.keywords.push_back(text(k));
                    }
                });
        }
    }
    const std::size_t index = m_out.returns.size();
    const bool isCall = r.kind == ValueKind::Call;
    m_out.returns.push_back(std::move(r));
    walkChildren(n, depth);
    if (isCall && callsBefore < m_out.calls.size())
        m_out.returns[index].call = static_cast<int>(callsBefore);
}

} // namespace portolan::python::detail
