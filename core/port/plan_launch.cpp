// What the training gets from the code that calls or starts it: a loader made by a helper of
// the script, the flag a caller passes for a parameter, the arguments of a launch (mp.spawn,
// mp.Process, threading.Thread), and the training function started in other processes or
// threads, perhaps from another file of the project, whose handed-over values (the model built
// by the launching script, its data set) are the port's to build.
#include "core/port/plan_internal.h"

#include <algorithm>
#include <cctype>

namespace portolan::port::planning {

namespace {

bool launches(const std::string& callee)
{
    static const char* const names[] = {"Process", "Thread",  "spawn", "start_processes",
                                        "map",     "starmap", "imap",  "apply_async",
                                        "submit"};
    const std::string last = lastPart(callee);
    for (const char* n : names)
        if (last == n)
            return true;
    return false;
}

} // namespace

// A loader made by a helper of the script, or of a module of the project the script imports
// it from (`prepare_dataloader(dataset, batch_size)` whose body returns `DataLoader(dataset,
// batch_size=batch_size, shuffle=True)`): the loader is the helper's DataLoader with its
// parameters read as the call's arguments, so the dataset and the batch size are the caller's
// values.
bool Planner::findHelperData(const Call& c, FunctionId fn, DataPlan& out)
{
    if (c.callee.empty() || c.callee.find('.') != std::string::npos)
        return false;
    int file = m_file;
    FunctionId helper = ModuleLevel;
    for (std::size_t i = 0; i < idx().functions.size(); ++i)
        if (idx().functions[i].name == c.callee && idx().functions[i].className.empty())
            helper = static_cast<FunctionId>(i);
    if (!idx().function(helper) && m_a.resolver) {
        const auto sym = m_a.resolver->callee(m_file, static_cast<int>(&c - idx().calls.data()));
        if (sym.kind == python::SymbolKind::Function && sym.rest.empty() && sym.file >= 0 &&
            sym.file != m_file && m_p.sources.count(m_a.python[std::size_t(sym.file)].path)) {
            file = sym.file;
            helper = static_cast<FunctionId>(sym.index);
        }
    }
    const auto& helperIdx = m_a.python[static_cast<std::size_t>(file)].index;
    const SourceFile& helperSrc = *m_p.sources.at(m_a.python[static_cast<std::size_t>(file)].path);
    const auto* def = helperIdx.function(helper);
    if (!def || !def->className.empty())
        return false;
    const auto& qualified = m_a.facts().calleeQualified;
    const auto loaderName = [&](const Call& d) {
        const auto i = static_cast<std::size_t>(&d - helperIdx.calls.data());
        const std::string* q = static_cast<std::size_t>(file) < qualified.size() &&
                                       i < qualified[std::size_t(file)].size()
                                   ? &qualified[std::size_t(file)][i]
                                   : nullptr;
        return q && !q->empty() ? *q : d.resolved;
    };
    const Call* loader = nullptr;
    for (const auto& d : helperIdx.calls)
        if (d.function == helper && loaderName(d).ends_with("DataLoader"))
            loader = loader ? nullptr : &d; // one loader, or it is not this helper's value
    if (!loader)
        return false;
    // parameter -> the call's argument
    std::map<std::string, const python::Argument*> argumentOf;
    const auto bound = boundArguments(c, *def);
    if (!bound || bound->splat)
        return false;
    for (const auto& [param, given] : bound->given)
        if (given.argument)
            argumentOf[param] = given.argument;
    out.construction = refOf(m_p.entry, src(), c.span);
    out.isDataLoader = true;
    for (const auto& arg : loader->arguments) {
        if (arg.text.starts_with("*"))
            continue;
        const auto it =
            argumentOf.find(helperSrc.text(arg.valueSpan.startByte, arg.valueSpan.endByte));
        // The caller's argument for a parameter, else the helper's own value.
        const bool given = it != argumentOf.end();
        const python::Argument& value = given ? *it->second : arg;
        const std::string text =
            (given ? src() : helperSrc).text(value.valueSpan.startByte, value.valueSpan.endByte);
        if ((arg.keyword.empty() && !out.dataset.valid()) || arg.keyword == "dataset") {
            if (!given) {
                // The helper makes its own data set: the port's loader takes the data set of
                // the helper's loader, with the helper's batch size and options.
                out.dataset = refOf(m_p.entry, src(), c.span);
                out.dataset.text += ".dataset";
                out.datasetOfLoader = true;
                continue;
            }
            out.dataset = refOf(m_p.entry, src(), value.valueSpan);
        } else if (arg.keyword == "batch_size") {
            out.batchSize = flagPassedAs(text, fn);
        } else if (!arg.keyword.empty()) {
            out.keywords.emplace_back(arg.keyword, text);
        }
    }
    dropDistributedSampler(out);
    return out.dataset.valid();
}

// `sampler=DistributedSampler(dataset)`: the shards of a distributed run. The port runs one
// process and the target shards the data itself; over one process the sampler is a shuffle
// (unless it is given shuffle=False), so the loader shuffles instead.
void Planner::dropDistributedSampler(DataPlan& out)
{
    const auto it = std::find_if(out.keywords.begin(), out.keywords.end(), [](const auto& k) {
        return k.first == "sampler" && k.second.find("DistributedSampler(") != std::string::npos;
    });
    if (it == out.keywords.end())
        return;
    std::string sampler = it->second;
    sampler.erase(std::remove(sampler.begin(), sampler.end(), ' '), sampler.end());
    const bool shuffles = sampler.find("shuffle=False") == std::string::npos;
    m_p.notes.push_back("the loader's `sampler=" + it->second +
                        "` shards the data of a distributed run: the port runs one process, "
                        "and the target shards the data itself");
    out.keywords.erase(it);
    std::erase_if(out.keywords, [](const auto& k) { return k.first == "shuffle"; });
    out.keywords.emplace_back("shuffle", shuffles ? "True" : "False");
}

// A parameter of `fn` that every call of fn passes the same flag (`main(..., args.batch_size)`):
// that flag's text; else the name as written.
std::string Planner::flagPassedAs(const std::string& name, FunctionId fn) const
{
    const auto* def = idx().function(fn);
    if (!def || m_p.argsName.empty())
        return name;
    std::string passed;
    for (const auto& c : idx().calls) {
        const auto bound = boundArguments(c, *def);
        if (!bound)
            continue;
        const auto it = bound->given.find(name);
        const std::string arg = it == bound->given.end() ? std::string() : it->second.text;
        if (!arg.starts_with(m_p.argsName + ".") || (!passed.empty() && passed != arg))
            return name;
        passed = arg;
    }
    return passed.empty() ? name : passed;
}

// A function started in another process or thread (`mp.spawn(fn, args=(a, b))`,
// `mp.Process(target=fn, args=(a, b))`, `threading.Thread(target=fn, args=...)`): the texts of
// the arguments it gets, by parameter position (spawn passes the process index first, which
// the port's one process has as 0). nullopt when `c` does not start `function`.
std::optional<std::vector<std::string>>
Planner::launchedArguments(const Call& c, const std::string& function) const
{
    const std::string last = lastPart(c.callee);
    const bool spawn = last == "spawn" || last == "start_processes";
    const bool target = last == "Process" || last == "Thread";
    if (!spawn && !target)
        return std::nullopt;
    std::string callable, tuple;
    for (std::size_t i = 0; i < c.arguments.size(); ++i) {
        const auto& x = c.arguments[i];
        if ((spawn && i == 0 && x.keyword.empty()) || x.keyword == "fn" || x.keyword == "target")
            callable = x.text;
        else if (x.keyword == "args")
            tuple = x.text;
    }
    if (callable != function)
        return std::nullopt;
    std::vector<std::string> out;
    if (spawn)
        out.push_back("0");
    // "(a, b, c)" -> a, b, c at the top level of the tuple
    if (tuple.size() >= 2 && tuple.front() == '(' && tuple.back() == ')')
        tuple = tuple.substr(1, tuple.size() - 2);
    int depth = 0;
    std::string item;
    for (char ch : tuple + ",") {
        if (ch == '(' || ch == '[' || ch == '{')
            ++depth;
        else if (ch == ')' || ch == ']' || ch == '}')
            --depth;
        if (ch == ',' && depth == 0) {
            const auto b = item.find_first_not_of(" \n");
            const auto e = item.find_last_not_of(" \n");
            if (b != std::string::npos)
                out.push_back(item.substr(b, e - b + 1));
            item.clear();
            continue;
        }
        item += ch;
    }
    return out;
}

// The binding rule of a value handed over (issue 24): what `c` gives each parameter of `def`
// when it calls the function (`train(a, b=c)`), the method (`self.step(x)`), the constructor
// (`Trainer(net, loader, lr=args.lr)`, `def` its __init__) or starts it in other processes
// (launchedArguments): the caller's argument by position or keyword, else the parameter's
// default. A splatted argument (`*xs`, `**kw`) ends what is known. nullopt when `c` does
// none of these.
std::optional<HandedOver> Planner::boundArguments(const Call& c,
                                                  const python::FunctionDef& def) const
{
    HandedOver out;
    const auto& params = def.parameters;
    const bool method = !def.className.empty() && !params.empty() &&
                        (params[0].name == "self" || params[0].name == "cls");
    const bool constructs = def.name == "__init__" && c.callee == def.className;
    const bool calls =
        def.className.empty() ? c.callee == def.name : c.callee == "self." + def.name || constructs;
    const auto launched = calls ? std::nullopt : launchedArguments(c, def.name);
    if (!calls && !launched)
        return std::nullopt;
    std::size_t positional = method ? 1 : 0; // after self
    if (launched) {
        for (const auto& text : *launched)
            if (positional < params.size())
                out.given[params[positional++].name] = {text, nullptr};
    } else {
        for (const auto& x : c.arguments) {
            // `**vars(args)`: each parameter named like a flag is given the flag.
            if (spreadsFlags(x.text)) {
                for (const auto& p : params)
                    if (!out.given.count(p.name) && isFlagRead(m_p.flagRead(p.name)))
                        out.given[p.name] = {m_p.flagRead(p.name), nullptr};
                continue;
            }
            if (x.text.starts_with("*")) {
                out.splat = true;
                break;
            }
            if (!x.keyword.empty())
                out.given[x.keyword] = {x.text, &x};
            else if (positional < params.size())
                out.given[params[positional++].name] = {x.text, &x};
        }
    }
    for (const auto& p : params)
        if (p.hasDefault() && !out.given.count(p.name) && !out.splat)
            out.defaults[p.name] = p.defaultText;
    return out;
}

// `**vars(args)`, or `**kw` for a name bound only to `vars(args)`: the command line's flags
// as keyword arguments.
bool Planner::spreadsFlags(const std::string& argument) const
{
    if (m_p.argsName.empty() || !argument.starts_with("**"))
        return false;
    const std::string spread = argument.substr(2);
    const std::string whole = "vars(" + m_p.argsName + ")";
    if (spread == whole || (m_p.argsDict && spread == m_p.argsName))
        return true;
    bool bound = false;
    for (const auto& a : idx().assignments) {
        if (a.target != spread)
            continue;
        if (a.value != whole)
            return false;
        bound = true;
    }
    return bound;
}

// Does `c` call `def`: a function by its name, a method on `self` within its class, or a method
// on a name bound to an instance of its class (`coach = Coach(...)`, then `coach.fit(n)`)?
bool Planner::callsFunction(const Call& c, const python::FunctionDef& def) const
{
    if (def.className.empty())
        return c.callee == def.name;
    if (!c.callee.ends_with("." + def.name))
        return false;
    const std::string receiver = c.callee.substr(0, c.callee.size() - def.name.size() - 1);
    if (receiver == "self") {
        const auto* caller = idx().function(c.function);
        return caller && caller->className == def.className;
    }
    bool instance = false;
    for (const auto& b : idx().calls)
        if (b.assignedTo == receiver && b.function == c.function) {
            if (b.callee != def.className)
                return false;
            instance = true;
        }
    return instance;
}

// The loop's function started in other processes by the entry itself (LoopPlan::launch), or a
// function that calls it (a worker that builds the loader and the optimizer, then calls the
// epoch's function): the launch is one more caller. The process index it hands over (spawn's
// first argument, the variable of the loop that starts one process per value) is 0: the port's
// one process is the first.
void Planner::bindLaunch()
{
    const auto* loopDef = idx().function(m_loopFunction);
    if (!m_p.loop || !loopDef)
        return;
    // The functions whose run reaches the loop, up to three calls away: the loop's own, a
    // function that calls it, a method of its class that calls it (`self.run_epoch(e)`), a
    // function that calls such a method on an instance it builds (`coach = Coach(...)`,
    // `coach.fit(n)`), which is what a launch starts when a trainer class holds the loop.
    std::vector<const python::FunctionDef*> started{loopDef};
    std::vector<std::size_t> level{0};
    for (std::size_t k = 0; k < started.size(); ++k) {
        if (level[k] == 3)
            continue;
        const auto* def = started[k];
        for (const auto& c : idx().calls) {
            const auto* caller = idx().function(c.function);
            if (!caller || !callsFunction(c, *def) ||
                std::find(started.begin(), started.end(), caller) != started.end())
                continue;
            started.push_back(caller);
            level.push_back(level[k] + 1);
        }
    }
    for (const auto* def : started)
        for (const auto& c : idx().calls) {
            if (!def->className.empty())
                continue; // a launch starts a function, not a method
            if (!launchedArguments(c, def->name))
                continue;
            std::set<std::string> index;
            for (const Stmt* s : src().chainAt(c.span.startByte, c.span.endByte))
                if (s->type == "for_statement")
                    index.insert(src().text(s->forTarget));
            const auto given = boundArguments(c, *def);
            for (const auto& [param, value] : given->given)
                m_p.loop->launchArguments[param] = index.count(value.text) ? "0" : value.text;
            m_p.loop->launch = refOf(m_p.entry, src(), c.span);
            m_p.loop->launched = def->name;
            return;
        }
}

// A launch whose handed-over values the port builds (bindLaunch): the port is the training of
// one process, which a note says rather than leaving it silent; the target runs its own data
// parallelism.
void Planner::noteOneProcess()
{
    if (!m_p.loop || !m_p.loop->launch.valid())
        return;
    const auto& launch = m_p.loop->launch;
    const Call* c = nullptr;
    for (const auto& d : idx().calls)
        if (d.span.startByte == launch.start && d.span.endByte == launch.end)
            c = &d;
    if (!c)
        return;
    const std::string count = processCount(m_p.entry, *c);
    bool shared = false;
    for (const auto& d : idx().calls)
        shared = shared || d.callee == m_p.modelBinding + ".share_memory";
    m_p.notes.push_back(
        "the original trains in processes started by `" + lastPart(c->callee) + "(...)` (" +
        launch.where() + (count.empty() ? std::string() : ", " + count) + ")" +
        (shared ? ", which update the model it shares (`" + m_p.modelBinding +
                      ".share_memory()`) at once"
                : std::string()) +
        ": the port is the training of one of them (the first, rank 0), with the values the "
        "launch hands over; the target runs its own data parallelism");
}

// How many processes or threads a launch starts, as the code says it: the iterable of the loop
// around a Process/Thread (one per value of `range(args.num_processes)`), or spawn's `nprocs=`;
// "" when neither.
std::string Planner::processCount(const std::string& file, const Call& c) const
{
    for (const auto& x : c.arguments)
        if (x.keyword == "nprocs")
            return "`" + x.text + "` of them";
    const SourceFile* src = m_p.source(file);
    if (!src)
        return {};
    std::string count;
    for (const Stmt* s : src->chainAt(c.span.startByte, c.span.endByte))
        if (s->type == "for_statement" && !ts_node_is_null(s->forIter))
            count = "one per value of `" + src->text(s->forIter) + "`";
    return count;
}

// When the model reaches the loop only as a parameter that a launch hands over: one item at
// the launch, naming the function it starts and what it passes. Returns whether one was found.
bool Planner::noteLaunch()
{
    // The functions of the entry that lead to the batch loop: its own, and their direct callers.
    std::set<std::string> leading;
    if (const auto* def = idx().function(m_loopFunction))
        leading.insert(def->name);
    for (int round = 0; round < 3; ++round)
        for (const auto& c : idx().calls)
            if (leading.count(c.callee))
                if (const auto* caller = idx().function(c.function);
                    caller && caller->className.empty())
                    leading.insert(caller->name);
    for (std::size_t f = 0; f < m_a.python.size(); ++f) {
        const auto& file = m_a.python[f];
        for (const auto& c : file.index.calls) {
            if (!launches(c.callee))
                continue;
            std::string callable;
            for (std::size_t i = 0; i < c.arguments.size(); ++i) {
                const auto& x = c.arguments[i];
                if (x.keyword == "target" || x.keyword == "fn" || x.keyword == "func" ||
                    (i == 0 && x.keyword.empty()))
                    callable = x.text;
            }
            if (!leading.count(lastPart(callable)))
                continue;
            std::string handed;
            for (const auto& x : c.arguments)
                if (x.keyword == "args")
                    for (char ch : x.text)
                        if (!std::isspace(static_cast<unsigned char>(ch)) ||
                            (!handed.empty() && handed.back() != ' '))
                            handed += std::isspace(static_cast<unsigned char>(ch)) ? ' ' : ch;
            CodeRef at;
            at.file = file.path;
            at.line = c.span.line;
            at.column = c.span.column - 1;
            const std::string where = file.path == m_p.entry ? "" : " in " + file.path;
            const std::string count = processCount(file.path, c);
            m_p.manual.push_back(manualFinding(
                "the training runs in `" + lastPart(callable) + "()`, started in other " +
                    (lastPart(c.callee) == "Thread" ? "threads" : "processes") + " by `" +
                    lastPart(c.callee) + "(...)`" + where +
                    (handed.empty() ? std::string() : ", which hands it `" + handed + "`") +
                    ": the port runs it in one process, but the model `" + m_p.modelVariable +
                    "`, the flags and what else the launch passes are built by the launching "
                    "code, which the port does not carry" +
                    (count.empty() ? std::string()
                                   : "; the original starts " + count +
                                         ", and the port, one process, is the training "
                                         "of one (the first, rank 0: the one the original's dry "
                                         "run reaches its steps in, running the workers inline "
                                         "one after the other)"),
                at, "build the model and the data in the port, as the launching code does"));
            m_p.handedOver = true;
            // The flags the launch hands over are the launching script's: the port's config
            // has them, where the training reads them (`args.lr` in the worker).
            const bool ownFlags = !m_p.flags.empty();
            for (const auto& fl : m_a.facts().flags)
                if (!ownFlags && static_cast<std::size_t>(fl.file) == f && f != std::size_t(m_file))
                    m_p.flags.push_back(fl);
            return true;
        }
    }
    return false;
}

} // namespace portolan::port::planning
