#pragma once

// Branches the port resolves before it copies code: an `if` whose conditions test the
// accelerator or distributed training (`if args.distributed: ... elif args.gpu is not None: ...
// else: ...`, `if torch.cuda.is_available(): ...`). The port runs one process on the host, the
// run the original's dry run makes: no GPU, world size 1, and the flags as given on the command
// line (else their defaults). A flag the code assigns (`args.distributed = args.world_size > 1
// or ...`) is a derived value, computed from the flags the same way. Only the branch that run
// takes is carried; a chain that cannot be decided is left as written.

#include "core/port/plan.h"

#include <optional>
#include <vector>

namespace portolan::port {

class StaticBranches
{
public:
    StaticBranches(const PortPlan& plan, const SourceFile& src);

    // The statements of the branch a host-only, single-process run takes through an if
    // statement on the accelerator or on distributed training (empty: no branch runs), or
    // nullopt when the statement is not one or its conditions cannot be decided.
    std::optional<std::vector<const Stmt*>> taken(const Stmt& s) const;

    // A value a condition evaluates to; Unknown when it cannot be told without running.
    struct Value
    {
        enum class Kind
        {
            Unknown,
            None,
            Bool,
            Number,
            String
        };

        Kind kind = Kind::Unknown;
        double number = 0;
        std::string text;
        bool known() const { return kind != Kind::Unknown; }
        std::optional<bool> truth() const;
    };

    // A flag the code sets before `at`, in the function that holds `at` and outside any branch
    // (`args.lr = args.lr * args.scale` after parse_args): the last such statement and the
    // value it computes (Unknown when it cannot be told without running). The port starts
    // from that value, as the original trains with it, not from the command line's.
    struct Rebound
    {
        const Stmt* statement = nullptr;
        Value value;
    };
    std::optional<Rebound> reboundFlag(const std::string& dest, std::uint32_t at) const;

    // The string an expression holds in that run (a literal, a flag given on the command line or
    // its default), nullopt when it is not a string that can be told without running.
    std::optional<std::string> stringValue(TSNode n) const;
    // Whether a condition holds in that run (`args.clip > 0` with --clip's default -1), nullopt
    // when it cannot be told without running.
    std::optional<bool> holds(TSNode condition) const;

private:
    struct Eval
    {
        bool environmental = false; // the accelerator, distributed training, a derived flag
        int depth = 0;
    };
    Value evaluate(TSNode n, std::uint32_t at, Eval& e) const;
    Value flagValue(const std::string& dest, std::uint32_t at, Eval& e) const;
    Value parameterValue(const std::string& name, std::uint32_t at, Eval& e) const;
    Value callValue(TSNode call, Eval& e) const;
    Value literal(const std::string& text) const;
    std::optional<bool> branchRuns(const Stmt& inner, Eval& e) const;

    const PortPlan& m_plan;
    const SourceFile& m_src;
};

} // namespace portolan::port
