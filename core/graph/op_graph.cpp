#include "core/graph/op_graph.h"

#include <array>
#include <utility>

namespace portolan::graph {

namespace {
constexpr std::array<std::pair<DType, std::string_view>, 9> kNames{{
    {DType::Float32, "float32"},
    {DType::Float16, "float16"},
    {DType::BFloat16, "bfloat16"},
    {DType::Float64, "float64"},
    {DType::Int64, "int64"},
    {DType::Int32, "int32"},
    {DType::Int8, "int8"},
    {DType::Bool, "bool"},
    {DType::Other, "other"},
}};
} // namespace

std::string_view dtypeName(DType t)
{
    for (const auto& [d, n] : kNames)
        if (d == t)
            return n;
    return "other";
}

DType dtypeFromName(std::string_view name)
{
    for (const auto& [d, n] : kNames)
        if (n == name)
            return d;
    return DType::Other;
}

int dtypeBytes(DType t)
{
    switch (t) {
    case DType::Float64:
    case DType::Int64:
        return 8;
    case DType::Float32:
    case DType::Int32:
        return 4;
    case DType::Float16:
    case DType::BFloat16:
        return 2;
    case DType::Int8:
    case DType::Bool:
        return 1;
    case DType::Other:
        break;
    }
    return 4;
}

std::int64_t elementCount(const Shape& s)
{
    std::int64_t n = 1;
    for (auto d : s)
        n *= d;
    return n;
}

std::string shapeToString(const Shape& s)
{
    std::string out = "[";
    for (std::size_t i = 0; i < s.size(); ++i) {
        if (i)
            out += ", ";
        out += std::to_string(s[i]);
    }
    return out + "]";
}

Result<Shape> parseShape(const std::string& text)
{
    Shape shape;
    std::size_t pos = 0;
    while (pos <= text.size()) {
        auto end = text.find_first_of(",x", pos);
        if (end == std::string::npos)
            end = text.size();
        const std::string part = text.substr(pos, end - pos);
        std::int64_t v = 0;
        bool ok = !part.empty();
        for (char c : part)
            if (c < '0' || c > '9')
                ok = false;
        if (ok) {
            try {
                v = std::stoll(part);
            } catch (...) {
                ok = false;
            }
        }
        if (!ok || v <= 0) {
            std::string message = "input shape '" + text;
            message += "': element '";
            message += part;
            message += "' is not a positive integer";
            Diagnostic d{
                Severity::Error, "compile.bad-shape", std::move(message), {"", 1, int(pos) + 1}};
            return Result<Shape>::fail(d);
        }
        shape.push_back(v);
        pos = end + 1;
    }
    return Result<Shape>::ok(shape);
}

std::int64_t OpGraph::totalParams() const
{
    std::int64_t n = 0;
    for (const auto& op : ops)
        n += op.paramCount;
    return n;
}

std::int64_t OpGraph::totalParamBytes() const
{
    std::int64_t n = 0;
    for (const auto& op : ops)
        n += op.paramBytes;
    return n;
}

double OpGraph::totalForwardFlops() const
{
    double n = 0;
    for (const auto& op : ops)
        n += op.forwardFlops;
    return n;
}

std::int64_t OpGraph::totalActivationBytes() const
{
    std::int64_t n = 0;
    for (const auto& op : ops)
        n += op.activationBytes;
    return n;
}

} // namespace portolan::graph
