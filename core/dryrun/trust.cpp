#include "core/common/atomic_file.h"
#include "core/dryrun/dry_run.h"

#include <algorithm>
#include <cstdlib>
#include <nlohmann/json.hpp>
#include <system_error>

namespace portolan::dryrun {

namespace fs = std::filesystem;

namespace {

std::string trustKey(const fs::path& project)
{
    std::error_code ec;
    fs::path p = fs::weakly_canonical(fs::absolute(project, ec), ec);
    if (ec)
        p = fs::absolute(project).lexically_normal();
    std::string s = p.string();
    while (s.size() > 1 && s.back() == '/')
        s.pop_back();
    return s;
}

std::vector<std::string> readList(const fs::path& file)
{
    std::vector<std::string> out;
    auto text = readFile(file);
    if (!text)
        return out; // no file yet: nothing is trusted
    const auto doc = nlohmann::json::parse(*text.value, nullptr, false);
    if (!doc.is_object() || !doc.contains("trusted") || !doc["trusted"].is_array())
        return out; // a damaged file trusts nothing
    for (const auto& item : doc["trusted"])
        if (item.is_string())
            out.push_back(item.get<std::string>());
    return out;
}

} // namespace

fs::path TrustStore::defaultFile()
{
    if (const char* dir = std::getenv("PORTOLAN_CONFIG_DIR"); dir && *dir)
        return fs::path(dir) / "trusted-projects.json";
    if (const char* xdg = std::getenv("XDG_CONFIG_HOME"); xdg && *xdg)
        return fs::path(xdg) / "portolan" / "trusted-projects.json";
    if (const char* home = std::getenv("HOME"); home && *home)
        return fs::path(home) / ".config" / "portolan" / "trusted-projects.json";
    return fs::path(".portolan-trusted-projects.json");
}

TrustStore::TrustStore() : m_file(defaultFile()) {}

TrustStore::TrustStore(fs::path file) : m_file(std::move(file)) {}

bool TrustStore::isTrusted(const fs::path& project) const
{
    const std::string key = trustKey(project);
    const auto list = readList(m_file);
    return std::find(list.begin(), list.end(), key) != list.end();
}

std::vector<std::string> TrustStore::projects() const
{
    return readList(m_file);
}

std::optional<Diagnostic> TrustStore::setTrusted(const fs::path& project, bool trusted)
{
    const std::string key = trustKey(project);
    auto list = readList(m_file);
    list.erase(std::remove(list.begin(), list.end(), key), list.end());
    if (trusted)
        list.push_back(key);
    std::sort(list.begin(), list.end());
    std::error_code ec;
    fs::create_directories(m_file.parent_path(), ec);
    nlohmann::json doc{{"format", "portolan-trusted-projects"}, {"version", 1}, {"trusted", list}};
    return writeFileAtomically(m_file, doc.dump(1) + "\n");
}

} // namespace portolan::dryrun
