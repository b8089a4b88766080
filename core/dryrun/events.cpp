// Reading what the dry-run child writes: its pipes cut into lines, the event lines read without
// trusting their shape (a project's code can write to the event pipe too), and the text-mode
// line of each event. nlohmann's value() and get() throw on a member of another type, so every
// member is read here through accessors that check the type first.
#include "core/common/number_format.h"
#include "core/dryrun/dry_run.h"
#include "core/runtime/run_event.h"

#include <array>
#include <iomanip>
#include <sstream>
#include <string_view>

namespace portolan::dryrun {

namespace {

constexpr std::size_t kMaxLine = std::size_t{64} * 1024;

using nlohmann::json;

std::string text(const json& e, const char* key, const std::string& fallback = {})
{
    const auto it = e.find(key);
    return it != e.end() && it->is_string() ? it->get<std::string>() : fallback;
}

bool flag(const json& e, const char* key)
{
    const auto it = e.find(key);
    return it != e.end() && it->is_boolean() && it->get<bool>();
}

bool hasNumber(const json& e, const char* key)
{
    const auto it = e.find(key);
    return it != e.end() && it->is_number();
}

// A count (step, batch, parameters) as the driver wrote it: a number's own text, never a cast
// of a double that may not fit an integer.
std::string count(const json& e, const char* key)
{
    return hasNumber(e, key) ? e.find(key)->dump() : std::string("0");
}

std::string fixed(const json& e, const char* key, int digits)
{
    std::ostringstream s;
    s << std::fixed << std::setprecision(digits)
      << (hasNumber(e, key) ? e[key].get<double>() : 0.0);
    return s.str();
}

std::string dumped(const json& v)
{
    return v.dump(-1, ' ', false, json::error_handler_t::replace);
}

// "failed" codes that mean the user's command or project layout, not a failure of the project's
// code: portolan-cli exits with its usage status for them.
bool isUsageCode(const std::string& code)
{
    static constexpr std::array<std::string_view, 5> codes{
        "dryrun.required-argument", "dryrun.bad-arguments", "dryrun.no-entry", "dryrun.no-config",
        "dryrun.tensorflow"};
    for (const auto c : codes)
        if (code == c)
            return true;
    return false;
}

} // namespace

void LineSplitter::feed(const char* data, std::size_t size, const Emit& emit)
{
    for (std::size_t i = 0; i < size; ++i) {
        const char c = data[i];
        if (m_escape == 1) {
            m_escape = c == '[' ? 2 : 0;
            continue;
        }
        if (m_escape == 2) {
            if (c >= '@' && c <= '~')
                m_escape = 0;
            continue;
        }
        if (c == '\x1b') {
            m_escape = 1;
            continue;
        }
        if (c == '\n' || c == '\r') {
            if (!m_pending.empty())
                emit(m_pending);
            m_pending.clear();
        } else if (m_pending.size() < kMaxLine) {
            m_pending.push_back(c);
        }
    }
}

void LineSplitter::flush(const Emit& emit)
{
    if (!m_pending.empty())
        emit(m_pending);
    m_pending.clear();
}

EventLine readEventLine(const std::string& line, double time)
{
    EventLine out;
    auto read = runtime::parseRunEvent(line);
    if (!read && read.error.code == "events.field-type") {
        // Shaped like ours with a field of the wrong type: never trusted as the event it claims
        // to be (a "failed" refused here does not end the run), and said so.
        out.refusal = read.error;
        out.event = json{{"event", "warning"},
                         {"time", time},
                         {"kind", "refused-event"},
                         {"message", "event refused: " + read.error.message + ": " + line}};
        return out;
    }
    if (!read) {
        // Not an event (a project writing to the pipe): passed on as text.
        out.event = json{{"event", "output"}, {"time", time}, {"stream", "events"}, {"text", line}};
        return out;
    }
    out.terminal = read.value->isTerminal();
    out.usageError =
        read.value->kind == runtime::RunEventKind::Failed && isUsageCode(read.value->code);
    out.event = std::move(read.value->fields);
    return out;
}

EventText describeEvent(const json& e)
{
    const std::string type = text(e, "event");
    std::ostringstream s;
    if (type == "started") {
        s << "Dry run of " << text(e, "entry", "?") << " (" << text(e, "flavour", "?")
          << "): " << count(e, "max_steps") << " steps at batch " << count(e, "batch")
          << "\n  entry: " << text(e, "entry_reason") << "\n";
        if (e.contains("config") && e["config"].is_string())
            // After a dash, not in parentheses: a reason has its own ("the project's saved
            // choice (portolan-cli info --use-params, …)" read as nested parentheses).
            s << "  config: " << text(e, "config") << " — " << text(e, "config_reason") << "\n";
    } else if (type == "step") {
        s << "step " << std::setw(4) << count(e, "step") << "  loss "
          << (hasNumber(e, "loss") ? fixed(e, "loss", 4) : std::string("n/a")) << "  "
          << format::samplesPerSecond(
                 hasNumber(e, "samples_per_sec") ? e["samples_per_sec"].get<double>() : 0.0)
          << "\n";
    } else if (type == "eval") {
        s << "eval at step " << count(e, "step") << ": loss "
          << (hasNumber(e, "loss") ? fixed(e, "loss", 4) : std::string("n/a")) << "\n";
    } else if (type == "capture") {
        s << "capture: " << text(e, "path") << " (" << text(e, "model") << ", "
          << count(e, "parameters") << " parameters, "
          << (flag(e, "traced") ? std::string("traced") : "not traced: " + text(e, "trace_error"))
          << ")\n";
    } else if (type == "arguments") {
        s << "arguments: " << (e.contains("values") ? dumped(e["values"]) : std::string("{}"))
          << "\n";
    } else if (type == "warning" || type == "info") {
        s << type << ": " << text(e, "message") << "\n";
    } else if (type == "finished") {
        s << "finished (" << text(e, "reason") << ") after " << count(e, "step") << " steps, "
          << format::seconds(hasNumber(e, "elapsed_s") ? e["elapsed_s"].get<double>() : 0.0)
          << (flag(e, "captured") ? ", captured" : ", no capture") << "\n";
    } else if (type == "failed") {
        return {"portolan-cli: " + text(e, "diagnostic", text(e, "message")) + "\n", true};
    }
    return {s.str(), false};
}

} // namespace portolan::dryrun
