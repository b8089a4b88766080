#pragma once
// Flags the original assigns to (`args.hidden = args.hidden * 2` in a branch on another flag,
// `args.lr /= 2`): a target that reads a flag through a call (Determined's
// `context.get_hparam("x")`) cannot assign to that call, so it reads such a flag once into a
// name it can assign (issue 24).

#include "core/port/source.h"

#include <set>
#include <string>
#include <vector>

namespace portolan::port::detail {

// The flags (dests) assigned as `<argsName>.<dest> = ...` or `<argsName>.<dest> op= ...`
// anywhere in the file's statements, at any depth (`a.x, b = ...` included).
std::set<std::string> assignedFlags(const SourceFile& src, const std::string& argsName);

// Determined: each flag of `keys` (hyperparameter keys of assigned flags) whose
// `self.context.get_hparam("key")` the rendered `texts` assign to is held in an attribute
// (`self.hp_key`), read once from the hyperparameter at the start of __init__ (`init`, after
// `self.context = context`), and read and assigned in every text in place of the call. Returns
// the keys held; a flag the port never assigns keeps its get_hparam reads.
std::set<std::string> holdAssignedFlags(const std::set<std::string>& keys,
                                        const std::vector<std::string*>& texts, std::string& init);

} // namespace portolan::port::detail
