// What a loop around a step function's call does besides the call, when it only keeps its own
// record: a running total of the returned loss (`total += loss`), a list of losses for a plot,
// a print of the prediction every N iterations. None of it reaches the training, so the port
// leaves it out, as it leaves out the log lines after an optimizer step (plan_loop.cpp).
//
// "Reaches the training" is decided by names, conservatively: the statement must bind or
// mutate no name the step reads (the call's arguments, the step function's free names, the
// statements that draw its inputs, the loop's own header), must call no method on such a name
// except one that only reads it, must not run the model or draw random numbers, and every
// function of the project it calls must satisfy the same of its own body.
#include "core/port/plan_internal.h"

#include <algorithm>
#include <functional>

namespace portolan::port::planning {

namespace {

// Methods that read their receiver and change nothing: a tensor's or a container's queries.
bool readsOnly(const std::string& method)
{
    static const std::set<std::string> reading{
        "item",       "size",     "dim",        "numel",      "detach",
        "cpu",        "numpy",    "tolist",     "clone",      "topk",
        "max",        "min",      "argmax",     "argmin",     "sum",
        "mean",       "std",      "norm",       "view",       "reshape",
        "float",      "double",   "long",       "int",        "squeeze",
        "unsqueeze",  "eq",       "ne",         "get",        "keys",
        "values",     "items",    "format",     "index",      "count",
        "join",       "split",    "strip",      "lower",      "upper",
        "startswith", "endswith", "state_dict", "parameters", "named_parameters",
        "data_ptr",   "type",     "exp",        "log",        "abs",
        "copy"};
    return reading.count(method) > 0;
}

// A call that draws random numbers or seeds a generator: dropping it would change what every
// later draw of the original returns.
bool drawsRandom(const std::string& callee)
{
    std::string lower = callee;
    std::transform(lower.begin(), lower.end(), lower.begin(),
                   [](unsigned char c) { return static_cast<char>(std::tolower(c)); });
    for (const char* word : {"rand", "seed", "shuffle", "choice", "sample", "dropout", "normal_",
                             "uniform_", "bernoulli", "multinomial", "permutation"})
        if (lower.find(word) != std::string::npos)
            return true;
    return false;
}

// Methods that change a model's or an optimizer's state or run training.
bool trains(const std::string& method)
{
    static const std::set<std::string> training{"backward", "step",           "zero_grad",
                                                "train",    "eval",           "load_state_dict",
                                                "apply",    "requires_grad_", "add_param_group"};
    return training.count(method) > 0 || method.ends_with("_") || method.starts_with("register_");
}

std::string rootName(const SourceFile& src, TSNode n)
{
    while (nodeType(n) == "attribute" || nodeType(n) == "subscript" || nodeType(n) == "call") {
        if (nodeType(n) == "call")
            n = fieldOf(n, "function");
        else if (nodeType(n) == "attribute")
            n = fieldOf(n, "object");
        else
            n = fieldOf(n, "value");
    }
    return nodeType(n) == "identifier" ? src.text(n) : std::string();
}

// Every node of a subtree of type `type` (not inside nested definitions or lambdas).
void eachOfType(TSNode n, const char* type, const std::function<void(TSNode)>& f, int depth = 0)
{
    if (ts_node_is_null(n) || depth > 200)
        return;
    const auto t = nodeType(n);
    if (depth > 0 && (t == "function_definition" || t == "class_definition" || t == "lambda"))
        return;
    if (t == type)
        f(n);
    for (uint32_t i = 0; i < ts_node_named_child_count(n); ++i)
        eachOfType(ts_node_named_child(n, i), type, f, depth + 1);
}

} // namespace

bool Planner::onlyBookkeeping(TSNode node, const std::set<std::string>& needed, int depth) const
{
    if (depth > 2)
        return false;
    bool ok = true;
    // Bound or assigned through (`x = ...`, `x += ...`, `x.a = ...`, `x[i] = ...`).
    for (const char* type : {"assignment", "augmented_assignment"})
        eachOfType(node, type, [&](TSNode a) {
            std::set<std::string> bound;
            const TSNode left = fieldOf(a, "left");
            const std::string root = rootName(src(), left);
            if (!root.empty())
                bound.insert(root);
            for (const auto& n : targetNames(src(), left))
                bound.insert(n);
            for (const auto& n : bound)
                ok = ok && !needed.count(n);
        });
    eachOfType(node, "global_statement", [&](TSNode) { ok = false; });
    eachOfType(node, "nonlocal_statement", [&](TSNode) { ok = false; });
    eachOfType(node, "delete_statement", [&](TSNode d) {
        ok = ok && !needed.count(rootName(src(), ts_node_named_child(d, 0)));
    });
    eachOfType(node, "call", [&](TSNode c) {
        if (!ok)
            return;
        const TSNode callee = fieldOf(c, "function");
        const std::string text = src().text(callee);
        if (drawsRandom(text)) {
            ok = false;
            return;
        }
        if (nodeType(callee) == "attribute") {
            const std::string method = src().text(fieldOf(callee, "attribute"));
            const std::string root = rootName(src(), fieldOf(callee, "object"));
            if (trains(method) || (needed.count(root) && !readsOnly(method)))
                ok = false;
            return;
        }
        if (nodeType(callee) != "identifier") {
            ok = false; // `models[i](x)`, `make()(x)`: what runs is not known
            return;
        }
        // The model, or anything else the step reads, called: a forward pass moves its
        // random state and its running statistics.
        if (needed.count(text)) {
            ok = false;
            return;
        }
        if (const Stmt* def = src().topDefinition(text)) {
            // A class of the project builds an object whose constructor may do anything.
            const TSNode fn =
                def->type == "decorated_definition" ? fieldOf(def->node, "definition") : def->node;
            ok = nodeType(fn) == "function_definition" &&
                 onlyBookkeeping(fieldOf(fn, "body"), needed, depth + 1);
            return;
        }
        // Python's builtins read their arguments; a function imported from elsewhere may
        // change what it is handed (`evaluate(model)` switching it to eval mode).
        static const std::set<std::string> builtins{
            "print",  "len",       "str",  "float", "int",        "round", "min",   "max",  "sum",
            "abs",    "format",    "repr", "bool",  "isinstance", "list",  "tuple", "dict", "set",
            "sorted", "enumerate", "zip",  "range", "any",        "all",   "type"};
        if (builtins.count(text))
            return;
        for (const auto& n : usedNames(src(), fieldOf(c, "arguments")))
            ok = ok && !needed.count(n);
    });
    return ok;
}

} // namespace portolan::port::planning
