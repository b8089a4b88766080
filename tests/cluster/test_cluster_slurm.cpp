// core/cluster without a cluster: what Slurm 22.05's commands printed on a real single-machine
// cluster (fixtures/slurm-22.05, captured from sbatch, squeue, scontrol, sacct and sinfo), the
// job script Portolan writes, and the reading of a job's output file as it grows.
#include "core/cluster/cluster.h"
#include "core/common/json.h"

#include <QFile>
#include <QTemporaryDir>
#include <QtTest>
#include <fstream>

using namespace portolan::cluster;

namespace {

std::string fixture(const QString& name)
{
    QFile f(QStringLiteral(CLUSTER_FIXTURES "/slurm-22.05/") + name);
    if (!f.open(QIODevice::ReadOnly))
        qFatal("missing fixture %s", qPrintable(name));
    return f.readAll().toStdString();
}

} // namespace

class TestClusterSlurm : public QObject
{
    Q_OBJECT

private Q_SLOTS:
    void sbatchOutput_data();
    void sbatchOutput();
    void squeue_data();
    void squeue();
    void scontrol_data();
    void scontrol();
    void sacct_data();
    void sacct();
    void partitions();
    void jobScriptRoundTrip();
    void jobScriptRuns();
    void timeLimits_data();
    void timeLimits();
    void firstHost_data();
    void firstHost();
    void splitLongLines();
    void followerReadsGrowingFile();
    void missingSlurmClient();
};

void TestClusterSlurm::sbatchOutput_data()
{
    QTest::addColumn<QString>("file");
    QTest::addColumn<qint64>("id"); // -1: none
    QTest::addRow("--parsable") << "sbatch_parsable.txt" << qint64(1);
    QTest::addRow("plain") << "sbatch_plain.txt" << qint64(5);
    QTest::addRow("refused") << "sbatch_bad_partition.txt" << qint64(-1);
}

void TestClusterSlurm::sbatchOutput()
{
    QFETCH(QString, file);
    QFETCH(qint64, id);
    const auto parsed = parseSbatchOutput(fixture(file));
    QCOMPARE(parsed.has_value(), id >= 0);
    if (parsed)
        QCOMPARE(qint64(*parsed), id);
    // Federated clusters append ";cluster".
    QCOMPARE(parseSbatchOutput("42;portolantest\n").value_or(-1), 42);
}

void TestClusterSlurm::squeue_data()
{
    QTest::addColumn<QString>("file");
    QTest::addColumn<qint64>("job");
    QTest::addColumn<QString>("state"); // empty: not listed
    QTest::addColumn<QString>("reason");
    QTest::addColumn<QString>("nodes");
    QTest::addRow("pending") << "squeue_pending.txt" << qint64(1) << "PENDING"
                             << "None"
                             << "";
    QTest::addRow("running") << "squeue_running.txt" << qint64(1) << "RUNNING"
                             << "None"
                             << "vm";
    QTest::addRow("another job's line") << "squeue_all.txt" << qint64(5) << "PENDING"
                                        << "Priority"
                                        << "";
    QTest::addRow("left the queue") << "squeue_all.txt" << qint64(1) << ""
                                    << ""
                                    << "";
    QTest::addRow("unknown id (stderr)") << "squeue_unknown.txt" << qint64(999) << ""
                                         << ""
                                         << "";
}

void TestClusterSlurm::squeue()
{
    QFETCH(QString, file);
    QFETCH(qint64, job);
    QFETCH(QString, state);
    QFETCH(QString, reason);
    QFETCH(QString, nodes);
    const auto s = parseSqueue(fixture(file), job);
    QCOMPARE(s.has_value(), !state.isEmpty());
    if (!s)
        return;
    QCOMPARE(QString::fromStdString(jobStateName(s->state)), state);
    QCOMPARE(QString::fromStdString(s->reason), reason);
    QCOMPARE(QString::fromStdString(s->nodes), nodes);
    QVERIFY(!isFinal(s->state));
}

void TestClusterSlurm::scontrol_data()
{
    QTest::addColumn<QString>("file");
    QTest::addColumn<QString>("state");
    QTest::addColumn<int>("exitCode");
    QTest::addColumn<int>("signal");
    QTest::addColumn<bool>("final");
    QTest::addRow("pending") << "scontrol_pending.txt"
                             << "PENDING" << 0 << 0 << false;
    QTest::addRow("running") << "scontrol_running.txt"
                             << "RUNNING" << 0 << 0 << false;
    QTest::addRow("completed") << "scontrol_completed.txt"
                               << "COMPLETED" << 0 << 0 << true;
    QTest::addRow("failed") << "scontrol_failed.txt"
                            << "FAILED" << 3 << 0 << true;
    QTest::addRow("cancelled") << "scontrol_cancelled.txt"
                               << "CANCELLED" << 0 << 15 << true;
}

void TestClusterSlurm::scontrol()
{
    QFETCH(QString, file);
    QFETCH(QString, state);
    QFETCH(int, exitCode);
    QFETCH(int, signal);
    QFETCH(bool, final);
    const auto s = parseScontrolJob(fixture(file));
    QVERIFY(s);
    QCOMPARE(QString::fromStdString(jobStateName(s->state)), state);
    QCOMPARE(s->exitCode, exitCode);
    QCOMPARE(s->signal, signal);
    QCOMPARE(isFinal(s->state), final);
    if (file == "scontrol_running.txt") {
        QCOMPARE(s->stdoutPath, std::string("/tmp/slurmw/c/probe-1.out"));
        QCOMPARE(s->nodes, std::string("vm"));
    }
}

void TestClusterSlurm::sacct_data()
{
    QTest::addColumn<QString>("text");
    QTest::addColumn<QString>("state"); // empty: nothing known
    QTest::addColumn<int>("exitCode");
    QTest::addRow("accounting disabled (real)")
        << QString::fromStdString(fixture("sacct_accounting_disabled.txt")) << "" << 0;
    // sacct -n -P --format=JobID,State,ExitCode,NodeList on a cluster with accounting: the
    // job's line, then its steps' (the steps' states must not decide).
    QTest::addRow("job and steps")
        << "17|FAILED|2:0|node[01-02]\n17.batch|FAILED|2:0|node01\n17.0|COMPLETED|0:0|node[01-02]\n"
        << "FAILED" << 2;
    QTest::addRow("cancelled by a user") << "18|CANCELLED by 1000|0:0|node01\n"
                                         << "CANCELLED" << 0;
    QTest::addRow("other job only") << "19|COMPLETED|0:0|node01\n"
                                    << "" << 0;
}

void TestClusterSlurm::sacct()
{
    QFETCH(QString, text);
    QFETCH(QString, state);
    QFETCH(int, exitCode);
    const std::int64_t job = text.startsWith("18") ? 18 : 17;
    const auto s = parseSacct(text.toStdString(), job);
    const bool known = s && s->state != JobState::Unknown;
    QCOMPARE(known, !state.isEmpty());
    if (!known)
        return;
    QCOMPARE(QString::fromStdString(jobStateName(s->state)), state);
    QCOMPARE(s->exitCode, exitCode);
}

void TestClusterSlurm::partitions()
{
    const auto real = parsePartitions(fixture("sinfo.txt"));
    QCOMPARE(real.size(), std::size_t(1));
    QCOMPARE(real[0].name, std::string("debug"));
    QVERIFY(real[0].isDefault);
    QVERIFY(real[0].up);
    QCOMPARE(real[0].nodes, 1);
    QCOMPARE(real[0].idleNodes, 1);
    QCOMPARE(real[0].cpusPerNode, std::string("2"));
    // Several node states of one partition are merged; a down partition stays listed.
    const auto merged = parsePartitions("gpu*|up|1-00:00:00|3|idle|64\ngpu*|up|1-00:00:00|2|"
                                        "alloc|64\nbig|down|infinite|4|idle|128\n");
    QCOMPARE(merged.size(), std::size_t(2));
    QCOMPARE(merged[0].nodes, 5);
    QCOMPARE(merged[0].idleNodes, 3);
    QCOMPARE(merged[0].timeLimit, std::string("1-00:00:00"));
    QVERIFY(!merged[1].up);
    QVERIFY(!merged[1].isDefault);
}

void TestClusterSlurm::jobScriptRoundTrip()
{
    JobRequest r;
    r.jobName = "portolan-mnist";
    r.nodes = 2;
    r.tasksPerNode = 4;
    r.partition = "gpu";
    r.timeLimit = "1:00:00";
    r.workDir = "/home/u/my project";
    r.output = "/home/u/my project/.portolan/jobs/train-%j.out";
    r.command = {"/opt/portolan/bin/portolan-torch", "train", "/home/u/my project", "--steps",
                 "10"};
    const std::string s = jobScript(r);
    QVERIFY(s.rfind("#!/bin/bash\n", 0) == 0);
    QVERIFY(s.find("#SBATCH --nodes=2\n") != std::string::npos);
    QVERIFY(s.find("#SBATCH --ntasks-per-node=4\n") != std::string::npos);
    QVERIFY(s.find("#SBATCH --partition=gpu\n") != std::string::npos);
    QVERIFY(s.find("#SBATCH --time=1:00:00\n") != std::string::npos);
    QVERIFY(s.find("srun --label --kill-on-bad-exit=1 /opt/portolan/bin/portolan-torch train "
                   "'/home/u/my project' --steps 10") != std::string::npos);
    const auto out = scriptOutputPattern(s);
    QVERIFY(out);
    QCOMPARE(*out, r.output.string());
    QCOMPARE(expandOutputPattern(*out, 812, "x"),
             std::string("/home/u/my project/.portolan/jobs/train-812.out"));
    QCOMPARE(expandOutputPattern("%x-%j-%%-%N.out", 5, "job"), std::string("job-5-%-%N.out"));
    QCOMPARE(scriptOutputPattern("#!/bin/sh\n#SBATCH -o run.log\necho\n").value_or(""),
             std::string("run.log"));
    QVERIFY(!scriptOutputPattern("#!/bin/sh\n# SBATCH --output=x\n"));
}

// The rendezvous lines of the script are bash: run them with the variables srun would set.
void TestClusterSlurm::jobScriptRuns()
{
    JobRequest r;
    r.command = {"/bin/sh", "-c", "echo \"$MASTER_PORT $OMP_NUM_THREADS it's\""};
    std::string s = jobScript(r);
    // No scontrol here: a stand-in for the host list expansion, and srun replaced by a shell.
    s = "scontrol() { echo node07; echo node08; }\nsrun() { shift 2; \"$@\"; }\n" +
        s.substr(s.find('\n') + 1);
    QTemporaryDir dir;
    const std::string file = dir.filePath("job.sh").toStdString();
    std::ofstream(file) << s;
    const auto result = runCommand(
        {"/usr/bin/env", "SLURM_JOB_ID=10042", "SLURM_CPUS_PER_TASK=3", "/bin/bash", file}, 10);
    QVERIFY2(result.ok(), result.errorText().c_str());
    QCOMPARE(result.out,
             std::to_string(rendezvousPortForJob(10042)) + " 3 it's\n"); // as portolan-torch
}

void TestClusterSlurm::timeLimits_data()
{
    QTest::addColumn<QString>("text");
    QTest::addColumn<bool>("valid");
    for (const char* ok : {"30", "10:00", "1:00:00", "2-0", "2-12", "2-12:30", "2-12:30:00",
                           "UNLIMITED", "infinite"})
        QTest::addRow("%s", ok) << ok << true;
    for (const char* bad : {"", "1h", "1:2:3:4", "-5", "2-", "a-1", "1:xx"})
        QTest::addRow("bad '%s'", bad) << bad << false;
}

void TestClusterSlurm::timeLimits()
{
    QFETCH(QString, text);
    QFETCH(bool, valid);
    QCOMPARE(timeLimitError(text.toStdString()).empty(), valid);
}

void TestClusterSlurm::firstHost_data()
{
    QTest::addColumn<QString>("list");
    QTest::addColumn<QString>("first");
    QTest::addRow("one") << "vm"
                         << "vm";
    QTest::addRow("range") << "node[07-09,12],gpu1"
                           << "node07";
    QTest::addRow("plain list") << "a1,b2"
                                << "a1";
    QTest::addRow("suffix") << "rack[3-4]-n1"
                            << "rack3-n1";
}

void TestClusterSlurm::firstHost()
{
    QFETCH(QString, list);
    QFETCH(QString, first);
    QCOMPARE(QString::fromStdString(firstHostOf(list.toStdString())), first);
}

// srun cut the 2-task run's "started" event (more than 1 KB) into labelled pieces: the joiner
// gives back whole events, task by task, and the batch script's own lines unchanged.
void TestClusterSlurm::splitLongLines()
{
    for (const QString name : {"srun_label_output.txt", "srun_label_probe.txt"}) {
        std::istringstream in(fixture(name));
        TaskLineJoiner joiner;
        std::vector<OutputLine> lines;
        for (std::string l; std::getline(in, l);)
            for (auto& o : joiner.push(l))
                lines.push_back(std::move(o));
        QVERIFY(joiner.flush().empty());
        int events = 0, started = 0;
        for (const auto& l : lines) {
            if (l.text.front() != '{')
                continue;
            const auto e = nlohmann::json::parse(l.text, nullptr, false);
            QVERIFY2(e.is_object(), l.text.c_str());
            QCOMPARE(l.task, 0);
            ++events;
            started += e.value("event", "") == "started";
        }
        if (name == "srun_label_output.txt") {
            QCOMPARE(started, 1);
            QVERIFY(events >= 5);
        } else {
            QCOMPARE(lines.size(), std::size_t(3));
            QCOMPARE(lines[0].task, -1);
            QCOMPARE(lines[0].text, std::string("batch line"));
            QCOMPARE(lines[1].task, 1);
            QCOMPARE(lines[1].text, std::string("hello from 1"));
        }
    }
    // Text that only looks like an object start is let go at the flush.
    TaskLineJoiner j;
    QVERIFY(j.push("3: {not json").empty());
    QCOMPARE(j.flush().at(0).task, 3);
}

void TestClusterSlurm::followerReadsGrowingFile()
{
    QTemporaryDir dir;
    const std::string file = dir.filePath("job.out").toStdString();
    OutputFollower f(file);
    QVERIFY(f.poll().empty()); // not there yet: the job has not started
    std::ofstream out(file, std::ios::binary);
    out << "0: one\n0: tw" << std::flush;
    QCOMPARE(f.poll(), std::vector<std::string>{"0: one"});
    out << "o\r\n1: three" << std::flush;
    QCOMPARE(f.poll(), std::vector<std::string>{"0: two"});
    QCOMPARE(f.flush(), std::vector<std::string>{"1: three"});
    out.close();
    std::ofstream(file, std::ios::binary | std::ios::trunc) << "again\n"; // requeued
    QCOMPARE(f.poll(), std::vector<std::string>{"again"});
}

void TestClusterSlurm::missingSlurmClient()
{
    const QByteArray path = qgetenv("PATH");
    qputenv("PATH", "/nonexistent");
    const std::string problem = slurmClientProblem();
    const auto partitions = listPartitions();
    qputenv("PATH", path);
    QVERIFY(problem.find("sbatch") != std::string::npos);
    QVERIFY(!partitions);
    QCOMPARE(partitions.error.code, std::string("cluster.no-slurm"));
}

QTEST_GUILESS_MAIN(TestClusterSlurm)
#include "test_cluster_slurm.moc"
