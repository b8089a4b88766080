#include "core/common/number_format.h"

#include <algorithm>
#include <array>
#include <cmath>
#include <cstdio>

namespace portolan::format {

namespace {

constexpr const char* kNotANumber = "n/a";

std::string fixed(double v, int decimals)
{
    char buf[64];
    std::snprintf(buf, sizeof buf, "%.*f", std::clamp(decimals, 0, 15), v);
    std::string s = buf;
    // "-0" and "-0.0" after rounding a tiny negative value read as a sign error.
    if (s.find_first_not_of("-0.") == std::string::npos && s.front() == '-')
        s.erase(0, 1);
    return s;
}

std::string dropTrailingZeros(std::string s)
{
    if (s.find('.') == std::string::npos)
        return s;
    while (s.back() == '0')
        s.pop_back();
    if (s.back() == '.')
        s.pop_back();
    return s;
}

// Decimals that give 3 significant digits for |v| (0 from 100 up).
int decimalsFor(double v)
{
    const double a = std::abs(v);
    if (a == 0.0)
        return 0;
    return std::max(0, 2 - int(std::floor(std::log10(a))));
}

// `v` rounded the way number() prints it, so a caller can see 999.6 becoming 1000.
double rounded(double v)
{
    const double scale = std::pow(10.0, decimalsFor(v));
    return std::round(v * scale) / scale;
}

// A value scaled into one of `units` (ascending by factor): the largest unit where the rounded
// mantissa is at least 1, moving up once more when rounding reaches the next unit (999.6 k -> 1 M).
struct Scaled
{
    double mantissa;
    std::size_t unit;
};
template <std::size_t N> Scaled scale(double v, const std::array<double, N>& factors, double limit)
{
    const double a = std::abs(v);
    std::size_t u = 0;
    while (u + 1 < N && a >= factors[u + 1])
        ++u;
    double m = v / factors[u];
    if (u + 1 < N && std::abs(rounded(m)) >= limit) {
        ++u;
        m = v / factors[u];
    }
    return {m, u};
}

constexpr std::array<double, 6> kSiFactors{1, 1e3, 1e6, 1e9, 1e12, 1e15};
constexpr std::array<const char*, 6> kSiPrefixes{"", "k", "M", "G", "T", "P"};
constexpr std::array<double, 6> kBinaryFactors{1,
                                               1024.0,
                                               1024.0 * 1024,
                                               1024.0 * 1024 * 1024,
                                               1024.0 * 1024 * 1024 * 1024,
                                               1024.0 * 1024 * 1024 * 1024 * 1024};
constexpr std::array<const char*, 6> kBinaryUnits{"B", "KiB", "MiB", "GiB", "TiB", "PiB"};
constexpr std::array<double, 4> kTimeFactors{1e-9, 1e-6, 1e-3, 1};
// U+00B5 MICRO SIGN, as UTF-8: "µs" is what people read (issue 26), not "us".
constexpr std::array<const char*, 4> kTimeUnits{"ns", "\xC2\xB5s", "ms", "s"};

std::string joined(const std::string& n, std::string_view unit)
{
    std::string out = n;
    if (!unit.empty()) {
        out += ' ';
        out.append(unit);
    }
    return out;
}

} // namespace

std::string number(double value)
{
    if (!std::isfinite(value))
        return kNotANumber;
    return dropTrailingZeros(fixed(value, decimalsFor(value)));
}

std::string count(double value, std::string_view noun)
{
    if (!std::isfinite(value))
        return kNotANumber;
    const Scaled s = scale(value, kSiFactors, 1000.0);
    std::string n = number(s.mantissa);
    if (s.unit > 0) {
        n += ' ';
        n += kSiPrefixes[s.unit];
    }
    return joined(n, noun);
}

std::string parameters(double n)
{
    // Model sizes read "1.5 B parameters" in every model card and paper, not "1.5 G".
    std::string s = count(n, "parameters");
    if (const auto at = s.find(" G parameters"); at != std::string::npos)
        s.replace(at, 2, " B");
    return s;
}

std::string samplesPerSecond(double rate)
{
    return count(rate, "samples/s");
}

std::string si(double value, std::string_view unit)
{
    if (!std::isfinite(value))
        return kNotANumber;
    const Scaled s = scale(value, kSiFactors, 1000.0);
    return number(s.mantissa) + ' ' + kSiPrefixes[s.unit] + std::string(unit);
}

std::string flop(double f)
{
    return si(f, "FLOP");
}

std::string bytes(double b)
{
    if (!std::isfinite(b))
        return kNotANumber;
    const Scaled s = scale(b, kBinaryFactors, 1024.0);
    // Whole bytes, and 4 digits from 1000 to 1023 of a unit rather than "0.98 MiB".
    const std::string n = s.unit == 0 ? fixed(std::round(s.mantissa), 0) : number(s.mantissa);
    return n + ' ' + kBinaryUnits[s.unit];
}

std::string seconds(double sec)
{
    if (!std::isfinite(sec))
        return kNotANumber;
    if (sec == 0.0)
        return "0 s";
    Scaled s = scale(sec, kTimeFactors, 1000.0);
    // Below 1 ns there is no smaller unit: "0.5 ns".
    if (std::abs(sec) < kTimeFactors[0])
        s = {sec / kTimeFactors[0], 0};
    return number(s.mantissa) + ' ' + kTimeUnits[s.unit];
}

std::string percent(double fraction)
{
    if (!std::isfinite(fraction))
        return kNotANumber;
    return fixed(100.0 * fraction, 1) + '%';
}

std::string withUnit(double value, std::string_view unit)
{
    if (unit == "bytes")
        return bytes(value);
    if (unit == "s")
        return seconds(value);
    if (unit == "flag")
        return value != 0 ? "yes" : "no";
    if (unit == "count")
        return std::isfinite(value) ? fixed(value, 0) : kNotANumber; // tiles, stages: exact
    if (unit == "ratio")
        return number(value);
    return count(value, unit);
}

double niceStep(double range, int target)
{
    if (!std::isfinite(range) || range <= 0.0)
        return 0.0;
    const double raw = range / std::max(1, target);
    const double magnitude = std::pow(10.0, std::floor(std::log10(raw)));
    const double f = raw / magnitude;
    const double nice = f < 1.5 ? 1 : f < 3.5 ? 2 : f < 7.5 ? 5 : 10;
    return nice * magnitude;
}

std::pair<double, double> readableRange(double lo, double hi, double relative)
{
    if (!std::isfinite(lo) || !std::isfinite(hi))
        return {lo, hi};
    if (hi < lo)
        std::swap(lo, hi);
    const double least = relative * std::max(std::abs(lo), std::abs(hi));
    if (hi - lo >= least || least <= 0.0)
        return {lo, hi};
    const double middle = lo + (hi - lo) / 2;
    return {middle - least / 2, middle + least / 2};
}

Ticks niceTicks(double lo, double hi, Axis axis, int target)
{
    Ticks t;
    if (!std::isfinite(lo) || !std::isfinite(hi))
        return t;
    if (hi < lo)
        std::swap(lo, hi);
    const double largest = std::max(std::abs(lo), std::abs(hi));

    // The unit of the whole axis, from its largest value.
    double factor = 1.0;
    std::string unit;
    switch (axis) {
    case Axis::Number:
    case Axis::Integer: {
        // Four-digit values read fine as they are ("0 | 200 | ... | 1000", not "0.2 k").
        if (largest >= 1e4) {
            const Scaled s = scale(largest, kSiFactors, 1000.0);
            factor = kSiFactors[s.unit];
            unit = kSiPrefixes[s.unit];
        }
        break;
    }
    case Axis::Bytes: {
        const Scaled s = scale(largest, kBinaryFactors, 1024.0);
        factor = kBinaryFactors[s.unit];
        unit = kBinaryUnits[s.unit];
        break;
    }
    case Axis::Seconds: {
        const Scaled s = scale(largest, kTimeFactors, 1000.0);
        factor = largest < kTimeFactors[0] ? kTimeFactors[0] : kTimeFactors[s.unit];
        unit = kTimeUnits[largest < kTimeFactors[0] ? 0 : s.unit];
        break;
    }
    }

    double stepInUnit = niceStep((hi - lo) / factor, target);
    // Whole steps on a step axis, and no fraction of a byte.
    if ((axis == Axis::Integer && factor == 1.0) || (axis == Axis::Bytes && factor == 1.0))
        stepInUnit = std::max(1.0, stepInUnit);
    if (stepInUnit == 0.0) {
        // One value: one tick, labelled like the others would be.
        t.values.push_back(lo);
        t.labels.push_back(joined(number(lo / factor), unit));
        return t;
    }
    t.step = stepInUnit * factor;
    const int decimals = std::max(0, -int(std::floor(std::log10(stepInUnit) + 1e-9)));
    const double first = std::ceil(lo / t.step - 1e-9);
    const double last = std::floor(hi / t.step + 1e-9);
    // A pathological range (a step far below the values' precision) must not loop for ever;
    // counting k keeps the loop finite where first + 1.0 == first.
    if (!(last - first <= 10'000))
        return t;
    const auto n = static_cast<long>(last - first);
    for (long k = 0; k <= n; ++k) {
        const double i = first + double(k);
        t.values.push_back(i * t.step);
        t.labels.push_back(joined(fixed(i * stepInUnit, decimals), unit));
    }
    return t;
}

std::string counted(long n, std::string_view singular, std::string_view plural)
{
    std::string noun(n == 1 ? singular : plural.empty() ? singular : plural);
    if (n != 1 && plural.empty())
        noun += "s";
    return std::to_string(n) + " " + noun;
}

} // namespace portolan::format
