#include "core/common/atomic_file.h"
#include "core/port/generate_internal.h"
#include "core/python/index.h"

#include <algorithm>
#include <chrono>
#include <fstream>

namespace portolan::port {

namespace detail {

namespace {

bool containsLoop(const Stmt& s, std::uint32_t loopStart)
{
    return s.start <= loopStart && loopStart < s.end;
}

} // namespace

bool isBuiltin(const std::string& name)
{
    return python::isBuiltinName(name) || name == "self" || name == "__name__" ||
           name == "__file__";
}

Slicer::Slicer(const PortPlan& plan) : m_plan(plan)
{
    m_src = plan.source(plan.entry);
    if (plan.loop)
        m_loopStart = plan.loop->loop.start;
    if (m_src && plan.loop) {
        const auto chain = m_src->chainAt(plan.loop->loop.start, plan.loop->loop.end);
        for (const Stmt* s : chain)
            if (s->type == "function_definition" || s->type == "decorated_definition")
                m_function = s;
    }
    findCallers();
    // The parser: what `args` is parsed from.
    if (m_src)
        for (const auto& f : plan.flags) {
            (void)f;
            std::function<void(const std::vector<Stmt>&)> walk = [&](const std::vector<Stmt>& v) {
                for (const auto& s : v) {
                    const std::string t = m_src->text(s.start, s.end);
                    if (m_parser.empty() && t.find("ArgumentParser(") != std::string::npos &&
                        s.defines.size() == 1 && s.type == "expression_statement")
                        m_parser = *s.defines.begin();
                    walk(s.body);
                }
            };
            walk(m_src->statements());
            break;
        }
}

void Slicer::findCallers()
{
    if (!m_src || !m_function || m_function->name.empty())
        return;
    // The parameter names, in order (self/cls excluded by position only in methods, which
    // are not batch-loop functions of a script).
    std::vector<std::string> params;
    const TSNode def = m_function->type == "decorated_definition"
                           ? ts_node_child_by_field_name(m_function->node, "definition", 10)
                           : m_function->node;
    const TSNode plist = ts_node_child_by_field_name(def, "parameters", 10);
    for (uint32_t i = 0; !ts_node_is_null(plist) && i < ts_node_named_child_count(plist); ++i) {
        const TSNode p = ts_node_named_child(plist, i);
        const std::string type = ts_node_type(p);
        TSNode nameNode = p;
        if (type != "identifier")
            nameNode = ts_node_child_by_field_name(p, "name", 4);
        if (ts_node_is_null(nameNode) && ts_node_named_child_count(p) > 0)
            nameNode = ts_node_named_child(p, 0);
        params.push_back(ts_node_is_null(nameNode) ? std::string() : m_src->text(nameNode));
    }
    std::function<void(TSNode)> walk = [&](TSNode n) {
        if (std::string_view(ts_node_type(n)) == "call") {
            const TSNode fn = ts_node_child_by_field_name(n, "function", 8);
            if (m_src->text(fn) == m_function->name) {
                Caller c;
                c.call = ts_node_start_byte(n);
                for (const Stmt* s : m_src->chainAt(ts_node_start_byte(n), ts_node_end_byte(n)))
                    if (s->type == "function_definition" || s->type == "decorated_definition")
                        c.function = s;
                const TSNode args = ts_node_child_by_field_name(n, "arguments", 9);
                std::size_t position = 0;
                for (uint32_t i = 0; i < ts_node_named_child_count(args); ++i) {
                    const TSNode a = ts_node_named_child(args, i);
                    const std::string at = ts_node_type(a);
                    if (at == "keyword_argument") {
                        const std::string k =
                            m_src->text(ts_node_child_by_field_name(a, "name", 4));
                        if (m_src->text(ts_node_child_by_field_name(a, "value", 5)) == k)
                            c.passed.insert(k);
                        continue;
                    }
                    if (at == "identifier" && position < params.size() &&
                        m_src->text(a) == params[position])
                        c.passed.insert(params[position]);
                    ++position;
                }
                if (c.function != m_function && !c.passed.empty())
                    m_callers.push_back(c);
            }
        }
        for (uint32_t i = 0; i < ts_node_named_child_count(n); ++i)
            walk(ts_node_named_child(n, i));
    };
    for (const auto& s : m_src->statements())
        walk(s.node);
}

bool Slicer::excluded(const Stmt& s) const
{
    if (s.isComment())
        return true;
    if (m_plan.loop && containsLoop(s, m_loopStart) && s.type != "function_definition" &&
        s.type != "decorated_definition")
        return true;
    if (m_function && &s == m_function)
        return true;
    if (!m_plan.argsName.empty() && s.defines.count(m_plan.argsName))
        return true;
    if (!m_parser.empty() && (s.defines.count(m_parser) || s.uses.count(m_parser)))
        return true;
    if (s.type == "if_statement" && m_src->text(s.condition).find("__name__") != std::string::npos)
        return true;
    if (s.type != "function_definition" && s.type != "decorated_definition" &&
        containsMethodCall(*m_src, s.node, "backward"))
        return true;
    return false;
}

const Stmt* Slicer::definer(const std::vector<Stmt>& scope, const std::string& name,
                            std::uint32_t before) const
{
    const Stmt* last = nullptr;
    const Stmt* first = nullptr;
    for (const auto& s : scope) {
        if (!s.defines.count(name) || excluded(s))
            continue;
        if (s.start < before)
            last = &s;
        if (!first)
            first = &s;
    }
    return last ? last : first;
}

std::vector<const Stmt*> Slicer::argparseStatements() const
{
    std::vector<const Stmt*> out;
    if (!m_src || m_parser.empty())
        return out;
    std::function<void(const std::vector<Stmt>&)> walk = [&](const std::vector<Stmt>& v) {
        for (const auto& s : v) {
            if (s.isComment())
                continue;
            if (s.type == "function_definition" || s.type == "decorated_definition" ||
                s.type == "class_definition") {
                walk(s.body);
                continue;
            }
            if (s.defines.count(m_parser) || s.uses.count(m_parser) ||
                (!m_plan.argsName.empty() && s.defines.count(m_plan.argsName) &&
                 s.uses.count(m_parser)))
                out.push_back(&s);
        }
    };
    walk(m_src->statements());
    return out;
}

Slice Slicer::slice(std::set<std::string> names, const std::set<std::string>& exclude,
                    const std::set<std::string>& forceLocal, std::uint32_t at) const
{
    Slice out;
    if (!m_src)
        return out;
    std::set<const Stmt*> local, module;
    // A name is looked up in a scope: 0 the batch loop's function, -1 the module only, k > 0
    // the k-th caller of the loop's function (for the parameters it passes under their name).
    std::set<std::pair<std::string, int>> seen;
    std::vector<std::pair<std::string, int>> work;
    int first = 0;
    for (std::size_t k = 0; at > 0 && k < m_callers.size(); ++k) {
        const Stmt* f = m_callers[k].function;
        if (f && f->start <= at && at < f->end)
            first = static_cast<int>(k) + 1;
    }
    for (const auto& n : names)
        work.emplace_back(n, first);
    while (!work.empty()) {
        const auto [name, scope] = work.back();
        work.pop_back();
        if (!seen.insert({name, scope}).second)
            continue;
        if (exclude.count(name) || isBuiltin(name) || name == m_plan.argsName ||
            m_plan.deviceNames.count(name))
            continue;
        const Stmt* s = nullptr;
        bool isLocal = false;
        int foundScope = -1;
        if (scope == 0 && m_function) {
            s = definer(m_function->body, name, m_loopStart);
            isLocal = s != nullptr;
            foundScope = 0;
            // A parameter of the loop's function: its definition is in the caller.
            for (std::size_t k = 0; !s && k < m_callers.size(); ++k) {
                const auto& c = m_callers[k];
                // The model, the optimizers and the schedulers the plan names are the training's
                // even when the caller does not pass them (a scheduler stepped per epoch).
                if ((!c.passed.count(name) && !forceLocal.count(name)) || !c.function)
                    continue;
                s = definer(c.function->body, name, c.call);
                isLocal = s != nullptr;
                foundScope = static_cast<int>(k) + 1;
            }
        } else if (scope > 0) {
            const auto& c = m_callers[static_cast<std::size_t>(scope - 1)];
            s = definer(c.function->body, name, c.call);
            isLocal = s != nullptr;
            foundScope = scope;
        }
        if (!s) {
            s = definer(m_src->statements(), name, m_function ? m_function->start : m_loopStart);
            foundScope = -1;
            isLocal = false;
        }
        if (!s) {
            out.unresolved.insert(name);
            continue;
        }
        const bool definition = s->type == "function_definition" ||
                                s->type == "decorated_definition" ||
                                s->type == "class_definition" || s->type == "import_statement" ||
                                s->type == "import_from_statement";
        if (definition && !isLocal) {
            if (module.insert(s).second)
                for (const auto& u : s->uses)
                    if (!s->defines.count(u))
                        work.emplace_back(u, -1);
            continue;
        }
        (isLocal ? local : module).insert(s);
        for (const auto& u : s->uses)
            if (!s->defines.count(u))
                work.emplace_back(u, isLocal ? foundScope : -1);
    }
    // Module-level script statements that read the flags or a local value run in the generated
    // function too; definitions stay at module level.
    bool moved = true;
    while (moved) {
        moved = false;
        std::set<std::string> localNames;
        for (const Stmt* s : local)
            localNames.insert(s->defines.begin(), s->defines.end());
        for (auto it = module.begin(); it != module.end();) {
            const Stmt* s = *it;
            const bool definition = !s->name.empty() || s->type == "import_statement" ||
                                    s->type == "import_from_statement";
            bool reads = !definition && !argsGlobal && !m_plan.argsName.empty() &&
                         s->uses.count(m_plan.argsName);
            for (const auto& d : s->defines)
                reads = reads || (!definition && forceLocal.count(d));
            for (const auto& u : s->uses)
                reads = reads || (!definition && localNames.count(u) && !s->defines.count(u));
            if (reads) {
                local.insert(s);
                it = module.erase(it);
                moved = true;
            } else {
                ++it;
            }
        }
    }
    auto byPosition = [](const Stmt* a, const Stmt* b) {
        return a->start < b->start;
    };
    out.module.assign(module.begin(), module.end());
    std::sort(out.module.begin(), out.module.end(), byPosition);
    out.local.assign(local.begin(), local.end());
    std::sort(out.local.begin(), out.local.end(), byPosition);
    for (const Stmt* s : out.local)
        out.localDefines.insert(s->defines.begin(), s->defines.end());
    for (const Stmt* s : out.module)
        if (!m_plan.argsName.empty() && s->uses.count(m_plan.argsName))
            out.argsUsers.push_back(s);
    return out;
}

std::string Slicer::moduleText(const std::vector<const Stmt*>& extra, const RenderRules& rules,
                               bool keepArgparse) const
{
    std::string out;
    if (!m_src)
        return out;
    std::set<const Stmt*> done;
    for (const auto& s : m_src->statements()) {
        if (s.type != "import_statement" && s.type != "import_from_statement" &&
            s.type != "future_import_statement")
            continue;
        const std::string t = m_src->text(s.start, s.end);
        if (!keepArgparse && t.find("argparse") != std::string::npos)
            continue;
        out += t + "\n";
        done.insert(&s);
    }
    out += "\n";
    for (const Stmt* s : extra) {
        if (done.count(s))
            continue;
        RenderRules r = rules;
        out += "\n" + renderStatements(*m_src, {s}, r, "", &m_src->statements());
        if (!s->name.empty())
            out += "\n";
    }
    return out;
}

std::vector<const Stmt*> Slicer::statements(const std::vector<CodeRef>& refs) const
{
    std::vector<const Stmt*> out;
    for (const auto& r : refs)
        if (const Stmt* s = statementAt(r))
            out.push_back(s);
    return out;
}

const Stmt* Slicer::statementAt(const CodeRef& ref) const
{
    if (!m_src || !ref.valid())
        return nullptr;
    const auto chain = m_src->chainAt(ref.start, ref.end);
    for (const Stmt* s : chain)
        if (s->start == ref.start && s->end == ref.end)
            return s;
    return nullptr;
}

std::set<std::string> Slicer::freeNames(const std::vector<const Stmt*>& stmts) const
{
    std::set<std::string> defined, out;
    for (const Stmt* s : stmts) {
        for (const auto& u : s->uses)
            if (!defined.count(u))
                out.insert(u);
        defined.insert(s->defines.begin(), s->defines.end());
    }
    return out;
}

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
        // YAML 1.1 (PyYAML, Determined) reads `1e-4` as a string: a float needs its dot.
        const auto e = python.find_first_of("eE");
        if (e != std::string::npos && python.find('.') == std::string::npos)
            return python.substr(0, e) + ".0" + python.substr(e);
        return python;
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

} // namespace

std::map<std::string, Hyper> hyperparameters(const PortPlan& plan,
                                             const std::map<std::string, std::string>& values)
{
    std::map<std::string, Hyper> out;
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
        for (const auto& o : f.options) {
            const auto it = values.find(o);
            if (it == values.end())
                continue;
            const std::string v = it->second;
            if (f.action == "store_true")
                h.value = "true";
            else if (f.action == "store_false")
                h.value = "false";
            else if (f.type == "int" || f.type == "float")
                h.value = v;
            else
                h.value = "\"" + v + "\"";
        }
        h.type = annotationOf(f, h.value);
        out[f.dest] = h;
    }
    return out;
}

std::string header(const PortPlan& plan, const std::string& what)
{
    return "# " + what + "\n# Generated by Portolan from " + plan.entry +
           ": the model, loss, optimizer and data code are\n# copied from the original; "
           "`TODO(portolan)` marks what could not be placed.\n";
}

std::string todo(const std::string& indent, const std::string& what)
{
    return indent + "# TODO(portolan): " + what + "\n";
}

std::string indentText(const std::string& text, const std::string& indent)
{
    return reindent(text, 0, indent);
}

void copyOtherFiles(const PortPlan& plan, PortResult& out, const std::set<std::string>& skip)
{
    for (const auto& [path, src] : plan.sources) {
        if (path == plan.entry || skip.count(path))
            continue;
        out.files.push_back(GeneratedFile{path, path, src->text()});
    }
}

std::string lossName(const PortPlan& plan)
{
    if (!plan.loop)
        return "loss";
    const std::string& n = plan.loop->lossName;
    return n.empty() || n.find_first_of("().[] ") != std::string::npos ? "loss" : n;
}

} // namespace detail

std::vector<std::string> portTargets()
{
    return {"determined-pytorchtrial", "graphcore-poptorch", "cerebras-trainer", "cerebras-cstorch",
            "cerebras-pytorch"};
}

std::string targetGuide(const std::string& to, const std::string& api, std::string* apiOut)
{
    std::string a = api;
    std::string guide;
    if (to == "determined" || to == "determined-pytorchtrial")
        guide = "determined-pytorchtrial";
    else if (to == "poptorch" || to == "graphcore" || to == "graphcore-poptorch")
        guide = "graphcore-poptorch";
    else if (to == "cerebras") {
        if (a.empty())
            a = "trainer";
        guide = a == "runner" ? "cerebras-pytorch" : "cerebras-" + a;
    } else if (to == "cerebras-trainer") {
        guide = to;
        a = "trainer";
    } else if (to == "cerebras-cstorch") {
        guide = to;
        a = "cstorch";
    } else if (to == "cerebras-pytorch") {
        if (a.empty())
            a = "runner";
        guide = a == "runner" ? "cerebras-pytorch" : "cerebras-" + a;
    }
    if (!guide.starts_with("cerebras"))
        a.clear();
    if (apiOut)
        *apiOut = a;
    return guide;
}

Result<PortResult> generatePort(const PortPlan& plan, const std::string& target,
                                const std::string& api,
                                const std::map<std::string, std::string>& values)
{
    const auto t0 = std::chrono::steady_clock::now();
    std::string a;
    const std::string guide = targetGuide(target, api, &a);
    Result<PortResult> r;
    if (guide == "determined-pytorchtrial")
        r = detail::generateDetermined(plan, values);
    else if (guide == "graphcore-poptorch")
        r = detail::generatePopTorch(plan, values);
    else if (guide.starts_with("cerebras-"))
        r = detail::generateCerebras(plan, a, values);
    else {
        Diagnostic d;
        d.code = "port.target";
        d.message = "unknown target `" + target +
                    "`: determined-pytorchtrial, graphcore-poptorch, cerebras-trainer, "
                    "cerebras-cstorch or cerebras-pytorch (--api runner)";
        return Result<PortResult>::fail(d);
    }
    if (r) {
        r.value->target = guide;
        r.value->api = a;
        // The plan's own manual items come first. They are about code the port does not move
        // (a conditional step, an annealed rate): each is named by a TODO(portolan) under the
        // docstring of the file that holds the training step, with its place in the original.
        if (!plan.manual.empty() && !r.value->files.empty()) {
            auto& main = r.value->files.front();
            std::string todos;
            for (const auto& m : plan.manual)
                todos += detail::todo("", m.message + " (" + m.location.file + ":" +
                                              std::to_string(m.location.line) + ")");
            std::size_t at = 0;
            if (main.text.starts_with("\"\"\"")) {
                const auto close = main.text.find("\"\"\"\n", 3);
                at = close == std::string::npos ? 0 : close + 4;
            }
            main.text.insert(at, todos);
        }
        auto manual = plan.manual;
        manual.insert(manual.end(), r.value->manual.begin(), r.value->manual.end());
        r.value->manual = std::move(manual);
        r.value->notes.insert(r.value->notes.begin(), plan.notes.begin(), plan.notes.end());
        if (plan.loop && !plan.train.isDataLoader && plan.loop->bodyLine > 0)
            r.value->originalStepStart = plan.entry + ":" + std::to_string(plan.loop->bodyLine);
        r.value->generateMs =
            std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - t0)
                .count();
    }
    return r;
}

std::optional<Diagnostic> writePort(const PortResult& port, const std::filesystem::path& out)
{
    namespace fs = std::filesystem;
    std::error_code ec;
    Diagnostic d;
    d.code = "port.output";
    d.location.file = out.string();
    if (fs::exists(out, ec)) {
        if (!fs::is_directory(out, ec) || !fs::is_empty(out, ec)) {
            d.message = "the output folder exists and is not empty: give a new folder";
            return d;
        }
    }
    fs::create_directories(out, ec);
    if (ec) {
        d.message = "cannot create the output folder: " + ec.message();
        return d;
    }
    for (const auto& f : port.files) {
        const fs::path p = out / f.path;
        fs::create_directories(p.parent_path(), ec);
        std::ofstream s(p, std::ios::binary);
        s << f.text;
        if (!s) {
            d.message = "cannot write " + p.string();
            return d;
        }
    }
    return std::nullopt;
}

} // namespace portolan::port

namespace portolan::port::detail {

std::set<std::string> identifiersOf(const std::string& text)
{
    std::set<std::string> out;
    std::size_t i = 0;
    while (i < text.size()) {
        const char c = text[i];
        if (c == '"' || c == '\'') {
            const auto e = text.find(c, i + 1);
            i = e == std::string::npos ? text.size() : e + 1;
            continue;
        }
        if (std::isalpha(static_cast<unsigned char>(c)) || c == '_') {
            std::size_t j = i;
            while (j < text.size() &&
                   (std::isalnum(static_cast<unsigned char>(text[j])) || text[j] == '_'))
                ++j;
            const bool attribute = i > 0 && text[i - 1] == '.';
            if (!attribute)
                out.insert(text.substr(i, j - i));
            i = j;
            continue;
        }
        ++i;
    }
    return out;
}

std::string renderLocal(const Slicer& slicer, const std::vector<const Stmt*>& stmts,
                        const RenderRules& rules, const std::string& indent)
{
    std::string out;
    const auto& src = slicer.source();
    const auto& top = src.statements();
    for (const Stmt* s : stmts) {
        const std::vector<Stmt>* siblings = &top;
        const auto chain = src.chainAt(s->start, s->end);
        if (chain.size() >= 2)
            siblings = &chain[chain.size() - 2]->body;
        bool inSiblings = false;
        for (const auto& x : *siblings)
            inSiblings = inSiblings || &x == s;
        out += renderStatements(src, {s}, rules, indent, inSiblings ? siblings : nullptr);
    }
    return out;
}

StepCode stepCode(const PortPlan& plan, const Slicer& slicer, bool withOptimizers, bool argsGlobal)
{
    StepCode sc;
    if (!plan.loop)
        return sc;
    const auto& lp = *plan.loop;
    sc.forward = slicer.statements(lp.forward);
    // Between backward and the step, only what works on the gradients stays (clipping); the
    // rest is bookkeeping (running sums for logging).
    for (const Stmt* s : slicer.statements(lp.betweenBackwardAndStep)) {
        bool grads = s->uses.count(plan.modelVariable) || s->uses.count(plan.modelBinding);
        for (const auto& o : plan.optimizers)
            grads = grads || s->uses.count(o.variable);
        if (grads)
            sc.between.push_back(s);
    }
    sc.batchNames.insert(lp.batchNames.begin(), lp.batchNames.end());
    if (!lp.indexName.empty())
        sc.batchNames.insert(lp.indexName);
    std::vector<const Stmt*> all = sc.forward;
    all.insert(all.end(), sc.between.begin(), sc.between.end());
    for (const auto& n : slicer.freeNames(all))
        if (!sc.batchNames.count(n))
            sc.bodyFree.insert(n);
    std::set<std::string> wanted = sc.bodyFree;
    if (!plan.modelBinding.empty())
        wanted.insert(plan.modelBinding);
    if (!plan.criterionVariable.empty())
        wanted.insert(plan.criterionVariable);
    if (withOptimizers) {
        for (const auto& o : plan.optimizers) {
            if (!o.synthesized)
                wanted.insert(o.variable);
            else
                for (const auto& n : identifiersOf(o.learningRate))
                    wanted.insert(n);
        }
        for (const auto& s : plan.schedulers)
            wanted.insert(s.variable);
    }
    std::set<std::string> force;
    if (!plan.modelBinding.empty())
        force.insert(plan.modelBinding);
    if (!plan.criterionVariable.empty())
        force.insert(plan.criterionVariable);
    for (const auto& o : plan.optimizers)
        force.insert(o.variable);
    for (const auto& s : plan.schedulers)
        force.insert(s.variable);
    Slicer& mutableSlicer = const_cast<Slicer&>(slicer);
    const bool before = mutableSlicer.argsGlobal;
    mutableSlicer.argsGlobal = argsGlobal;
    sc.init = slicer.slice(wanted, sc.batchNames, force);
    mutableSlicer.argsGlobal = before;
    if (!plan.modelVariable.empty())
        sc.rename[plan.modelVariable] = "self.model";
    if (!plan.modelBinding.empty())
        sc.rename[plan.modelBinding] = "self.model";
    for (const auto& o : plan.optimizers)
        sc.rename[o.variable] = "self." + o.variable;
    for (const auto& n : sc.bodyFree) {
        if (sc.rename.count(n) || !sc.init.localDefines.count(n))
            continue;
        sc.rename[n] = "self." + n;
        sc.attributes.push_back(n);
    }
    return sc;
}

DataCode dataCode(const PortPlan& plan, const Slicer& slicer, const DataPlan& data,
                  const RenderRules& rules, const std::string& indent)
{
    DataCode dc;
    if (!data.isDataLoader || !data.dataset.valid())
        return dc;
    const auto& src = slicer.source();
    const TSNode ds = src.nodeAt(data.dataset.start, data.dataset.end);
    std::set<std::string> names = usedNames(src, ds);
    for (const auto& [k, v] : data.keywords)
        for (const auto& n : identifiersOf(v))
            names.insert(n);
    // Read where the loader is built (the caller of the loop's function, for a loader passed in).
    const Slice sl = slicer.slice(names, {}, {}, data.construction.start);
    dc.module = sl.module;
    dc.statements = renderLocal(slicer, sl.local, rules, indent);
    dc.dataset = render(src, ds, rules);
    // Keyword values are rendered from their text (they are not statements).
    for (const auto& [k, v] : data.keywords) {
        if (k == "num_workers" || k == "pin_memory" || k == "persistent_workers" ||
            k == "prefetch_factor")
            continue;
        std::string value = v;
        if (!plan.argsName.empty() && rules.flag) {
            const std::string prefix = plan.argsName + ".";
            std::size_t at = 0;
            while ((at = value.find(prefix, at)) != std::string::npos) {
                std::size_t e = at + prefix.size();
                while (e < value.size() &&
                       (std::isalnum(static_cast<unsigned char>(value[e])) || value[e] == '_'))
                    ++e;
                const std::string rep =
                    rules.flag(value.substr(at + prefix.size(), e - at - prefix.size()));
                value.replace(at, e - at, rep);
                at += rep.size();
            }
        }
        dc.keywords.emplace_back(k, value);
    }
    dc.ok = true;
    return dc;
}

DataCode loopValuesCode(const PortPlan& plan, const Slicer& slicer, const RenderRules& rules,
                        const std::string& indent)
{
    DataCode dc;
    if (!plan.loop || plan.train.isDataLoader)
        return dc;
    const Stmt* loop = slicer.statementAt(plan.loop->loop);
    if (!loop || loop->type != "for_statement")
        return dc;
    const auto& src = slicer.source();
    TSNode iter = loop->forIter;
    if (std::string_view(ts_node_type(iter)) == "call" &&
        src.text(ts_node_child_by_field_name(iter, "function", 8)) == "enumerate") {
        const TSNode args = ts_node_child_by_field_name(iter, "arguments", 9);
        if (ts_node_named_child_count(args) < 1)
            return dc;
        iter = ts_node_named_child(args, 0);
    }
    const Slice sl = slicer.slice(usedNames(src, iter), {});
    dc.module = sl.module;
    dc.statements = renderLocal(slicer, sl.local, rules, indent);
    dc.dataset = "LoopValues(lambda: " + render(src, iter, rules) + ")";
    dc.keywords.emplace_back("collate_fn", "one_value");
    dc.ok = true;
    return dc;
}

guides::Finding nonLoaderManual(const PortPlan& plan)
{
    return manualFinding("the training batches come from `" + plan.loop->iterable +
                             "`, not from a torch DataLoader: the target's data loader must be "
                             "written by hand",
                         plan.loop->loop, "wrap the batches in a torch.utils.data.Dataset");
}

std::string loopValuesHelpers()
{
    return R"(

class LoopValues(torch.utils.data.IterableDataset):
    """The values the original's training loop ran over, one per step (Portolan): each step
    builds its batch from its value, as the original's loop body did."""

    def __init__(self, make, limit=None):
        super().__init__()
        self.make = make
        self.limit = limit

    def __iter__(self):
        values = iter(self.make())
        return values if self.limit is None else itertools.islice(values, self.limit)


def one_value(values):
    """A batch is one value of the original's loop (global_batch_size 1)."""
    return values[0]
)";
}

} // namespace portolan::port::detail

namespace portolan::port::detail {

void addUntraced(const PortPlan& plan, const StepCode& sc, PortResult& out)
{
    std::set<std::string> needed = sc.bodyFree;
    if (!plan.modelBinding.empty())
        needed.insert(plan.modelBinding);
    for (const auto& o : plan.optimizers)
        if (!o.synthesized)
            needed.insert(o.variable);
    if (!plan.criterionVariable.empty())
        needed.insert(plan.criterionVariable);
    std::set<std::string> stepDefines{lossName(plan)};
    for (const auto* list : {&sc.forward, &sc.between})
        for (const Stmt* st : *list)
            stepDefines.insert(st->defines.begin(), st->defines.end());
    for (const auto& n : sc.init.unresolved) {
        if (!needed.count(n) || sc.init.localDefines.count(n) || stepDefines.count(n) ||
            sc.batchNames.count(n) || n == plan.argsName || plan.deviceNames.count(n))
            continue;
        out.manual.push_back(manualFinding(
            "`" + n +
                "` is needed by the port but its definition could not be moved (it is "
                "defined in another function, or nowhere the plan can see)",
            plan.loop ? plan.loop->loop : CodeRef{}, "define `" + n + "` where the port uses it"));
    }
}

std::string splitFutures(std::string& module)
{
    std::string futures, rest;
    std::size_t at = 0;
    while (at < module.size()) {
        auto e = module.find('\n', at);
        if (e == std::string::npos)
            e = module.size();
        const std::string line = module.substr(at, e - at);
        (line.starts_with("from __future__") ? futures : rest) += line + "\n";
        at = e + 1;
    }
    module = rest;
    return futures;
}

} // namespace portolan::port::detail
