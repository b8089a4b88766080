#pragma once

// Internal to core/python: the resolver's tables (resolve.h keeps them opaque), shared by
// resolve.cpp (names, imports, classes) and resolve_values.cpp (values, returns, call sites).
#include "core/python/resolve.h"

#include <cstdint>
#include <map>
#include <mutex>
#include <string>
#include <unordered_map>
#include <utility>
#include <vector>

namespace portolan::python {

// Imports, re-exports and return values are followed this deep; deeper chains are "unknown".
constexpr int MaxResolveDepth = 8;

struct Resolver::Binding
{
    enum Kind : std::uint8_t
    {
        Function,
        Class,
        Import,
        Local
    } kind = Local;
    int index = -1;
};

struct Resolver::FileTables
{
    std::unordered_map<std::string, Binding> module;               // module-level names
    std::vector<std::vector<std::pair<std::string, int>>> methods; // per class: name -> function
    std::vector<int> classOfFunction;                              // -1 for plain functions
};

struct Resolver::Callers
{
    std::once_flag once;
    std::map<std::uint64_t, std::vector<CallSite>> sites;
};

inline std::uint64_t callerKey(int file, SymbolKind kind, int index)
{
    return (std::uint64_t(std::uint32_t(file)) << 32) | (std::uint64_t(kind) << 24) |
           std::uint64_t(std::uint32_t(index) & 0xFFFFFF);
}

} // namespace portolan::python
