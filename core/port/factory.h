#pragma once
// Objects a function of the script builds together and returns (a factory:
// `data, model, opt = build()`), taken apart for the targets (issue 24): the target that builds
// the optimizer itself does not get one from the factory, and the data code runs only the
// factory's statements that build the data. Not a public header.

#include "core/port/generate_internal.h"

namespace portolan::port::detail {

// A parameter `name` of the function that holds position `at` of `src`, when every call of
// that function in `src` passes it the same argument: that argument's text, else "". An
// optimizer built in a factory (`SGD(net.parameters(), lr=rate)` in `def build(rate)`, called
// `build(args.lr)`) then reads the flag.
std::string argumentPassed(const SourceFile& src, const std::string& name, std::uint32_t at);

// `settings.rate` read where position `at` is: `settings` bound to an instance of a class of the
// script that holds settings (a dataclass, or a constructor storing its parameters), built with
// keywords or positions (`Settings(rate=args.lr)`) or left at the class's default (`rate: float
// = 0.01`); `settings` may be a parameter of the factory holding `at` that every call hands the
// same name (`model.configure_optimizers(settings)`). The value's text, "" when not known.
std::string settingValue(const SourceFile& src, const std::string& text, std::uint32_t at);

// Every call node of the file whose callee is the plain name `function` (every call for "").
std::vector<TSNode> callsOf(const SourceFile& src, const std::string& function);
// `kwargs["lr"]` read in a function whose every call spreads the same dict into its `**kwargs`
// (`fit(net, **fit_kwargs)`): the text of that dict's entry where the call is
// (`fit_kwargs = {"lr": args.lr}`: `args.lr`); "" otherwise.
std::string spreadEntry(const SourceFile& src, const std::string& text, std::uint32_t at);

// For a target that builds the optimizer itself from its config (Cerebras' runner and Trainer):
// an optimizer the original builds inside a function the port carries as a definition is bound
// to None there, with a comment that says who builds it (`builtBy`) and what the original built.
// `rules.replace` gets the statements.
void dropFactoryOptimizers(const PortPlan& plan, const Slicer& slicer, const std::string& builtBy,
                           RenderRules& rules);

// The data code's statements (`local`, in order), rendered; a statement that unpacks what a
// factory returns (`dataset, model, opt = build(size)`) of which the data code reads only some
// (`reads`, and what the later statements read) becomes the factory's statements those need,
// its parameters read as the call's arguments. A factory no longer called is taken out of
// `module`.
std::string renderTrimmingFactories(const Slicer& slicer, const std::vector<const Stmt*>& local,
                                    const std::set<std::string>& reads,
                                    std::vector<const Stmt*>& module, const RenderRules& rules,
                                    const std::string& indent);

} // namespace portolan::port::detail
