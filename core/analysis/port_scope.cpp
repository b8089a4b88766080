#include "core/analysis/port_scope.h"

#include <array>
#include <map>
#include <vector>

namespace portolan::analysis {

namespace {

std::vector<std::string_view> components(std::string_view path)
{
    std::vector<std::string_view> out;
    while (!path.empty()) {
        const auto slash = path.find('/');
        out.push_back(path.substr(0, slash));
        if (slash == std::string_view::npos)
            break;
        path.remove_prefix(slash + 1);
    }
    return out;
}

constexpr std::array<std::string_view, 3> TestFolders{"tests", "test", "testing"};
constexpr std::array<std::string_view, 6> VendoredFolders{
    "third_party", "third-party", "thirdparty", "vendor", "vendored", "_vendor"};

} // namespace

std::string outsidePortReason(std::string_view path)
{
    const auto parts = components(path);
    if (parts.empty())
        return {};
    for (std::size_t i = 0; i + 1 < parts.size(); ++i) {
        for (const auto folder : TestFolders)
            if (parts[i] == folder)
                return "test code (" + std::string(folder) + "/)";
        for (const auto folder : VendoredFolders)
            if (parts[i] == folder)
                return "vendored code (" + std::string(folder) + "/)";
    }
    const std::string_view name = parts.back();
    if (name.starts_with("test_") && name.ends_with(".py"))
        return "test code (test_*.py)";
    if (name.ends_with("_test.py"))
        return "test code (*_test.py)";
    if (name == "conftest.py")
        return "test code (conftest.py)";
    return {};
}

std::vector<std::string> describeOutsidePort(const std::vector<std::string>& paths)
{
    std::map<std::string, std::vector<std::string>> byReason;
    for (const auto& p : paths)
        if (std::string why = outsidePortReason(p); !why.empty())
            byReason[why].push_back(p);
    std::vector<std::string> out;
    for (const auto& [why, files] : byReason) {
        std::string line = why + ": " + std::to_string(files.size()) +
                           (files.size() == 1 ? " file (" : " files (");
        for (std::size_t i = 0; i < files.size() && i < 3; ++i)
            line += (i ? ", " : "") + files[i];
        line += files.size() > 3 ? ", …)" : ")";
        out.push_back(std::move(line));
    }
    return out;
}

} // namespace portolan::analysis
