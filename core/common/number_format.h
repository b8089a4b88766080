#pragma once

// The one number formatter of the GUI and the CLI text output (issue 26): the same quantity is
// always printed the same way, with three significant digits (four below 10,000 of a binary unit)
// and a unit people read ("2.85 M samples/s", "6.94 s", "4.5 MiB", "8.25 GFLOP"), never "e+06" or
// "6940.894 ms". Machine output (JSON, SARIF, CSV) keeps full precision and does not use this.

#include <string>
#include <string_view>
#include <utility>
#include <vector>

namespace portolan::format {

// 3 significant digits, trailing zeros dropped ("2.85", "25.6", "351", "5", "0.0543"); no prefix.
std::string number(double value);
// A count or rate with an SI prefix word before the noun: "2.85 M samples/s", "25.6 M
// parameters", "351 samples/s", "12 k tiles". Values below 1 keep no prefix ("0.5 samples/s").
// `noun` may be empty ("2.85 M").
std::string count(double value, std::string_view noun = {});
// "25.6 M parameters", "54.3 k parameters", "1.56 B parameters" (B, the models' own convention)
std::string parameters(double count);
std::string samplesPerSecond(double rate); // "2.85 M samples/s"
// A unit symbol with its SI prefix attached: "8.25 GFLOP", "1.69 MFLOP", "512 FLOP".
std::string si(double value, std::string_view unit);
std::string flop(double flop); // "8.25 GFLOP"
// Sizes in binary units: "0 B", "512 B", "1.5 KiB", "671 KiB", "1010 KiB", "4.9 MiB", "1.25 GiB".
std::string bytes(double bytes);
// Durations in ns / µs / ms / s: "631 ns", "5 µs", "4.2 ms", "6.94 s", "1250 s".
std::string seconds(double seconds);
inline std::string milliseconds(double ms)
{
    return seconds(ms / 1000.0);
}
// A whole count with its noun, singular or plural: "1 step", "3 steps", "0 errors" (never
// "3 step(s)"). `plural` defaults to the singular with an "s".
std::string counted(long n, std::string_view singular, std::string_view plural = {});
// A fraction as a percentage with one decimal: 0.9884 -> "98.8%".
std::string percent(double fraction);
// A value with the unit names the reports use (report::Comparison rows): "bytes", "s",
// "samples/s", "count" (exact), "ratio", "flag"; any other unit is a count of it.
std::string withUnit(double value, std::string_view unit);

// Axis ticks at round values (issue 26: "5 / 10 / 15 MiB", never "4.9 / 9.9 / 14.9 MiB"; an
// integer step axis is never marked 1.5). The labels of one axis share their unit and their
// number of decimals, so a column of ticks reads evenly.
enum class Axis
{
    Number,  // decimal steps 1, 2, 5 x 10^n, labels with an SI prefix ("200 k")
    Bytes,   // steps 1, 2, 5 x 10^n of the binary unit that fits the range ("5 MiB", "10 MiB")
    Seconds, // steps 1, 2, 5 x 10^n of ns, µs, ms or s
    Integer, // like Number, but the step is at least 1 (program steps, micro-batches, IPUs)
};
struct Ticks
{
    std::vector<double> values;
    std::vector<std::string> labels;
    double step = 0;
};
// Ticks covering [lo, hi] (each tick inside the range), about `target` of them.
Ticks niceTicks(double lo, double hi, Axis axis, int target = 5);
// The round step niceTicks uses: 1, 2 or 5 x 10^n nearest to range / target.
double niceStep(double range, int target);
// A range to show values in [lo, hi] with round ticks: a range tight around its values (a flat
// loss curve at 0.6912-0.6913, whose ticks read 0.69120 | 0.69125 | 0.69130) is widened about
// its middle to at least `relative` of its largest magnitude (0.688 | 0.690 | 0.692). A wider
// range, or one around zero, is returned as it is.
std::pair<double, double> readableRange(double lo, double hi, double relative = 0.01);

} // namespace portolan::format
