#pragma once
// A real single-machine Slurm cluster for the tests: munged, slurmctld and slurmd started in a
// temporary folder with their own key, ports, state, spool, logs and slurm.conf, ready when sinfo
// shows the node idle, stopped by PID. Nothing of the machine's own Slurm or munge is touched.
#include <QProcess>
#include <QString>
#include <QTemporaryDir>
#include <memory>

class LocalSlurm
{
public:
    LocalSlurm();
    ~LocalSlurm(); // stops the daemons it started

    // Empty when the cluster is up; else why it could not start (the caller skips with it).
    QString start();
    QString confPath() const; // SLURM_CONF for the client commands
    QString dir() const;
    QString logs() const; // the daemons' logs, for a failure message
    double startSeconds() const { return m_startSeconds; }

private:
    QString writeConf(int ctldPort, int slurmdPort);
    void stop();

    QTemporaryDir m_dir;
    qint64 m_mungePid = 0;
    std::unique_ptr<QProcess> m_ctld;
    std::unique_ptr<QProcess> m_slurmd;
    double m_startSeconds = 0;
};
