// Facts this relies on (Debian 12, slurm-wlm 22.05): munged runs as the munge user, which must
// own its key and be able to reach its socket; slurmctld and slurmd stay in the foreground with
// -D; proctrack/linuxproc and task/none need no cgroups or systemd; the node's CPUs are nproc's
// (more would drain it).
#include "local_slurm.h"

#include "core/cluster/cluster.h"

#include <QDir>
#include <QElapsedTimer>
#include <QFile>
#include <QThread>
#include <csignal>
#include <pwd.h>
#include <sys/stat.h>
#include <thread>
#include <unistd.h>

namespace {

QString tail(const QString& file, int lines = 8)
{
    QFile f(file);
    if (!f.open(QIODevice::ReadOnly))
        return {};
    const QStringList all = QString::fromUtf8(f.readAll()).split('\n', Qt::SkipEmptyParts);
    return all.mid(std::max<qsizetype>(0, all.size() - lines)).join('\n');
}

QString hostName()
{
    char name[256] = {};
    ::gethostname(name, sizeof name - 1);
    return QString::fromLocal8Bit(name);
}

bool processAlive(qint64 pid)
{
    return pid > 0 && ::kill(pid_t(pid), 0) == 0;
}

} // namespace

LocalSlurm::LocalSlurm() = default;

LocalSlurm::~LocalSlurm()
{
    stop();
}

QString LocalSlurm::dir() const
{
    return m_dir.path();
}

QString LocalSlurm::confPath() const
{
    return m_dir.filePath("slurm.conf");
}

QString LocalSlurm::logs() const
{
    QString out;
    for (const char* name : {"munge/munged.log", "log/slurmctld.log", "log/slurmd.log"})
        out += QString("--- %1\n%2\n").arg(name, tail(m_dir.filePath(name)));
    return out;
}

QString LocalSlurm::writeConf(int ctldPort, int slurmdPort)
{
    const QString host = hostName();
    const QString d = m_dir.path();
    QFile f(confPath());
    if (!f.open(QIODevice::WriteOnly))
        return "cannot write " + confPath();
    const unsigned cpus = std::max(1u, std::thread::hardware_concurrency());
    f.write(QString("ClusterName=portolantest\n"
                    "SlurmctldHost=%1(127.0.0.1)\n"
                    "SlurmctldPort=%2\n"
                    "SlurmdPort=%3\n"
                    "SlurmUser=root\nSlurmdUser=root\n"
                    "AuthType=auth/munge\nCredType=cred/munge\n"
                    "AuthInfo=socket=%4/munge/socket\n"
                    "StateSaveLocation=%4/state\nSlurmdSpoolDir=%4/spool\n"
                    "SlurmctldPidFile=%4/slurmctld.pid\nSlurmdPidFile=%4/slurmd.pid\n"
                    "SlurmctldLogFile=%4/log/slurmctld.log\nSlurmdLogFile=%4/log/slurmd.log\n"
                    "ProctrackType=proctrack/linuxproc\nTaskPlugin=task/none\n"
                    "SelectType=select/cons_tres\nSelectTypeParameters=CR_CPU\n"
                    "MpiDefault=none\nJobAcctGatherType=jobacct_gather/none\n"
                    "AccountingStorageType=accounting_storage/none\nJobCompType=jobcomp/none\n"
                    "ReturnToService=2\nInactiveLimit=0\nMinJobAge=300\nKillWait=2\n"
                    "SchedulerParameters=sched_interval=1\n"
                    "NodeName=%1 NodeAddr=127.0.0.1 CPUs=%5 State=UNKNOWN\n"
                    "PartitionName=debug Nodes=ALL Default=YES MaxTime=INFINITE State=UP\n")
                .arg(host)
                .arg(ctldPort)
                .arg(slurmdPort)
                .arg(d)
                .arg(cpus)
                .toUtf8());
    return {};
}

QString LocalSlurm::start()
{
    QElapsedTimer timer;
    timer.start();
    if (::geteuid() != 0)
        return "a local Slurm cluster needs root (slurmd runs the jobs as their users)";
    for (const char* daemon : {"munged", "slurmctld", "slurmd", "sbatch", "sinfo"})
        if (portolan::cluster::findProgram(daemon).empty() &&
            !QFile::exists(QString("/usr/sbin/") + daemon))
            return QString("%1 is not installed (Debian: slurm-wlm, munge)").arg(daemon);
    const passwd* munge = ::getpwnam("munge");
    if (!munge)
        return "no munge user (Debian's munge package creates it)";
    if (!m_dir.isValid())
        return "cannot create a temporary folder";

    const QString d = m_dir.path();
    // munged checks that every folder up to its socket can be entered by everyone.
    ::chmod(d.toLocal8Bit().constData(), 0711);
    for (const char* sub : {"munge", "state", "spool", "log"})
        QDir(d).mkpath(sub);
    const QString key = d + "/munge/munge.key";
    {
        QFile random("/dev/urandom"), k(key);
        if (!random.open(QIODevice::ReadOnly) || !k.open(QIODevice::WriteOnly))
            return "cannot write the munge key";
        k.write(random.read(1024));
    }
    ::chmod(key.toLocal8Bit().constData(), 0600);
    ::chmod((d + "/munge").toLocal8Bit().constData(), 0711);
    for (const QString& p : {d + "/munge", key})
        if (::chown(p.toLocal8Bit().constData(), munge->pw_uid, munge->pw_gid) != 0)
            return "cannot give the munge key to the munge user";

    const auto mungeRun = portolan::cluster::runCommand(
        {"/usr/sbin/runuser", "-u", "munge", "--", "/usr/sbin/munged",
         ("--socket=" + d + "/munge/socket").toStdString(), ("--key-file=" + key).toStdString(),
         ("--pid-file=" + d + "/munge/munged.pid").toStdString(),
         ("--log-file=" + d + "/munge/munged.log").toStdString(),
         ("--seed-file=" + d + "/munge/munged.seed").toStdString()},
        20);
    if (!mungeRun.ok())
        return "munged did not start: " + QString::fromStdString(mungeRun.errorText()) + "\n" +
               logs();
    {
        QFile pid(d + "/munge/munged.pid");
        if (pid.open(QIODevice::ReadOnly))
            m_mungePid = pid.readAll().trimmed().toLongLong();
    }

    if (const QString e =
            writeConf(portolan::cluster::freeTcpPort(), portolan::cluster::freeTcpPort());
        !e.isEmpty())
        return e;
    QProcessEnvironment env = QProcessEnvironment::systemEnvironment();
    env.insert("SLURM_CONF", confPath());
    m_ctld = std::make_unique<QProcess>();
    m_ctld->setProcessEnvironment(env);
    m_ctld->setStandardOutputFile(d + "/log/slurmctld.out");
    m_ctld->setStandardErrorFile(d + "/log/slurmctld.out");
    m_ctld->start("/usr/sbin/slurmctld", {"-D", "-i", "-f", confPath()});
    m_slurmd = std::make_unique<QProcess>();
    m_slurmd->setProcessEnvironment(env);
    m_slurmd->setStandardOutputFile(d + "/log/slurmd.out");
    m_slurmd->setStandardErrorFile(d + "/log/slurmd.out");
    m_slurmd->start("/usr/sbin/slurmd", {"-D", "-f", confPath(), "-N", hostName()});
    if (!m_ctld->waitForStarted(5000) || !m_slurmd->waitForStarted(5000))
        return "slurmctld or slurmd did not start";

    // Ready when the node is idle.
    qputenv("SLURM_CONF", confPath().toLocal8Bit());
    QString last;
    while (timer.elapsed() < 20000) {
        if (m_ctld->state() != QProcess::Running || m_slurmd->state() != QProcess::Running)
            return "a Slurm daemon ended at start-up:\n" + logs() + tail(d + "/log/slurmctld.out") +
                   tail(d + "/log/slurmd.out");
        const auto r = portolan::cluster::runCommand({"sinfo", "-h", "-o", "%t"}, 5);
        last = QString::fromStdString(r.ok() ? r.out : r.errorText()).trimmed();
        if (last == "idle") {
            m_startSeconds = double(timer.elapsed()) / 1000.0;
            return {};
        }
        QThread::msleep(100);
    }
    return "the node did not become idle in 20 s (sinfo: " + last + ")\n" + logs();
}

void LocalSlurm::stop()
{
    for (auto* p : {m_slurmd.get(), m_ctld.get()}) {
        if (!p || p->state() == QProcess::NotRunning)
            continue;
        p->terminate();
        if (!p->waitForFinished(5000)) {
            p->kill();
            p->waitForFinished(2000);
        }
    }
    if (processAlive(m_mungePid)) {
        ::kill(pid_t(m_mungePid), SIGTERM);
        for (int i = 0; i < 50 && processAlive(m_mungePid); ++i)
            QThread::msleep(50);
    }
    m_mungePid = 0;
}
