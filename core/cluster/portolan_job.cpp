// The one description of a Portolan job, shared by `portolan-cli submit` and the Runs tab's
// preview, so that the script shown is the script submitted.
#include "core/cluster/cluster.h"

namespace portolan::cluster {

namespace fs = std::filesystem;

fs::path jobsFolder(const fs::path& project)
{
    return project / ".portolan" / "jobs";
}

JobRequest portolanJobRequest(const PortolanJob& job)
{
    JobRequest r;
    const std::string project = job.project.string();
    r.jobName = "portolan-" + job.project.filename().string();
    r.nodes = job.nodes;
    r.tasksPerNode = job.dryRun ? 1 : job.tasksPerNode;
    r.cpusPerTask = job.cpusPerTask;
    r.partition = job.partition;
    r.timeLimit = job.timeLimit;
    r.workDir = job.project;
    r.output = jobsFolder(job.project) / (job.stem + "-%j.out");
    if (job.dryRun) {
        // A project's own Python code: one process, Portolan's dry-run driver under srun.
        r.nodes = 1;
        r.command = {job.program.string(), "run", project, "--dry-run", "--events", "jsonl"};
        if (job.steps > 0)
            r.command.insert(r.command.end(), {"--steps", std::to_string(job.steps)});
        r.comments.push_back("Portolan dry run of " + project);
    } else {
        r.command = {job.program.string(),
                     "train",
                     project,
                     "--events",
                     "jsonl",
                     "--log-steps",
                     "1",
                     "--dist-timeout",
                     std::to_string(job.distTimeoutSeconds),
                     "--threads",
                     std::to_string(job.cpusPerTask)};
        if (!job.params.empty())
            r.command.insert(r.command.end(), {"--params", job.params.string()});
        if (job.steps > 0)
            r.command.insert(r.command.end(), {"--steps", std::to_string(job.steps)});
        r.comments.push_back("Portolan data-parallel training of " + project + ": " +
                             std::to_string(job.nodes * job.tasksPerNode) +
                             " ranks over Gloo, the params file's batch split among them");
    }
    r.comments.push_back("Edit freely (an account, a QOS, modules to load), then submit it with");
    r.comments.push_back("  portolan-cli submit " + project + " --slurm --script THIS_FILE");
    return r;
}

} // namespace portolan::cluster
