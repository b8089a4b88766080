#pragma once

// Reading a large report quickly. simdjson parses the text (about 1 GB/s, against tens of MB/s
// for nlohmann's lexer); the IPU profile's two big column sets (variables and tile_bytes, which
// are nearly all of a 94,208-tile report) go straight into their vectors, and the small rest
// becomes nlohmann::json for the one reader, fromJson.

#include "core/sim/profile.h"

#include <array>
#include <nlohmann/json.hpp>
#include <optional>
#include <string>
#include <vector>

namespace portolan::report::detail {

struct IpuColumns
{
    bool present = false;
    std::vector<sim::Variable> variables;
    std::array<std::vector<std::int64_t>, sim::kMemoryCategories> tileBytes;
};

// Spare capacity past the text that spares simdjson a copy of it (SIMDJSON_PADDING).
inline constexpr std::size_t kParsePadding = 64;

// The report without ipu.variables and ipu.tile_bytes (those are in `columns`), or nullopt when
// simdjson rejects the text; the caller then parses it with nlohmann for a positioned error.
std::optional<nlohmann::json> parseFast(const std::string& text, IpuColumns& columns);

} // namespace portolan::report::detail
