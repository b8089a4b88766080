// The original's command-line words as the values a port takes (issue 24). When the parser's
// definitions are known, the words are read as argparse reads them: a flag that takes no value
// (store_true, count, ...) leaves the next word to the positionals, a short option may carry its
// value (`-b5`) or be clustered with others (`-qv`), and an option with nargs takes its words.
// An option the parser does not define keeps the guess: the next word, unless it is an option.
#include "core/port/generate.h"

#include <algorithm>
#include <cctype>

namespace portolan::port {

namespace {

// argparse reads `-1` and `-0.5` as values, not options, when no option of the parser looks
// like a negative number.
bool negativeNumber(const std::string& w)
{
    return w.size() > 1 && w[0] == '-' &&
           (std::isdigit(static_cast<unsigned char>(w[1])) || w[1] == '.') &&
           w.find_first_not_of("0123456789.eE+-", 1) == std::string::npos;
}

bool isValue(const std::string& w)
{
    return !w.starts_with("-") || w == "-" || negativeNumber(w);
}

bool takesNoValue(const analysis::CliFlag& f)
{
    static const char* const none[] = {"store_true",   "store_false", "store_const", "count",
                                       "append_const", "help",        "version"};
    return std::find(std::begin(none), std::end(none), f.action) != std::end(none) ||
           f.nargs == "0";
}

// How many words an option's nargs takes: {least, most}; most < 0 without bound.
std::pair<int, int> wordsTaken(const analysis::CliFlag& f)
{
    if (f.nargs.empty())
        return {1, 1};
    if (f.nargs == "?")
        return {0, 1};
    if (f.nargs == "*")
        return {0, -1};
    if (f.nargs == "+")
        return {1, -1};
    if (f.nargs.find_first_not_of("0123456789") == std::string::npos)
        return {std::stoi(f.nargs), std::stoi(f.nargs)};
    return {0, -1}; // argparse.REMAINDER and forms not read: every value word that follows
}

class Reader
{
public:
    Reader(const std::vector<std::string>& args, const std::vector<analysis::CliFlag>& flags)
        : m_args(args), m_flags(flags)
    {}

    std::map<std::string, std::string> read()
    {
        bool onlyPositionals = false;
        for (m_i = 0; m_i < m_args.size(); ++m_i) {
            const std::string& a = m_args[m_i];
            // A word no option took is the next positional argument's value (argparse's order).
            if (onlyPositionals || isValue(a)) {
                m_out[positionalKey(++m_positionals)] = a;
                continue;
            }
            if (a == "--") {
                onlyPositionals = true;
                continue;
            }
            const auto eq = a.find('=');
            const std::string option = a.substr(0, eq);
            if (const auto* f = flagOf(option)) {
                if (eq != std::string::npos)
                    m_out[option] = a.substr(eq + 1);
                else
                    take(option, *f);
                continue;
            }
            if (!a.starts_with("--") && a.size() > 2 && eq == std::string::npos &&
                flagOf(a.substr(0, 2))) {
                shortCluster(a);
                continue;
            }
            if (eq != std::string::npos) {
                m_out[option] = a.substr(eq + 1);
            } else if (m_i + 1 < m_args.size() && isValue(m_args[m_i + 1])) {
                m_out[a] = m_args[++m_i];
            } else {
                m_out[a] = "";
            }
        }
        return m_out;
    }

private:
    // The flag an option word names: its own, or the one long option it abbreviates (argparse's
    // allow_abbrev); none when several start with it.
    const analysis::CliFlag* flagOf(const std::string& option) const
    {
        const analysis::CliFlag* prefixOf = nullptr;
        int prefixes = 0;
        for (const auto& f : m_flags)
            for (const auto& o : f.options) {
                if (o == option)
                    return &f;
                if (option.starts_with("--") && option.size() > 2 && o.starts_with(option)) {
                    prefixOf = &f;
                    ++prefixes;
                }
            }
        return prefixes == 1 ? prefixOf : nullptr;
    }

    // A known option written alone: its value words, as many as it takes.
    void take(const std::string& option, const analysis::CliFlag& f)
    {
        if (takesNoValue(f)) {
            given(option, f);
            return;
        }
        const auto [least, most] = wordsTaken(f);
        std::string words;
        int n = 0;
        while ((most < 0 || n < most) && m_i + 1 < m_args.size() && isValue(m_args[m_i + 1])) {
            words += (n ? "\n" : "") + m_args[++m_i];
            ++n;
        }
        (void)least; // fewer words than argparse needs: it stops there, the port keeps what came
        m_out[option] = words;
    }

    // `-b5` (a short option and its value) or `-qv` (short flags that take no value, the last
    // perhaps with its value: `-qb5`).
    void shortCluster(const std::string& a)
    {
        for (std::size_t c = 1; c < a.size(); ++c) {
            const std::string option = std::string("-") + a[c];
            const auto* f = flagOf(option);
            if (!f) {
                m_out[option] = "";
                continue;
            }
            if (!takesNoValue(*f)) {
                m_out[option] = a.substr(c + 1);
                return;
            }
            given(option, *f);
        }
    }

    // A flag that takes no value: present, or counted (`-vv`: "2").
    void given(const std::string& option, const analysis::CliFlag& f)
    {
        if (f.action != "count") {
            m_out[option] = "";
            return;
        }
        const auto it = m_out.find(option);
        m_out[option] = std::to_string(it == m_out.end() ? 1 : std::stoi(it->second) + 1);
    }

    const std::vector<std::string>& m_args;
    const std::vector<analysis::CliFlag>& m_flags;
    std::map<std::string, std::string> m_out;
    std::size_t m_i = 0;
    int m_positionals = 0;
};

} // namespace

std::string positionalKey(int n)
{
    return "#" + std::to_string(n);
}

std::map<std::string, std::string> argumentValues(const std::vector<std::string>& args,
                                                  const std::vector<analysis::CliFlag>& flags)
{
    return Reader(args, flags).read();
}

} // namespace portolan::port
