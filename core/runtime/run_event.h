#pragma once

// One run event (EVENTS.md): the typed reader and writer of the format that the trainer, the
// dry-run driver (resources/python/portolan_dryrun/events.py), the CLI subcommands and the
// views share. Torch-free and Qt-free.
//
// A reader never trusts a line: a project's code, a rank or a scheduler can write anything.
// parseRunEvent refuses, with a diagnostic and never an exception, a line that is not a JSON
// object with a string "event", and a known field of the wrong type (a string "loss", an object
// "step"). Unknown fields are kept in `fields` and ignored, as EVENTS.md promises.

#include "core/common/diagnostic.h"

#include <cstdint>
#include <nlohmann/json.hpp>
#include <optional>
#include <string>
#include <string_view>

namespace portolan::runtime {

enum class RunEventKind
{
    Started,
    Step,
    Eval,
    Checkpoint,
    Warning,
    Info,
    Arguments,
    Capture,
    Output,
    Submitted,
    Job,
    Finished,
    Failed,
    Other, // a kind this version does not know: kept, shown nowhere
};
RunEventKind runEventKind(std::string_view type);

struct RunEvent
{
    RunEventKind kind = RunEventKind::Other;
    std::string type;           // the "event" field as written
    double time = 0;            // Unix seconds
    std::int64_t step = 0;      // step, eval, checkpoint, finished
    std::optional<double> loss; // step, eval; finished's final_loss
    std::optional<double> lr;   // step (null without an optimizer)
    std::optional<double> samplesPerSec;
    std::optional<double> accuracy;                   // eval
    std::int64_t maxSteps = 0;                        // started
    std::int64_t parameters = 0;                      // started, capture
    std::string model;                                // started, capture
    std::string message;                              // warning, info, failed
    std::string code;                                 // failed
    std::string diagnostic;                           // failed
    std::string reason;                               // finished, job
    std::string path;                                 // checkpoint, capture
    std::string stream;                               // output: "stdout" or "stderr"
    std::string text;                                 // output
    nlohmann::json fields = nlohmann::json::object(); // the whole event, as written

    bool isTerminal() const
    {
        return kind == RunEventKind::Finished || kind == RunEventKind::Failed;
    }
};

// A new event of `type` at `time`, for a writer to fill.
RunEvent makeRunEvent(std::string type, double time);

// One line of an event stream; refused ("events.not-event", "events.field-type") with a message
// naming the field and the type it has.
Result<RunEvent> parseRunEvent(std::string_view line);
// The same from a parsed JSON value.
Result<RunEvent> runEventFromJson(nlohmann::json value);

// The event as one JSON line without its line end: `fields` with the typed members written over
// them (a member that is unset or empty is left as `fields` has it). Invalid UTF-8 is replaced.
std::string toJsonLine(const RunEvent& e);
// The JSON object toJsonLine writes.
nlohmann::json toJson(const RunEvent& e);

} // namespace portolan::runtime
