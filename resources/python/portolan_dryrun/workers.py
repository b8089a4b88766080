"""Worker processes in a dry run: the project's worker function runs in this process.

Training in worker processes (Hogwild-style `torch.multiprocessing.Process(target=train)`,
`mp.spawn(fn, nprocs=N)`, `multiprocessing.Process`) would take the steps in children, where
the dry run's hooks (step counting, the capture, the CPU patches, the stand-ins) do not exist.
So a started process whose target is the project's own code runs that target inline, at
`start()`, one worker after the other: the first worker usually reaches the dry run's steps and
ends the run; a worker that returns sooner lets the next one run. `join()` returns at once and
the exit code is 0. `spawn`/`start_processes` call the function for rank 0 only (ranks that wait
for each other, as a process group does, cannot run one after the other). Said once, in a
`warning` event of kind `worker-inline`. Targets outside the project (a library's helper
process) start as usual.
"""
import multiprocessing.process as mp_process
import sys


def _name(fn):
    module = getattr(fn, "__module__", None) or ""
    name = getattr(fn, "__qualname__", None) or getattr(fn, "__name__", None) or repr(fn)
    return f"{module}.{name}" if module and module != "__main__" else name


def install(session, in_project):
    base = mp_process.BaseProcess
    original_start = base.start
    original_join = base.join
    original_exitcode = base.exitcode
    counts = {"started": 0}

    def ours(target):
        code = getattr(getattr(target, "__func__", target), "__code__", None)
        return code is not None and in_project(code.co_filename)

    def start(self):
        target = getattr(self, "_target", None)
        if not ours(target):
            return original_start(self)
        counts["started"] += 1
        session.warn_once(
            "worker-inline",
            f"the project trains in worker processes ({_name(target)}): the dry run runs each "
            "worker's function inline, in the dry run's own process, one after the other, so "
            "that its steps are seen; the first worker usually reaches the dry run's steps",
            kind="worker-inline", target=_name(target), how="sequential")
        self._portolan_inline = True
        self._portolan_exitcode = None
        target(*self._args, **self._kwargs)
        self._portolan_exitcode = 0

    def join(self, timeout=None):
        if getattr(self, "_portolan_inline", False):
            return None
        return original_join(self, timeout)

    def exitcode(self):
        if getattr(self, "_portolan_inline", False):
            return self._portolan_exitcode
        return original_exitcode.fget(self)

    def is_alive(self, _original=base.is_alive):
        if getattr(self, "_portolan_inline", False):
            return False
        return _original(self)

    base.start = start
    base.join = join
    base.exitcode = property(exitcode)
    base.is_alive = is_alive

    try:
        import torch.multiprocessing as tmp
    except ImportError:
        return

    original_spawn = getattr(tmp, "start_processes", None)

    def start_processes(fn, args=(), nprocs=1, join=True, daemon=False, start_method="spawn"):
        if not ours(fn) or original_spawn is None:
            return original_spawn(fn, args, nprocs, join, daemon, start_method)
        # nprocs is often one per GPU (torch.cuda.device_count()), 0 on the dry run's CPU.
        many = f"{nprocs} spawned process{'es' if nprocs != 1 else ''}" if nprocs >= 1 else \
            f"spawned processes (nprocs={nprocs}, one per GPU, and the dry run has none)"
        session.warn_once(
            "worker-inline",
            f"the project trains in {many} ({_name(fn)}): the dry run runs rank 0 inline, in "
            "the dry run's own process, so that its steps are "
            "seen (ranks that wait for each other cannot run one after the other)",
            kind="worker-inline", target=_name(fn), how="rank 0", processes=nprocs)
        fn(0, *args)
        return None

    def spawn(fn, args=(), nprocs=1, join=True, daemon=False, start_method="spawn"):
        return start_processes(fn, args, nprocs, join, daemon, start_method)

    tmp.start_processes = start_processes
    tmp.spawn = spawn
    # Code that imported them from the submodule (torch.multiprocessing.spawn.spawn) too.
    module = sys.modules.get("torch.multiprocessing.spawn")
    if module is not None:
        module.spawn = spawn
        module.start_processes = start_processes
