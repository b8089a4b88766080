#include "core/about/about.h"

#include "core/python/syntax.h"

namespace portolan {

std::string portolanVersion()
{
    return PORTOLAN_VERSION;
}

std::string applicationId()
{
    return PORTOLAN_APP_ID;
}

std::vector<std::pair<std::string, std::string>> coreLibraryVersions()
{
    return {
        {"LibTorch", PORTOLAN_LIBTORCH_VERSION}, // in portolan-torch only
        {"yaml-cpp", PORTOLAN_YAMLCPP_VERSION},
        {"tree-sitter-python", std::string(python::grammarVersion()) + " (language " +
                                   std::to_string(python::grammarLanguageVersion()) + ")"},
    };
}

} // namespace portolan
