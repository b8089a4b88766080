#pragma once
// One run event (core/runtime/EVENTS.md) as the views use it: a thin Qt adapter over the core
// reader (core/runtime/run_event.h), which decides what is an event and refuses fields of the
// wrong type. The original JSON object is kept for the history (it stores every event as it
// arrived) and for fields only one view needs.
#include <QJsonObject>
#include <QMetaType>
#include <QString>
#include <optional>

namespace portolan::views {

struct RunEvent
{
    enum class Kind
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
        Finished,
        Failed,
        Other, // a kind this version does not know: kept, shown nowhere
    };

    Kind kind = Kind::Other;
    QString type;               // the "event" field as written
    double time = 0;            // Unix seconds
    qint64 step = 0;            // step, eval, checkpoint, finished
    std::optional<double> loss; // step, eval, finished (final_loss)
    std::optional<double> lr;   // step
    std::optional<double> samplesPerSec;
    std::optional<double> accuracy; // eval
    qint64 maxSteps = 0;            // started
    qint64 parameters = 0;          // started, capture
    QString model;                  // started, capture
    QString message;                // warning, info, failed
    QString code;                   // failed
    QString diagnostic;             // failed
    QString reason;                 // finished
    QString path;                   // checkpoint, capture
    QString stream;                 // output: "stdout" or "stderr"
    QString text;                   // output
    QJsonObject json;               // the whole event
    QString refusal; // an invalid event that looked like one: why the core reader refused it

    bool isValid() const { return !type.isEmpty(); }
    bool isTerminal() const { return kind == Kind::Finished || kind == Kind::Failed; }

    // From a parsed object; invalid (empty type) unless it has a non-empty string "event".
    static RunEvent fromJson(const QJsonObject& o);
    // One line of a child's output: invalid for garbage, partial JSON, JSON that is not an
    // object with a string "event", or an event with a field of the wrong type (`refusal`).
    static RunEvent parse(const QByteArray& line);
    // A step event made by the views (script mode: a loss parsed from the script's output).
    static RunEvent makeStep(qint64 step, double loss, double time);
};

} // namespace portolan::views

Q_DECLARE_METATYPE(portolan::views::RunEvent)
