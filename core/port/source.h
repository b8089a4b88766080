#pragma once

// The statement level of a Python file, for the porting engine: which statements a scope has,
// which names each defines and uses, the loops with their targets, and a renderer that copies a
// piece of source verbatim while renaming identifiers, turning `args.x` into the target's way of
// reading a hyperparameter and dropping device moves (`.to(device)`, `.cuda()`). Comments and
// layout inside a statement survive; only the edited tokens change.

#include <cstdint>
#include <functional>
#include <map>
#include <memory>
#include <optional>
#include <set>
#include <string>
#include <tree_sitter/api.h>
#include <vector>

namespace portolan::port {

struct Stmt
{
    TSNode node{};    // the statement (a decorated definition includes its decorators)
    std::string type; // tree-sitter's: "for_statement", "expression_statement", "comment", ...
    std::uint32_t start = 0;
    std::uint32_t end = 0;
    int line = 0;     // 1-based
    int column = 0;   // 0-based, bytes
    std::string name; // function_definition / class_definition: its name
    std::set<std::string> defines;
    std::set<std::string> uses;
    std::vector<Stmt> body;  // the block: for/while/with/def/class body, if's consequence, try body
    std::vector<Stmt> other; // if: elif/else blocks; try: except/else/finally; for: else
    TSNode forTarget{};      // for_statement: left
    TSNode forIter{};        // for_statement: right
    TSNode condition{};      // if/while: condition
    bool isComment() const { return type == "comment"; }
};

class SourceFile
{
public:
    SourceFile(std::string path, std::string text);
    ~SourceFile();
    SourceFile(const SourceFile&) = delete;
    SourceFile& operator=(const SourceFile&) = delete;

    const std::string& path() const { return m_path; }
    const std::string& text() const { return m_text; }
    std::string text(TSNode n) const;
    std::string text(std::uint32_t start, std::uint32_t end) const;
    const std::vector<Stmt>& statements() const { return m_statements; }
    // For the planner, which reads a trainer class's constructor as a scope of its own
    // (trainer_class.cpp); nothing else changes the statements.
    std::vector<Stmt>& mutableStatements() { return m_statements; }
    // Deepest statement (at any nesting) that contains byte range [start, end), with the chain
    // of its enclosing statements (outermost first). Empty when none.
    std::vector<const Stmt*> chainAt(std::uint32_t start, std::uint32_t end) const;
    // The smallest node spanning [start, end).
    TSNode nodeAt(std::uint32_t start, std::uint32_t end) const;
    // The module-level function or class named `name`.
    const Stmt* topDefinition(const std::string& name) const;

private:
    std::string m_path;
    std::string m_text;
    struct Tree;
    std::unique_ptr<Tree> m_tree;
    std::vector<Stmt> m_statements;
};

// How copied code is rewritten.
struct RenderRules
{
    std::map<std::string, std::string> rename; // identifier -> replacement text
    std::string argsName;                      // the argparse namespace ("args"), empty: none
    // `args.x` -> this(x); unset: left as it is.
    std::function<std::string(const std::string&)> flag;
    std::set<std::string> deviceNames; // `.to(device)` with these is dropped
    // `self.x` -> replacement text (a trainer class's attributes, read where it is made).
    std::map<std::string, std::string> selfAttributes;
    bool dropDeviceMoves = true;
    // A node (its start and end byte) -> the text written in its place (a statement the target
    // does itself, such as an optimizer inside a factory the port carries: factory.cpp).
    std::map<std::pair<std::uint32_t, std::uint32_t>, std::string> replace;
    // Inside a function's span, an identifier that is read as another text (its caller's name
    // for a parameter, a flag, or the default: LoopPlan::callerArguments for the loop's
    // function, first, and LoopPlan::outerArguments for the functions above it), before
    // `rename`.
    struct AliasScope
    {
        std::uint32_t start = 0, end = 0;
        std::map<std::string, std::string> aliases;
    };
    std::vector<AliasScope> aliasScopes;
    // The aliases of the function around byte `at`; null: none.
    const std::map<std::string, std::string>* aliasesAt(std::uint32_t at) const
    {
        for (const auto& a : aliasScopes)
            if (a.start <= at && at < a.end)
                return &a.aliases;
        return nullptr;
    }
    // The loop's function's (what a name taken from the plan, not from a node, reads).
    const std::map<std::string, std::string>* loopAliases() const
    {
        return aliasScopes.empty() ? nullptr : &aliasScopes.front().aliases;
    }
};

// The text of a node with the rules applied.
std::string render(const SourceFile& file, TSNode node, const RenderRules& rules);
// An identifier with the rules applied: its alias in `aliases` (RenderRules::aliasesAt, null:
// none), its rename, and a flag read (`args.lr`) either gives as the target reads the flag.
std::string renderName(const std::string& identifier, const RenderRules& rules,
                       const std::map<std::string, std::string>* aliases);

// Statements rendered one after the other, re-indented to `indent`, with the comments that
// directly precede each in `siblings` (the block they come from) kept. A statement that the
// rules reduce to a self-assignment (`x = x.to(device)` -> `x = x`) is dropped.
std::string renderStatements(const SourceFile& file, const std::vector<const Stmt*>& stmts,
                             const RenderRules& rules, const std::string& indent,
                             const std::vector<Stmt>* siblings = nullptr);

// Re-indents `text` (whose first line starts at `column`) to `indent`.
std::string reindent(const std::string& text, int column, const std::string& indent);

// The identifiers a node uses (loads), excluding attribute names and keyword names.
std::set<std::string> usedNames(const SourceFile& file, TSNode node);
// Does the subtree contain a call `<anything>.<method>(...)`, optionally on receiver `receiver`?
bool containsMethodCall(const SourceFile& file, TSNode node, const std::string& method,
                        const std::string& receiver = {});
// `a, b` / `(a, b)` / `[a, b]` / `a` -> {"a", "b"}; nested patterns are flattened.
std::vector<std::string> targetNames(const SourceFile& file, TSNode target);
// The arguments of the first call of `function` inside `node` (keyword, or "" for a positional
// one, and the value's text); nullopt when there is none, or it spreads *args / **kwargs.
std::optional<std::vector<std::pair<std::string, std::string>>>
callArguments(const SourceFile& file, TSNode node, const std::string& function);

} // namespace portolan::port
