// A trainer class that builds its own state (issue 24, D4): `self.model = Net()`,
// `self.optimizer = optim.SGD(self.model.parameters(), lr=lr)`, `self.loader = DataLoader(...)`
// in `__init__`, the batch loop in another method. Each attribute the constructor assigns is
// read as a name of the constructor's scope (`self.model` -> `model`), and the constructor is
// one more caller of the loop's method: the slicer finds the attribute's definition there, as
// it finds a value a script's main() hands to train(). The constructor's parameters take the
// instantiation's argument (a literal or a flag) or their default.
#include "core/port/plan_internal.h"

#include <algorithm>
#include <functional>

namespace portolan::port::planning {

namespace {

// `self.x` (x an attribute the constructor builds) in a subtree: x, for each read; `self.x = ...`
// targets are collected apart, as definitions.
void selfNames(const SourceFile& src, TSNode n, const std::set<std::string>& built,
               std::set<std::string>& uses)
{
    if (ts_node_is_null(n))
        return;
    const std::string_view t = nodeType(n);
    if (t == "function_definition" || t == "lambda" || t == "class_definition")
        return;
    if (t == "attribute" && src.text(fieldOf(n, "object")) == "self") {
        const std::string a = src.text(fieldOf(n, "attribute"));
        if (built.count(a))
            uses.insert(a);
        return;
    }
    for (uint32_t i = 0; i < ts_node_named_child_count(n); ++i)
        selfNames(src, ts_node_named_child(n, i), built, uses);
}

// The attribute an assignment statement `self.x = ...` binds, "" when it binds no attribute of
// self.
std::string selfTarget(const SourceFile& src, const Stmt& s)
{
    const TSNode a = ts_node_named_child(s.node, 0);
    if (s.type != "expression_statement" ||
        (nodeType(a) != "assignment" && nodeType(a) != "augmented_assignment"))
        return {};
    const TSNode left = fieldOf(a, "left");
    if (nodeType(left) != "attribute" || src.text(fieldOf(left, "object")) != "self")
        return {};
    return src.text(fieldOf(left, "attribute"));
}

void eachStatement(std::vector<Stmt>& stmts, const std::function<void(Stmt&)>& f)
{
    for (auto& s : stmts) {
        if (s.isComment() || s.type == "function_definition" || s.type == "decorated_definition" ||
            s.type == "class_definition")
            continue;
        f(s);
        eachStatement(s.body, f);
        eachStatement(s.other, f);
    }
}

// A method that takes only self and only returns an expression (`def configure_optimizers(self):
// return optim.SGD(...)`): the returned expression's node, else a null node.
TSNode returnedExpression(const Stmt& method)
{
    const Stmt* only = nullptr;
    for (const auto& s : method.body) {
        if (s.isComment() || (s.type == "expression_statement" &&
                              nodeType(ts_node_named_child(s.node, 0)) == "string"))
            continue;
        if (only)
            return TSNode{};
        only = &s;
    }
    const TSNode params = fieldOf(method.node, "parameters");
    if (!only || only->type != "return_statement" || ts_node_named_child_count(params) != 1)
        return TSNode{};
    return ts_node_named_child(only->node, 0);
}

// A literal or a flag (`args.lr`): a value the constructor's code can be given as text.
bool valueText(const std::string& argsName, const std::string& v)
{
    const bool flag = !argsName.empty() && v.starts_with(argsName + ".") &&
                      v.find_first_of("()[] ") == std::string::npos;
    const bool literal =
        !v.empty() && (std::isdigit(static_cast<unsigned char>(v[0])) || v[0] == '"' ||
                       v[0] == '\'' || v[0] == '-' || v == "True" || v == "False" || v == "None");
    return flag || literal;
}

bool isIdentifier(const std::string& v)
{
    return !v.empty() && !std::isdigit(static_cast<unsigned char>(v[0])) &&
           std::all_of(v.begin(), v.end(), [](char c) {
               return std::isalnum(static_cast<unsigned char>(c)) || c == '_';
           });
}

} // namespace

// `self.x = self.m()` in the constructor, m a method of the class that only returns an
// expression: the call reads what the expression reads, and an optimizer the expression builds
// is the optimizer `x`.
void Planner::bindSelfCalls(const Stmt& cls, Stmt& s, const std::set<std::string>& built)
{
    const auto& file = *m_p.sources.at(m_p.entry);
    const TSNode a = ts_node_named_child(s.node, 0);
    const std::string target = selfTarget(file, s);
    const TSNode call = nodeType(a) == "assignment" ? fieldOf(a, "right") : TSNode{};
    if (target.empty() || nodeType(call) != "call" ||
        ts_node_named_child_count(fieldOf(call, "arguments")) != 0)
        return;
    const TSNode callee = fieldOf(call, "function");
    if (nodeType(callee) != "attribute" || file.text(fieldOf(callee, "object")) != "self")
        return;
    const std::string name = file.text(fieldOf(callee, "attribute"));
    for (const auto& m : cls.body) {
        if (m.type != "function_definition" || m.name != name)
            continue;
        const TSNode e = returnedExpression(m);
        if (ts_node_is_null(e))
            return;
        const auto uses = usedNames(file, e);
        s.uses.insert(uses.begin(), uses.end());
        s.uses.erase("self");
        selfNames(file, e, built, s.uses);
        const CodeRef expression =
            refOf(m_p.entry, src(), ts_node_start_byte(e), ts_node_end_byte(e),
                  static_cast<int>(ts_node_start_point(e).row) + 1,
                  static_cast<int>(ts_node_start_point(e).column));
        m_p.loop->initCalls.emplace_back(refOf(m_p.entry, src(), ts_node_start_byte(call),
                                               ts_node_end_byte(call), s.line,
                                               static_cast<int>(ts_node_start_point(call).column)),
                                         expression);
        for (const auto& c : idx().calls) {
            const std::string q = resolvedName(c);
            if (c.span.startByte != expression.start || c.span.endByte != expression.end ||
                !q.starts_with("torch.optim.") || q.starts_with("torch.optim.lr_scheduler.") ||
                !std::isupper(static_cast<unsigned char>(lastPart(q)[0])))
                continue;
            OptimizerPlan o;
            o.variable = target;
            o.qualified = q;
            o.construction = refOf(m_p.entry, src(), c.span);
            o.statement = refOf(m_p.entry, src(), s);
            m_p.optimizers.push_back(o);
        }
        return;
    }
}

void Planner::bindSelfBuilt(const Stmt& cls, const Stmt& init, const Call* instance)
{
    auto& lp = *m_p.loop;
    // A module that trains itself (`class Layer(nn.Module)` whose optimizer takes
    // `self.parameters()`) is a model, not a trainer: its attributes are its layers.
    const std::string bases = src().text(fieldOf(cls.node, "superclasses"));
    if (bases.find("Module") != std::string::npos ||
        src().text(init.start, init.end).find("self.parameters()") != std::string::npos)
        return;
    // The attributes the constructor assigns at its top level or in its blocks.
    std::set<std::string> built;
    std::function<void(const std::vector<Stmt>&)> collect = [&](const std::vector<Stmt>& v) {
        for (const auto& s : v) {
            if (const std::string a = selfTarget(src(), s); !a.empty())
                built.insert(a);
            if (s.type != "function_definition" && s.type != "class_definition") {
                collect(s.body);
                collect(s.other);
            }
        }
    };
    collect(init.body);
    // An attribute stored from a parameter the caller gives a value it builds (`self.model =
    // model` in `Trainer(model, loader)`) is the attribute's name for the caller's value: the
    // constructor reads the caller's name (looked up where the instance is made), and the
    // binding itself is no statement of the port.
    std::map<std::string, std::string> handed;
    for (const auto& [attribute, arg] : lp.selfArguments)
        if (isIdentifier(arg) && !valueText(m_p.argsName, arg)) {
            handed[attribute] = arg;
            built.erase(attribute);
        }
    std::set<std::string> handedNames;
    for (const auto& [attribute, arg] : handed)
        handedNames.insert(attribute);
    // The constructor's statements as statements of a function whose locals are the attributes:
    // `self.model = Net()` defines `model`, `SGD(self.model.parameters())` uses it. Only the
    // constructor: the loop's method reads them through LoopPlan::selfArguments.
    auto& file = *m_p.sources.at(m_p.entry);
    for (auto& c : file.mutableStatements()) {
        if (c.start != cls.start)
            continue;
        for (auto& m : c.body) {
            if (m.start != init.start)
                continue;
            eachStatement(m.body, [&](Stmt& s) {
                const std::string a = selfTarget(file, s);
                if (handed.count(a)) {
                    s.defines.clear();
                    s.uses.clear();
                    return;
                }
                if (!a.empty())
                    s.defines.insert(a);
                selfNames(file, s.node, built, s.uses);
                std::set<std::string> reads;
                selfNames(file, s.node, handedNames, reads);
                for (const auto& r : reads)
                    s.uses.insert(handed.at(r));
                s.uses.erase("self");
                bindSelfCalls(c, s, built);
            });
        }
    }
    const FunctionId initFn = functionAt(init.body.back().start);
    const auto* def = idx().function(initFn);
    if (!def || built.empty())
        return;
    m_initFunction = initFn;
    lp.selfBuilt = built;
    // One the instantiation gives a literal or a flag is that value (LoopPlan::initValues).
    for (const auto& [attribute, arg] : lp.selfArguments)
        lp.selfBuilt.erase(attribute);
    lp.selfInit = refOf(m_p.entry, src(), init);
    for (const auto& a : built)
        if (!lp.selfArguments.count(a))
            lp.selfArguments[a] = a;
    // The parameters' values: a literal or a flag the instantiation passes, else the default.
    std::map<std::string, std::string> passed;
    if (const auto given = instance ? boundArguments(*instance, *def) : std::nullopt)
        for (const auto& [param, value] : given->given)
            passed[param] = value.text;
    for (std::size_t i = 1; i < def->parameters.size(); ++i) {
        const auto& p = def->parameters[i];
        const auto it = passed.find(p.name);
        if (it != passed.end()) {
            if (valueText(m_p.argsName, it->second))
                lp.initValues[p.name] = it->second;
        } else if (p.hasDefault()) {
            lp.initValues[p.name] = p.defaultText;
        }
    }
    // The optimizers and schedulers the constructor assigns to attributes are named by them.
    for (auto& o : m_p.optimizers)
        if (o.variable.starts_with("self.") && built.count(o.variable.substr(5)))
            o.variable = o.variable.substr(5);
    for (auto& s : m_p.schedulers)
        if (s.variable.starts_with("self.") && built.count(s.variable.substr(5)))
            s.variable = s.variable.substr(5);
}

// A loader the constructor builds reads its parameters (`batch_size=batch_size`): their values,
// as the loader's arguments are written by every target.
void Planner::constructorValues(DataPlan& out, FunctionId fn) const
{
    if (!m_p.loop || fn != m_initFunction || m_initFunction == ModuleLevel)
        return;
    const auto& values = m_p.loop->initValues;
    if (const auto it = values.find(out.batchSize); it != values.end())
        out.batchSize = it->second;
    for (auto& [keyword, value] : out.keywords)
        if (const auto it = values.find(value); it != values.end())
            value = it->second;
}

// Does a statement of the class read `self.<attribute>`, an attribute the constructor builds (an
// evaluation loop in another method that calls `self.model`)?
bool Planner::readsSelfBuilt(const Stmt& s, const std::string& attribute) const
{
    if (!m_p.loop || !m_p.loop->selfBuilt.count(attribute))
        return false;
    std::set<std::string> reads;
    selfNames(src(), s.node, m_p.loop->selfBuilt, reads);
    return reads.count(attribute) > 0;
}

// `self.x = ...` in the constructor, for an attribute x it builds: its assignment.
const Assignment* Planner::selfBuiltAssignment(const std::string& name) const
{
    if (!m_p.loop || m_initFunction == ModuleLevel)
        return nullptr;
    std::string attribute = name.starts_with("self.") ? name.substr(5) : name;
    if (!m_p.loop->selfBuilt.count(attribute))
        return nullptr;
    for (const auto& a : idx().assignments)
        if (a.function == m_initFunction && a.target == "self." + attribute && !a.augmented)
            return &a;
    return nullptr;
}

} // namespace portolan::port::planning
