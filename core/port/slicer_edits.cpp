// What runs with a value after the statement that binds it, in the same scope: the edits of a
// model (mutators) and the statements that fill a container (fillers). Without them the port
// would build the unedited model, or train on the empty value.
#include "core/port/generate_internal.h"

#include <algorithm>
#include <functional>

namespace portolan::port::detail {

namespace {

// The statements of `scope` after `definer`, comments left out, up to the first one `ends` holds
// for: what runs with a value after its binding.
template <typename Ends>
std::vector<const Stmt*> following(const std::vector<Stmt>& scope, const Stmt& definer, Ends ends)
{
    std::vector<const Stmt*> out;
    bool after = false;
    for (const auto& x : scope) {
        if (&x == &definer) {
            after = true;
            continue;
        }
        if (!after || x.isComment())
            continue;
        if (ends(x))
            break;
        out.push_back(&x);
    }
    return out;
}

// The name a chain of attributes, items and calls starts from: `net` for `net.body[1].weight`
// and for `net.head.parameters()`; "" when it starts from something else.
std::string chainRoot(const SourceFile& src, TSNode n)
{
    while (!ts_node_is_null(n)) {
        const std::string_view t = ts_node_type(n);
        if (t == "identifier")
            return src.text(n);
        if (t == "attribute")
            n = ts_node_child_by_field_name(n, "object", 6);
        else if (t == "subscript")
            n = ts_node_child_by_field_name(n, "value", 5);
        else if (t == "call")
            n = ts_node_child_by_field_name(n, "function", 8);
        else
            break;
    }
    return {};
}

} // namespace

// Does `s` change the object bound to `name` without rebinding the name? A method called on it
// or on a part of it (`net.apply(init)`, `net.head.reset_parameters()`), a part of it assigned
// (`net.head = nn.Linear(...)`, `net.body[1] = Passthrough()`), or a loop over what it yields
// whose body only edits each item, under conditions or not (`for p in net.parameters():
// p.requires_grad = False`): the forms a fine-tuning script freezes and replaces parts with.
bool Slicer::editsInPlace(const Stmt& s, const std::string& name) const
{
    if (name.empty())
        return false;
    if (s.type == "for_statement") {
        if (chainRoot(*m_src, s.forIter) != name || s.defines.empty() || !s.other.empty())
            return false;
        const std::function<bool(const std::vector<Stmt>&)> editsItems =
            [&](const std::vector<Stmt>& block) {
                return std::all_of(block.begin(), block.end(), [&](const Stmt& b) {
                    if (b.isComment())
                        return true;
                    if (b.type == "if_statement")
                        return editsItems(b.body) && editsItems(b.other);
                    return std::any_of(s.defines.begin(), s.defines.end(),
                                       [&](const std::string& item) {
                                           return b.defines.empty() && editsInPlace(b, item);
                                       });
                });
            };
        return editsItems(s.body);
    }
    if (s.type != "expression_statement")
        return false;
    const TSNode e = ts_node_named_child(s.node, 0);
    const std::string_view t = ts_node_type(e);
    if (t == "call") {
        const TSNode fn = ts_node_child_by_field_name(e, "function", 8);
        return std::string_view(ts_node_type(fn)) == "attribute" &&
               chainRoot(*m_src, ts_node_child_by_field_name(fn, "object", 6)) == name;
    }
    if (t == "assignment" || t == "augmented_assignment") {
        const TSNode left = ts_node_child_by_field_name(e, "left", 4);
        const std::string_view lt = ts_node_type(left);
        return (lt == "attribute" || lt == "subscript") && chainRoot(*m_src, left) == name;
    }
    return false;
}

// What the original does to a model (or optimizer) right after building it, in the same scope:
// `netG.apply(weights_init)`, `seq.double()`, a part replaced or frozen (editsInPlace). Such an
// edit changes the weights, their type or which of them train, so it moves with the
// construction. Device moves and mode switches are the target's; a rebinding of the name or the
// loop ends the search.
std::vector<const Stmt*> Slicer::mutators(const Stmt& definer, const std::string& name) const
{
    std::vector<const Stmt*> out;
    const auto chain = m_src->chainAt(definer.start, definer.end);
    const std::vector<Stmt>& scope =
        chain.size() >= 2 ? chain[chain.size() - 2]->body : m_src->statements();
    // share_memory(): the weights shared by the processes of a Hogwild launch; the port trains
    // one process.
    static const std::set<std::string> targets{
        "to", "cuda", "cpu", "train", "eval", "zero_grad", "step", "backward", "share_memory"};
    // The statement that runs the training (`final = fit(net, loader)`) ends the set-up too:
    // what is done to the model after it (`net.save(name)`) is the script's leftovers.
    const auto runsTraining = [&](const Stmt& x) {
        if (m_trainingStart && x.start == m_trainingStart)
            return true;
        return std::any_of(m_callers.begin(), m_callers.begin() + static_cast<long>(m_calls),
                           [&](const Caller& c) { return x.start <= c.call && c.call < x.end; });
    };
    const auto ends = [&](const Stmt& x) {
        return x.defines.count(name) || holdsLoop(x) || (m_function && &x == m_function) ||
               x.type == "function_definition" || x.type == "class_definition" ||
               x.type == "decorated_definition" || runsTraining(x);
    };
    for (const Stmt* at : following(scope, definer, ends)) {
        const Stmt& x = *at;
        if ((x.type == "expression_statement" && !x.defines.empty()) || excluded(x) ||
            !editsInPlace(x, name))
            continue;
        const TSNode call = ts_node_named_child(x.node, 0);
        const TSNode fn =
            x.type == "expression_statement" && std::string_view(ts_node_type(call)) == "call"
                ? ts_node_child_by_field_name(call, "function", 8)
                : TSNode{};
        if (ts_node_is_null(fn) ||
            !targets.count(m_src->text(ts_node_child_by_field_name(fn, "attribute", 9))))
            out.push_back(&x);
    }
    return out;
}

// Does `node` write into `name` in place: `name.append(...)` (and extend, insert, update, add,
// setdefault) or `name[k] = v`? Nested functions and lambdas are not the statement's own code.
bool Slicer::fillsInPlace(TSNode node, const std::string& name) const
{
    static const std::set<std::string> methods{"append", "extend", "insert",
                                               "update", "add",    "setdefault"};
    const std::string_view t = ts_node_type(node);
    if (t == "function_definition" || t == "class_definition" || t == "lambda")
        return false;
    if (t == "call") {
        const TSNode fn = ts_node_child_by_field_name(node, "function", 8);
        if (std::string_view(ts_node_type(fn)) == "attribute" &&
            m_src->text(ts_node_child_by_field_name(fn, "object", 6)) == name &&
            methods.count(m_src->text(ts_node_child_by_field_name(fn, "attribute", 9))))
            return true;
    }
    if (t == "assignment" || t == "augmented_assignment") {
        const TSNode left = ts_node_child_by_field_name(node, "left", 4);
        if (std::string_view(ts_node_type(left)) == "subscript" &&
            m_src->text(ts_node_child_by_field_name(left, "value", 5)) == name)
            return true;
    }
    for (uint32_t i = 0; i < ts_node_named_child_count(node); ++i)
        if (fillsInPlace(ts_node_named_child(node, i), name))
            return true;
    return false;
}

// A value bound once and then filled in place (`pairs = []` and a loop of `pairs.append(...)`,
// `index = {}` and `index[w] = n`): the statements of the same scope that fill it, after its
// binding and before the training runs (`before`), run in the port too; without them the port
// would train on the empty value. A rebinding of the name ends the search.
std::vector<const Stmt*> Slicer::fillers(const std::vector<Stmt>& scope, const Stmt& definer,
                                         const std::string& name, std::uint32_t before) const
{
    std::vector<const Stmt*> out;
    const auto ends = [&](const Stmt& x) {
        return x.start >= before || x.defines.count(name) || holdsLoop(x);
    };
    for (const Stmt* x : following(scope, definer, ends))
        if (x->name.empty() && x->type != "decorated_definition" && !excluded(*x) &&
            fillsInPlace(x->node, name))
            out.push_back(x);
    return out;
}

} // namespace portolan::port::detail
