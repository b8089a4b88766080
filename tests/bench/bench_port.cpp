// Plan and generation time of the porting engine (issue 24) for every corpus original
// (pytorch-* under the corpus folder), for each target; the figure to reach is under 1 s each,
// without the dry runs. `bench_port [CORPUS] [--write OUT]` also writes every port under OUT.
// `--verify` (which runs the projects' code: use it on a corpus you trust) also verifies each
// port (check, the dry runs of original and port, the replay) and prints its time and verdict;
// the ports then go under OUT or a temporary folder. PORTOLAN_PYTHON picks the interpreter.
// `--exec` starts every dry run with exec instead of forking it from the prestarted interpreter
// (the figure before core/dryrun/fork_server.h).
#include "core/analysis/analysis.h"
#include "core/port/generate.h"

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <string>
#include <vector>

int main(int argc, char** argv)
{
    namespace fs = std::filesystem;
    using clock = std::chrono::steady_clock;
    fs::path corpus = "/work/shared/corpus/projects";
    fs::path write;
    bool verify = false;
    bool prestarted = true;
    double verifyMs = 0;
    int verifications = 0;
    for (int i = 1; i < argc; ++i) {
        const std::string a = argv[i];
        if (a == "--verify")
            verify = true;
        else if (a == "--exec")
            prestarted = false;
        else if (a == "--write" && i + 1 < argc)
            write = argv[++i];
        else
            corpus = a;
    }
    std::vector<fs::path> projects;
    std::error_code ec;
    if (verify && write.empty())
        write = fs::temp_directory_path() / "bench_port";
    for (const auto& e : fs::directory_iterator(corpus, ec))
        if (e.is_directory() && e.path().filename().string().starts_with("pytorch-"))
            projects.push_back(e.path());
    std::sort(projects.begin(), projects.end());
    const std::vector<std::pair<std::string, std::string>> targets{{"determined-pytorchtrial", ""},
                                                                   {"graphcore-poptorch", ""},
                                                                   {"cerebras", "trainer"},
                                                                   {"cerebras", "runner"}};
    std::printf("%-34s %-26s %9s %9s %9s  %s\n", "project", "target", "analyse", "plan", "generate",
                "status");
    for (const auto& p : projects) {
        for (const auto& [to, api] : targets) {
            const auto t0 = clock::now();
            auto analysis = portolan::analysis::analyzeProject(p);
            const auto t1 = clock::now();
            if (!analysis) {
                std::printf("%-34s cannot analyse: %s\n", p.filename().c_str(),
                            analysis.error.message.c_str());
                break;
            }
            auto plan = portolan::port::planPort(*analysis.value);
            const auto t2 = clock::now();
            std::string status;
            double gen = 0;
            std::string guide = to + (api.empty() ? "" : "/" + api);
            if (!plan) {
                status = "no plan: " + plan.error.message;
            } else {
                auto r = portolan::port::generatePort(*plan.value, to, api);
                gen = std::chrono::duration<double, std::milli>(clock::now() - t2).count();
                if (!r) {
                    status = "failed: " + r.error.message;
                } else {
                    status = r.value->status() + " (" + std::to_string(r.value->manual.size()) +
                             " manual)";
                    guide = r.value->target;
                    if (!write.empty()) {
                        const fs::path out =
                            write / (p.filename().string() + "--" + r.value->target);
                        fs::remove_all(out, ec);
                        if (auto err = portolan::port::writePort(*r.value, out))
                            status += " write failed: " + err->message;
                        for (const auto& m : r.value->manual)
                            status += "\n      manual: " + m.toString();
                        if (verify && api != "runner") {
                            portolan::port::VerifyOptions vo;
                            vo.prestarted = prestarted;
                            if (const char* py = std::getenv("PORTOLAN_PYTHON"); py && *py)
                                vo.python = py;
                            const auto v = portolan::port::verifyPort(p, out, *r.value, vo);
                            verifyMs += v.milliseconds;
                            ++verifications;
                            char line[256];
                            std::snprintf(
                                line, sizeof line,
                                "\n      verify: %.0f ms, check errors %d, dry-run "
                                "steps %d, %s",
                                v.milliseconds, v.checkErrors, v.dryRunSteps,
                                v.agrees ? "agrees"
                                : v.firstDivergence
                                    ? ("parts at step " + std::to_string(v.firstDivergence)).c_str()
                                    : "not compared");
                            status += line;
                        }
                    }
                }
            }
            const auto ms = [](auto a, auto b) {
                return std::chrono::duration<double, std::milli>(b - a).count();
            };
            std::printf("%-34s %-26s %7.1fms %7.1fms %7.1fms  %s\n", p.filename().c_str(),
                        guide.c_str(), ms(t0, t1), ms(t1, t2), gen, status.c_str());
        }
    }
    if (verifications > 0)
        std::printf("verification: %d ports, %.1f s in all, %.0f ms each on average (%s)\n",
                    verifications, verifyMs / 1000, verifyMs / verifications,
                    prestarted ? "dry runs forked from the prestarted interpreter"
                               : "dry runs exec'd");
    return 0;
}
