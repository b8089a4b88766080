#pragma once

// Shell-style name patterns ("torch.cuda.*", "*.cuda", "get_?"), as guides, vendor contracts and
// analysis facts write them: '*' is any run of characters (dots included), '?' any one character.
#include <string_view>

namespace portolan {

bool globMatch(std::string_view pattern, std::string_view text);

} // namespace portolan
