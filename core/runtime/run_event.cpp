#include "core/runtime/run_event.h"

#include <array>
#include <cmath>
#include <utility>

namespace portolan::runtime {

namespace {

using nlohmann::json;

enum class Type
{
    Number,       // any JSON number
    Integer,      // an integer (step, counts)
    NumberOrNull, // documented as "or null": loss, lr, accuracy, final_loss
    String,
};

struct FieldRule
{
    const char* name;
    Type type;
};

// The fields whose type the typed members rely on. Other fields are free (`config` is an object
// in a training run and a string in a dry run).
constexpr std::array<FieldRule, 19> kRules{{
    {"time", Type::Number},           {"step", Type::Integer},
    {"loss", Type::NumberOrNull},     {"final_loss", Type::NumberOrNull},
    {"lr", Type::NumberOrNull},       {"samples_per_sec", Type::NumberOrNull},
    {"accuracy", Type::NumberOrNull}, {"max_steps", Type::Integer},
    {"parameters", Type::Integer},    {"elapsed_s", Type::Number},
    {"model", Type::String},          {"message", Type::String},
    {"code", Type::String},           {"diagnostic", Type::String},
    {"reason", Type::String},         {"path", Type::String},
    {"stream", Type::String},         {"text", Type::String},
    {"job_id", Type::Integer},
}};

bool fits(const json& v, Type t)
{
    switch (t) {
    case Type::Number:
        return v.is_number();
    case Type::Integer: {
        if (v.is_number_integer())
            return true;
        // A whole float in range (a writer's 3.0); 1e300 is no count.
        const double d = v.is_number_float() ? v.get<double>() : 0.5;
        return std::abs(d) < 9.0e18 && d == std::floor(d);
    }
    case Type::NumberOrNull:
        return v.is_number() || v.is_null();
    case Type::String:
        return v.is_string();
    }
    return false;
}

const char* typeName(Type t)
{
    switch (t) {
    case Type::Number:
        return "a number";
    case Type::Integer:
        return "an integer";
    case Type::NumberOrNull:
        return "a number or null";
    case Type::String:
        return "a string";
    }
    return "?";
}

std::optional<double> number(const json& o, const char* key)
{
    const auto it = o.find(key);
    return it != o.end() && it->is_number() ? std::optional<double>(it->get<double>())
                                            : std::nullopt;
}

std::int64_t integer(const json& o, const char* key)
{
    const auto it = o.find(key);
    if (it == o.end() || !it->is_number())
        return 0;
    return it->is_number_integer() ? it->get<std::int64_t>() : std::int64_t(it->get<double>());
}

std::string string(const json& o, const char* key)
{
    const auto it = o.find(key);
    return it != o.end() && it->is_string() ? it->get<std::string>() : std::string();
}

Diagnostic refusal(std::string code, std::string message)
{
    return {Severity::Error, std::move(code), std::move(message), {}};
}

} // namespace

RunEventKind runEventKind(std::string_view type)
{
    static constexpr std::array<std::pair<std::string_view, RunEventKind>, 13> kinds{{
        {"started", RunEventKind::Started},
        {"step", RunEventKind::Step},
        {"eval", RunEventKind::Eval},
        {"checkpoint", RunEventKind::Checkpoint},
        {"warning", RunEventKind::Warning},
        {"info", RunEventKind::Info},
        {"arguments", RunEventKind::Arguments},
        {"capture", RunEventKind::Capture},
        {"output", RunEventKind::Output},
        {"submitted", RunEventKind::Submitted},
        {"job", RunEventKind::Job},
        {"finished", RunEventKind::Finished},
        {"failed", RunEventKind::Failed},
    }};
    for (const auto& [name, kind] : kinds)
        if (name == type)
            return kind;
    return RunEventKind::Other;
}

RunEvent makeRunEvent(std::string type, double time)
{
    RunEvent e;
    e.kind = runEventKind(type);
    e.type = std::move(type);
    e.time = time;
    return e;
}

Result<RunEvent> runEventFromJson(json o)
{
    const auto kind = o.is_object() ? o.find("event") : o.end();
    if (!o.is_object() || kind == o.end() || !kind->is_string() || kind->get<std::string>().empty())
        return Result<RunEvent>::fail(
            refusal("events.not-event", "not a run event: a JSON object with a string \"event\""));
    const std::string type = kind->get<std::string>();
    for (const auto& rule : kRules) {
        const auto it = o.find(rule.name);
        if (it != o.end() && !fits(*it, rule.type))
            return Result<RunEvent>::fail(
                refusal("events.field-type",
                        "the \"" + std::string(rule.name) + "\" of a \"" + type + "\" event is " +
                            std::string(it->type_name()) + ", not " + typeName(rule.type)));
    }
    RunEvent e = makeRunEvent(type, number(o, "time").value_or(0));
    e.step = integer(o, "step");
    e.loss = number(o, e.kind == RunEventKind::Finished ? "final_loss" : "loss");
    e.lr = number(o, "lr");
    e.samplesPerSec = number(o, "samples_per_sec");
    e.accuracy = number(o, "accuracy");
    e.maxSteps = integer(o, "max_steps");
    e.parameters = integer(o, "parameters");
    e.model = string(o, "model");
    e.message = string(o, "message");
    e.code = string(o, "code");
    e.diagnostic = string(o, "diagnostic");
    e.reason = string(o, "reason");
    e.path = string(o, "path");
    e.stream = string(o, "stream");
    e.text = string(o, "text");
    e.fields = std::move(o);
    return Result<RunEvent>::ok(std::move(e));
}

Result<RunEvent> parseRunEvent(std::string_view line)
{
    json o = json::parse(line.begin(), line.end(), nullptr, false);
    if (o.is_discarded())
        return Result<RunEvent>::fail(refusal("events.not-event", "not a run event: not JSON"));
    return runEventFromJson(std::move(o));
}

json toJson(const RunEvent& e)
{
    json o = e.fields.is_object() ? e.fields : json::object();
    o["event"] = e.type;
    o["time"] = e.time;
    const auto put = [&o](const char* key, const std::string& v) {
        if (!v.empty())
            o[key] = v;
    };
    const auto putNumber = [&o](const char* key, const std::optional<double>& v) {
        if (v)
            o[key] = *v;
    };
    if (e.step != 0 || e.kind == RunEventKind::Step || e.kind == RunEventKind::Eval ||
        e.kind == RunEventKind::Checkpoint)
        o["step"] = e.step;
    putNumber(e.kind == RunEventKind::Finished ? "final_loss" : "loss", e.loss);
    putNumber("lr", e.lr);
    putNumber("samples_per_sec", e.samplesPerSec);
    putNumber("accuracy", e.accuracy);
    if (e.maxSteps != 0)
        o["max_steps"] = e.maxSteps;
    if (e.parameters != 0)
        o["parameters"] = e.parameters;
    put("model", e.model);
    put("message", e.message);
    put("code", e.code);
    put("diagnostic", e.diagnostic);
    put("reason", e.reason);
    put("path", e.path);
    put("stream", e.stream);
    put("text", e.text);
    return o;
}

std::string toJsonLine(const RunEvent& e)
{
    return toJson(e).dump(-1, ' ', false, json::error_handler_t::replace);
}

} // namespace portolan::runtime
