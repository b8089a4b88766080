"""A prestarted interpreter for dry runs: `python3 -m portolan_dryrun.forkserver`.

Importing torch takes about a second, most of a short dry run; verifying a port runs two, and a
test suite hundreds. This process imports torch (and torchvision) once and forks a fresh child
for each dry run Portolan asks for (core/dryrun/fork_server.cpp). Each child is what
`python3 -m portolan_dryrun ARGS` would be, with the run's working directory, environment,
memory limit and pipes, in its own process group. Nothing of a project runs in this process:
the project's code runs only in the forked child, after the user trusted the project, as before.

The protocol, on the socket at fd 3 (SOCK_SEQPACKET, one message per request):
- this process sends b"ready" once its imports are done;
- a request is a JSON object {"args": [...], "env": ["K=V", ...], "cwd": "...",
  "memory_bytes": N} with four or five descriptors: the run's event pipe, stdout, stderr, a
  status socket, and its stdin (a terminal, core/dryrun/terminal.h; /dev/null when not given);
- on the status socket, a monitor process (forked for the request; it waits for the run, which
  is its child) writes "pid P\\n" once the run is forked, then "status S\\n" with the raw wait
  status when it ends, or "error MESSAGE\\n".
The server ends when the socket closes (Portolan exited) or after IDLE_SECONDS without a
request.
"""
import atexit
import json
import os
import resource
import runpy
import select
import signal
import socket
import sys
import traceback

CONTROL_FD = 3
IDLE_SECONDS = 600


def preload():
    # What most projects import, and what the driver needs; a missing one is the run's concern.
    for name in ("torch", "torchvision"):
        try:
            __import__(name)
        except Exception:  # noqa: BLE001 - an import that fails here fails in the run, reported
            pass


def exit_code(code):
    if code is None:
        return 0
    if isinstance(code, int):
        return code & 0xFF
    print(code, file=sys.stderr)
    return 1


def run(request, events, out, err, given_input):
    """The forked dry run: becomes `python3 -m portolan_dryrun ARGS`; never returns."""
    code = 1
    try:
        os.setpgid(0, 0)
        if request.get("memory_bytes", 0) > 0:
            limit = int(request["memory_bytes"])
            resource.setrlimit(resource.RLIMIT_AS, (limit, limit))
        sys.stdout.flush()
        sys.stderr.flush()
        os.dup2(given_input if given_input >= 0 else os.open(os.devnull, os.O_RDONLY), 0)
        os.dup2(out, 1)
        os.dup2(err, 2)
        os.dup2(events, 3)
        os.closerange(4, 1024)
        cwd = request["cwd"] or os.getcwd()
        os.chdir(cwd)
        os.environ.clear()
        os.environ.update(dict(kv.split("=", 1) for kv in request["env"] if "=" in kv))
        # `python3 -m` puts the working directory first on sys.path.
        sys.path[0] = os.getcwd()
        sys.argv = ["-m"] + list(request["args"])
        try:
            runpy.run_module("portolan_dryrun", run_name="__main__", alter_sys=True)
            code = 0
        except SystemExit as stop:
            code = exit_code(stop.code)
        except BaseException:  # noqa: BLE001 - as the interpreter would: traceback, status 1
            traceback.print_exc()
            code = 1
        try:
            atexit._run_exitfuncs()
        except BaseException:  # noqa: BLE001
            pass
        for stream in (sys.stdout, sys.stderr):
            try:
                stream.flush()
            except BaseException:  # noqa: BLE001
                pass
    finally:
        os._exit(code)


def monitor(request, fds):
    """Forks the run, says its pid, waits for it and says how it ended; never returns."""
    events, out, err, status = fds[:4]
    given_input = fds[4] if len(fds) > 4 else -1
    try:
        signal.signal(signal.SIGCHLD, signal.SIG_DFL)
        pid = os.fork()
        if pid == 0:
            os.close(status)
            run(request, events, out, err, given_input)
        try:
            os.setpgid(pid, pid)  # also done in the run; whichever comes first
        except OSError:
            pass
        for fd in fds[:3] + fds[4:]:
            os.close(fd)
        os.write(status, f"pid {pid}\n".encode())
        _, wait_status = os.waitpid(pid, 0)
        os.write(status, f"status {wait_status}\n".encode())
    except BaseException as error:  # noqa: BLE001 - said on the status socket
        try:
            os.write(status, f"error {error}\n".encode())
        except OSError:
            pass
    finally:
        os._exit(0)


def main():
    control = socket.socket(fileno=CONTROL_FD)
    # The monitors are reaped by the kernel: this process never waits for them.
    signal.signal(signal.SIGCHLD, signal.SIG_IGN)
    preload()
    control.send(b"ready")
    while True:
        # Idle for long (a GUI left open): give the memory back; Portolan starts a new one.
        if not select.select([control], [], [], IDLE_SECONDS)[0]:
            break
        try:
            message, fds, _, _ = socket.recv_fds(control, 1 << 20, 8)
        except OSError:
            break
        if not message:
            break  # Portolan closed its end
        try:
            request = json.loads(message)
            if len(fds) not in (4, 5):
                raise ValueError(f"{len(fds)} descriptors, 4 or 5 expected")
            if os.fork() == 0:
                control.close()
                monitor(request, fds)
        except Exception as error:  # noqa: BLE001 - a bad request ends only that request
            if len(fds) >= 4:
                try:
                    os.write(fds[3], f"error {error}\n".encode())
                except OSError:
                    pass
        for fd in fds:
            os.close(fd)
    return 0


if __name__ == "__main__":
    sys.exit(main())
