"""The dry run: plan, instrument, run the project's entry point, report.

Runs in the child process that portolan-cli starts (never in Portolan itself), with the
stand-ins first on sys.path. Every outcome ends with exactly one `finished` or `failed` event.
"""
import importlib.util
import inspect
import json
import os
import re
import runpy
import sys
import time
import traceback

from . import plan
from .events import Events

HERE = os.path.dirname(os.path.abspath(__file__))
PYTHON_DIR = os.path.dirname(HERE)
STANDINS = os.path.join(PYTHON_DIR, "portolan_standins")
FALLBACK = os.path.join(STANDINS, "_modelzoo_fallback")
STANDIN_PACKAGES = {"poptorch", "determined", "modelzoo", "_portolan_hooks", "_portolan_lamb"}

EXIT_OK, EXIT_FAILED, EXIT_USAGE = 0, 1, 2

MODELZOO_FLAVOURS = ("cerebras-pytorch", "cerebras-layers")
SCRIPT_FLAVOURS = ("graphcore-poptorch", "plain-pytorch", "unknown")


class Failure(Exception):
    def __init__(self, code, message, exit_code=EXIT_FAILED, location=None, **fields):
        super().__init__(message)
        self.code = code
        self.message = message
        self.exit_code = exit_code
        self.location = location
        self.fields = fields


def debian_table():
    with open(os.path.join(HERE, "debian_packages.json"), "r", encoding="utf-8") as f:
        table = json.load(f)
    table.pop("_about", None)
    return table


class DryRun:
    def __init__(self, options):
        self.o = options
        self.root = os.path.realpath(options.project)
        self.events = Events(options.events_fd)
        self.session = None
        self.capture = None
        self.entry = None
        self.finder = None
        self.files = None
        self.context = {}
        self.t0 = time.time()

    # ------------------------------------------------------------------- helpers
    def params_reason(self):
        """Why the --params file: portolan-cli says which rule chose it."""
        return getattr(self.o, "params_reason", None) or "given with --params"

    def params_file(self, what):
        """(absolute path, reason) of the params file portolan-cli passes. The choice is
        core's one rule (core/project/params_file.h), never the driver's: without one, or with
        a missing file, the run is refused with what is missing."""
        if not self.o.params:
            raise Failure("dryrun.no-config", f"no params file: the project has no {what}; "
                          "give --params", EXIT_USAGE)
        path = os.path.abspath(self.o.params)
        if not os.path.isfile(path):
            raise Failure("dryrun.no-config", f"the params file {self.o.params} does not exist",
                          EXIT_USAGE)
        return path, self.params_reason()

    def rel(self, path):
        try:
            r = os.path.relpath(os.path.realpath(path), self.root)
        except ValueError:
            return path
        return path if r.startswith("..") else r.replace(os.sep, "/")

    def in_project(self, filename):
        real = os.path.realpath(filename)
        return real.startswith(self.root + os.sep) and not real.startswith(PYTHON_DIR + os.sep)

    def project_frame(self, tb):
        """(file, line, column) of the innermost traceback frame in the project's code."""
        found = None
        for frame in traceback.extract_tb(tb):
            if self.in_project(frame.filename):
                col = (getattr(frame, "colno", None) or 0) + 1
                found = (self.rel(frame.filename), frame.lineno, col)
        return found

    def fail(self, failure):
        loc = failure.location
        if loc is None and self.entry:
            loc = (self.entry, 1, 1)
        where = f"{loc[0]}:{loc[1]}:{loc[2]}: " if loc else ""
        fields = dict(failure.fields)
        if self.session is not None:
            fields.setdefault("step", self.session.steps_done)
            fields.setdefault("captured", self.capture is not None and
                              self.capture.data is not None)
        self.events.emit("failed", message=failure.message, code=failure.code,
                         diagnostic=f"{where}error: {failure.message} [{failure.code}]",
                         location={"file": loc[0], "line": loc[1], "column": loc[2]}
                         if loc else None, elapsed_s=round(time.time() - self.t0, 3), **fields)
        return failure.exit_code

    # ------------------------------------------------------------------- plan
    def make_plan(self):
        o = self.o
        if not os.path.isdir(self.root):
            raise Failure("dryrun.no-project", f"not a project folder: {o.project}", EXIT_USAGE)
        flavour = o.flavour or "unknown"
        if flavour in ("cerebras-tensorflow", "plain-tensorflow"):
            raise Failure("dryrun.tensorflow",
                          "the dry run runs PyTorch projects; TensorFlow projects are analysed "
                          "statically only", EXIT_USAGE)
        self.files = plan.python_files(self.root)
        ctx = {"flavour": flavour, "extra_args": list(o.args)}
        if flavour in MODELZOO_FLAVOURS:
            entry = o.entry or ("run.py" if os.path.isfile(os.path.join(self.root, "run.py"))
                                else None)
            if entry is None:
                runs = sorted((f for f in self.files if os.path.basename(f) == "run.py"),
                              key=lambda f: (f.count("/"), f))
                if not runs:
                    raise Failure("dryrun.no-entry", "no run.py in the project; give --entry",
                                  EXIT_USAGE)
                entry = runs[0]
            config, reason = self.params_file("a Model Zoo params file (a Trainer YAML or a "
                                              "YAML file with train_input/model)")
            run_config = self.cpu_params(config)
            model_dir = os.path.join(self.root, ".portolan", "dryrun", "model_dir")
            ctx.update(kind="modelzoo", entry=entry,
                       entry_reason="given with --entry" if o.entry else "the Model Zoo run.py",
                       config=self.rel(config), config_reason=reason,
                       argv=["--mode", "train", "--params", run_config, "--model_dir",
                             model_dir])
        elif flavour == "determined-pytorchtrial":
            config_path, reason = self.params_file("a Determined experiment config (a YAML "
                                                   "file with an entrypoint)")
            config = plan.load_experiment_config(config_path)
            if not isinstance(config, dict) or "entrypoint" not in config:
                raise Failure("dryrun.entrypoint",
                              f"{self.rel(config_path)} has no entrypoint", EXIT_USAGE)
            kind, a, b = plan.parse_entrypoint(config["entrypoint"])
            ctx.update(config=self.rel(config_path), config_reason=reason,
                       experiment=config)
            if kind == "trial":
                ctx.update(kind="trial", module=a, trial_class=b,
                           entry=a.replace(".", "/") + ".py",
                           entry_reason=f"entrypoint {a}:{b} of the experiment config")
            else:
                ctx.update(kind="script", entry=o.entry or a, argv=list(b),
                           entry_reason="the script the entrypoint runs")
        else:
            if o.entry:
                entry, reason = o.entry, "given with --entry"
            else:
                entry, reason = plan.choose_script(self.root, flavour, self.files)
            ctx.update(kind="script", entry=entry, entry_reason=reason, argv=[])
            # A Determined experiment config that runs this script (Core API): what a cluster
            # would start it with, its arguments and what det.get_cluster_info() gives.
            found = None if o.params else plan.experiment_for_script(self.root, entry)
            if found:
                path, config, args = found
                ctx.update(config=self.rel(path), experiment=config, argv=args,
                           config_reason=f"its entrypoint runs {entry}")
        if not os.path.isfile(os.path.join(self.root, ctx["entry"])):
            raise Failure("dryrun.no-entry", f"entry point {ctx['entry']} does not exist",
                          EXIT_USAGE)
        ctx["argv"] = list(ctx.get("argv", [])) + list(o.args)
        if flavour in MODELZOO_FLAVOURS:  # Cerebras API generation (cerebras_api.py)
            from . import cerebras_api

            cerebras_api.plan(self, ctx)
        self.entry = ctx["entry"]
        self.context = ctx
        return ctx

    # Model Zoo input options that only the Cerebras appliance has (its worker-side data
    # cache): on the CPU the Model Zoo's own loaders refuse them, so the dry run turns them off.
    APPLIANCE_ONLY_INPUT = ("use_worker_cache",)

    def cpu_params(self, config):
        """The params file the CPU run reads: the project's own, or, when it turns on an
        appliance-only input option, a copy with that option off (said at the start)."""
        self.params_notes = []
        try:
            params = plan.load_yaml(config)
        except Exception:  # noqa: BLE001 - the run reports an unreadable file itself
            return config
        if not isinstance(params, dict):
            return config
        for section in ("train_input", "eval_input"):
            inputs = params.get(section)
            if not isinstance(inputs, dict):
                continue
            for key in self.APPLIANCE_ONLY_INPUT:
                if inputs.get(key) is True:
                    inputs[key] = False
                    self.params_notes.append(f"{section}.{key}")
        if not self.params_notes:
            return config
        import yaml

        folder = os.path.join(self.root, ".portolan", "dryrun")
        os.makedirs(folder, exist_ok=True)
        copy = os.path.join(folder, "cpu-" + os.path.basename(config))
        with open(copy, "w", encoding="utf-8") as f:
            yaml.safe_dump(params, f, sort_keys=False)
        return copy

    # ------------------------------------------------------------------- install
    def install(self):
        from . import capture, compat, datafiles, folders, process_group, session, subcommands
        from . import summaries, synthetic, weights, workers
        from . import modelzoo_finder

        ctx = self.context
        entry_dir = os.path.dirname(os.path.join(self.root, ctx["entry"]))
        for folder in (self.root, entry_dir):
            if folder not in sys.path:
                sys.path.insert(1, folder)
        imports = plan.modelzoo_imports(self.root, self.files)
        if imports or ctx["flavour"] in MODELZOO_FLAVOURS:
            mount = plan.modelzoo_mount(self.root, imports)
            sdk = os.path.realpath(self.o.sdk_path) if self.o.sdk_path else None
            if sdk and not os.path.isdir(os.path.join(sdk, "modelzoo")) and \
                    os.path.basename(sdk) == "modelzoo":
                sdk = os.path.dirname(sdk)
            self.finder = modelzoo_finder.install(sys, self.root, mount, STANDINS, sdk,
                                                  FALLBACK)
            ctx["modelzoo_mount"] = mount
        if "api" in ctx:  # cerebras.modelzoo 2.x imports (cerebras_api.py)
            from . import cerebras_api

            cerebras_api.install(self, ctx)
        if ctx.get("experiment"):  # what a cluster gives init() and get_cluster_info()
            import _portolan_hooks

            _portolan_hooks.determined_experiment = ctx.get("experiment")
        mode = "driver" if ctx["kind"] == "trial" else "optimizer"
        self.session = session.Session(self.events, self.o.steps, self.o.batch, mode)
        self.session.synthetic = False
        self.session.install()
        if getattr(self.o, "record", None) or getattr(self.o, "replay", None):
            from . import replay

            self.replay = replay.install(self.session, self.events, self.o.steps,
                                         self.o.record, self.o.replay)
            if self.o.record:
                self.replay.watch_reads(self.root)
        # A program with sub-commands runs the one that trains; worker processes run inline.
        subcommands.install(self.session, self.in_project)
        workers.install(self.session, self.in_project)
        # A process group for GPUs (nccl, one rank per GPU) is a one-rank CPU group.
        process_group.install(self.session)
        # Calls that newer NumPy/torch accept get their newer meaning on Debian's (said once).
        compat.install(self.session)
        # Logging through torch.utils.tensorboard without the tensorboard package: dropped.
        summaries.install(self.session)
        self.third_party = plan.third_party_imports(self.root, self.files)
        if "torchvision" in self.third_party:
            synthetic.install_vision_fallbacks(self.session)
        if "torchtext" in self.third_party:
            from . import textdata

            # torchtext's native bindings, data sets and downloaded tokenizers (textdata.py).
            textdata.install_text_fallbacks(self.session)
        # Data files that are not there (or would be downloaded) get announced stand-ins.
        self.datafiles = datafiles.DataFiles(self.session, self.root, self.in_project).install()
        folders.ClassFolders(self.datafiles).install()
        # Published weights would be downloaded: the model's own initial weights stand in.
        weights.Weights(self.session).install()
        folder = self.o.capture_dir or os.path.join(self.root, ".portolan", "capture")
        self.capture = capture.Capture(folder, {
            "project": self.root, "entry": ctx["entry"], "flavour": ctx["flavour"],
            "runconfig": None, "options": {}})
        self.capture.clear()

        def on_first_step(sess, opt):
            self.capture.context["synthetic"] = sess.synthetic
            params = getattr(sys.modules.get("_portolan_hooks"), "modelzoo_params", None)
            if isinstance(params, dict):
                self.capture.context["runconfig"] = params.get("runconfig")
            if ctx["kind"] == "trial":
                self.capture.context["options"] = {"determined": {
                    "hyperparameters": ctx.get("hparams"),
                    "entrypoint": ctx["experiment"].get("entrypoint"),
                    "searcher": ctx["experiment"].get("searcher")}}
            self.capture.write(sess, opt)

        self.session.on_first_step = on_first_step

    # ------------------------------------------------------------------- run
    def started(self):
        import torch

        ctx = self.context
        self.events.emit(
            "started", mode="dry_run", model=f"dry run: {ctx['entry']}", parameters=0,
            max_steps=self.o.steps, threads=torch.get_num_threads(), seed=None,
            flavour=ctx["flavour"], entry=ctx["entry"], entry_reason=ctx.get("entry_reason"),
            config=ctx.get("config"), config_reason=ctx.get("config_reason"),
            arguments=ctx["argv"], batch=self.o.batch, sdk_path=self.o.sdk_path,
            modelzoo_mount=ctx.get("modelzoo_mount"), api=ctx.get("api"),
            api_evidence=ctx.get("api_evidence"),
            python=sys.version.split()[0], torch=torch.__version__,
            project=self.root)
        for option in getattr(self, "params_notes", []):
            self.events.emit("warning", kind="appliance-option",
                             message=f"{option} is an option of the Cerebras appliance, which "
                             "a CPU run refuses: the dry run turns it off (in a copy of "
                             f"{ctx.get('config')} under .portolan/dryrun)", option=option)
        self.events.emit("info", message=f"dry run on the CPU: {self.o.steps} optimizer steps "
                         f"at batch {self.o.batch} (the config's batch is kept for the "
                         "capture's figures); --batch and --steps change them")

    def run_script(self):
        ctx = self.context
        path = os.path.join(self.root, ctx["entry"])
        os.chdir(os.path.dirname(path))
        sys.argv = [path] + ctx["argv"]
        runpy.run_path(path, run_name="__main__")

    def run_trial(self):
        from . import trial

        ctx = self.context
        os.chdir(self.root)
        sys.argv = [os.path.join(self.root, ctx["entry"])] + ctx["argv"]
        trial.run(self, ctx)

    def run(self):
        from . import session as session_module

        try:
            self.make_plan()
        except plan.PlanError as e:
            return self.fail(Failure(e.code, e.message, EXIT_USAGE))
        except Failure as e:
            return self.fail(e)
        if self.o.threads:
            import torch

            torch.set_num_threads(self.o.threads)
        self.install()
        self.started()
        reason = "completed"
        try:
            if self.context["kind"] == "trial":
                self.run_trial()
            else:
                self.run_script()
            reason = "completed" if self.session.steps_done >= self.o.steps else "ended"
        except session_module.DryRunStop as stop:
            reason = stop.reason
        except SystemExit as e:
            code = e.code if isinstance(e.code, int) or e.code is None else 1
            if code not in (0, None):
                return self.fail(Failure("dryrun.exit", f"the project exited with status {code}"
                                         + (f": {e.code}" if not isinstance(e.code, int) and
                                            e.code is not None else ""),
                                         location=self.project_frame(e.__traceback__)))
            reason = "ended"
        except session_module.ArgumentsError as e:
            return self.fail(self.arguments_failure(e))
        except Failure as e:
            if e.location is None:
                e.location = self.project_frame(e.__traceback__)
            return self.fail(e)
        except BaseException as e:  # noqa: BLE001 - every failure becomes a failed event
            if isinstance(e, KeyboardInterrupt):
                reason = "stopped"
            else:
                return self.fail(self.classify(e))
        return self.finish(reason)

    def finish(self, reason):
        s = self.session
        if s.steps_done == 0 and reason != "stopped":
            return self.fail(Failure(
                "dryrun.no-steps",
                "the entry point ended before the first training step (no optimizer step and "
                "no backward pass ran)" + self._no_step_hint()))
        self.capture.finish(s.steps_done, s)
        captured = self.capture.data is not None
        self.events.emit("finished", reason=reason, step=s.steps_done,
                         elapsed_s=round(time.time() - self.t0, 3), final_loss=s.last_loss,
                         captured=captured,
                         capture=self.capture.folder if captured else None,
                         traced=bool(captured and self.capture.data["model"]["trace"]),
                         synthetic_data=bool(s.synthetic),
                         first_step_s=round(s.first_step_time - self.t0, 3)
                         if s.first_step_time else None)
        return EXIT_OK

    def _no_step_hint(self):
        entry = os.path.basename(self.entry or "")
        return f"; is {entry} the training script? give --entry to choose another" \
            if self.context.get("kind") == "script" else ""

    # ------------------------------------------------------------------- failures
    def arguments_failure(self, e):
        from .session import required_arguments

        location = self.project_frame(e.__traceback__)
        if "required" in e.message:
            missing = required_arguments(e.parser)
            given = set(sys.argv[1:])
            missing = [m for m in missing if m["flag"] not in given]
            names = ", ".join(m["flag"] for m in missing) or e.message
            return Failure("dryrun.required-argument",
                           f"{self.entry} needs {names} (a required argument without a "
                           f"default): give it after -- (portolan-cli run ... -- "
                           f"{missing[0]['flag'] if missing else '--name'} VALUE)",
                           EXIT_USAGE, location, arguments=missing, argparse=e.message)
        return Failure("dryrun.bad-arguments", f"{self.entry}: {e.message}", EXIT_USAGE,
                       location, argparse=e.message)

    @staticmethod
    def _chain(e):
        seen = []
        while e is not None and e not in seen:
            seen.append(e)
            e = e.__cause__ or e.__context__
        return seen

    def classify(self, e):
        from .modelzoo_finder import NeedsModelZoo

        location = self.project_frame(e.__traceback__)
        text = str(e).strip()
        first = text.splitlines()[0] if text else type(e).__name__
        chain = self._chain(e)
        if "api" in self.context:  # Model Zoo 2.x on this Python (cerebras_api.py)
            from . import cerebras_api

            known = cerebras_api.classify(self, e, location, chain)
            if known is not None:
                return known
        if any(isinstance(x, NeedsModelZoo) for x in chain):
            needs = next(x for x in chain if isinstance(x, NeedsModelZoo))
            # The import statement names the whole module; the finder saw its first missing
            # package.
            frames = [f for f in traceback.extract_tb(e.__traceback__) if self.in_project(f.filename)]
            statement = frames[-1].line if frames else ""
            match = re.search(r"(?:from|import)\s+(modelzoo[\w.]*)", statement or "")
            if match and match.group(1).startswith(needs.module):
                needs = NeedsModelZoo(match.group(1))
            others = self.missing_modelzoo(exclude=needs.module)
            message = str(needs)
            if others:
                message += f" (the project also imports {len(others)} more such module" \
                    f"{'s' if len(others) > 1 else ''}: {', '.join(others[:6])}" \
                    f"{', ...' if len(others) > 6 else ''})"
            return Failure("dryrun.needs-modelzoo", message, EXIT_FAILED, location,
                           module=needs.module, modules=[needs.module] + others)
        if isinstance(e, ModuleNotFoundError) and e.name:
            return self.missing_package(e, location)
        if isinstance(e, MemoryError) or "can't allocate memory" in text or \
                "DefaultCPUAllocator" in text or "not enough memory" in text:
            limit = self.o.memory_limit_mb
            return Failure("dryrun.out-of-memory",
                           f"out of memory{f' under the dry run limit of {limit} MB' if limit else ''}"
                           f": {first}; lower --batch"
                           f"{' or raise --memory-limit' if limit else ''}",
                           EXIT_FAILED, location)
        if any("network access is off in a Portolan dry run" in str(x) for x in chain):
            hosts = ", ".join(self.session.network_blocked) if self.session else ""
            return Failure("dryrun.network",
                           f"the project downloads at start ({hosts or 'network'}) and a dry run "
                           f"has no network; put its data in place first ({type(e).__name__}: "
                           f"{first[:200]})", EXIT_FAILED, location, hosts=hosts)
        if isinstance(e, FileNotFoundError):
            name = e.filename or first
            return Failure("dryrun.data-missing",
                           f"a file the project reads is not there: {name}; put the project's "
                           "data in place (a dry run never downloads)", EXIT_FAILED, location,
                           file=str(name), traceback=traceback.format_exception(
                               type(e), e, e.__traceback__)[-8:])
        frames = traceback.extract_tb(e.__traceback__)
        if isinstance(e, AssertionError) and frames and re.search(
                r"(exists|is_?dir|is_?file)\(", frames[-1].line or ""):
            return Failure("dryrun.data-missing",
                           f"a file or folder the project needs is not there "
                           f"({frames[-1].line.strip()} failed at "
                           f"{self.rel(frames[-1].filename)}:{frames[-1].lineno}); put the "
                           "project's data in place (a dry run never downloads)"
                           + self._data_dirs_hint(), EXIT_FAILED, location)
        if isinstance(e, (AssertionError, RuntimeError)) and re.search(
                r"does not exist|not found|no such file", first, re.IGNORECASE) and re.search(
                r"data|file|folder|dir|path|root", first, re.IGNORECASE) and \
                not any(isinstance(x, (ModuleNotFoundError, NotImplementedError)) for x in chain):
            # A data loader's own check of its data folder ("The path X does not exist",
            # "Dataset not found or incomplete").
            return Failure("dryrun.data-missing",
                           f"the project's data is not there ({type(e).__name__}: {first[:300]});"
                           " put the project's data in place (a dry run never downloads)"
                           + self._data_dirs_hint(), EXIT_FAILED, location)
        code = "dryrun.project-error"
        message = f"{type(e).__name__}: {first}"
        if frames and os.path.realpath(frames[-1].filename).startswith(STANDINS + os.sep):
            code = "dryrun.sdk-api"
        if isinstance(e, TypeError):
            signature = self.standin_signature(first)
            if signature:
                code = "dryrun.sdk-api"
                message += f" (the SDK's signature: {signature})"
        return Failure(code, message[:2000], EXIT_FAILED, location,
                       exception=type(e).__name__,
                       traceback=traceback.format_exception(type(e), e, e.__traceback__)[-12:])

    def _data_dirs_hint(self):
        """For a Model Zoo run: where its params file says the data is (train_input.data_dir,
        eval_input.data_dir), which is what the user points at the data."""
        config = self.context.get("config")
        if self.context.get("kind") != "modelzoo" or not config:
            return ""
        try:
            params = plan.load_yaml(os.path.join(self.root, config))
        except Exception:  # noqa: BLE001 - the hint is optional
            return ""
        if not isinstance(params, dict):
            return ""
        named = []
        for section in ("train_input", "eval_input"):
            value = params.get(section, {}).get("data_dir") if isinstance(
                params.get(section), dict) else None
            if value:
                shown = ", ".join(map(str, value)) if isinstance(value, list) else str(value)
                named.append(f"{section}.data_dir is {shown}")
        return f" ({'; '.join(named)} in {config})" if named else ""

    @staticmethod
    def standin_signature(message):
        """The signature of the stand-in callable a TypeError names ("trainingModel() takes
        ..." or "PyTorchTrialContext.get_hparam() got ..."), or None when it names none."""
        match = re.match(r"([A-Za-z_][\w.]*)\(\)", message)
        if not match:
            return None
        parts = match.group(1).split(".")
        # Public packages first, so that the name shown is the one projects import.
        modules = sorted(sys.modules.items(), key=lambda kv: (
            any(p.startswith("_") for p in kv[0].split(".")), len(kv[0])))
        for _, module in modules:
            path = getattr(module, "__file__", None) or ""
            if not os.path.realpath(path).startswith(STANDINS + os.sep):
                continue
            target = module
            for part in parts:
                target = getattr(target, part, None)
                if target is None:
                    break
            if callable(target):
                try:
                    sig = str(inspect.signature(target))
                except (TypeError, ValueError):
                    continue
                return f"{module.__name__}.{match.group(1)}{sig}"
        return None

    def missing_modelzoo(self, exclude=None):
        if self.finder is None:
            return []
        missing = []
        for name in sorted(plan.modelzoo_imports(self.root, self.files)):
            if exclude and (name == exclude or name.startswith(exclude + ".")):
                continue
            parts = name.split(".")
            mount = self.finder.mount
            if mount and (name == mount or name.startswith(mount + ".")):
                continue
            if any(self.finder._spec_at(root, parts, name) for root in self.finder.roots):
                continue
            parent = ".".join(parts[:-1])
            # `from modelzoo.x import Name` also lists modelzoo.x.Name: a name, not a module.
            if parent and any(self.finder._spec_at(root, parent.split("."), parent)
                              for root in self.finder.roots):
                continue
            if parent in missing:
                continue
            missing.append(name)
        return [m for m in missing if not any(m.startswith(p + ".") for p in missing)]

    def missing_package(self, e, location):
        """The packages the project imports that are not installed. The message leads with one
        that Debian 12 does not package, when there is one: installing the others would not
        make the run possible."""
        table = debian_table()
        top = e.name.split(".")[0]
        where = self.third_party.get(top)
        missing = [{"package": top, "debian_package": table.get(top),
                    "imported_at": f"{where[0][0]}:{where[0][1]}" if where else None}]
        for name, places in sorted(self.third_party.items()):
            if name == top or name in STANDIN_PACKAGES:
                continue
            try:
                found = importlib.util.find_spec(name) is not None
            except (ImportError, ValueError):
                found = False
            if not found:
                missing.append({"package": name, "debian_package": table.get(name),
                                "imported_at": f"{places[0][0]}:{places[0][1]}"})
        lead = next((m for m in missing if m["package"] in table and not m["debian_package"]),
                    missing[0])
        if lead is not missing[0] and lead["imported_at"]:
            file, line = lead["imported_at"].rsplit(":", 1)
            location = (file, int(line), 1)
        name, deb = lead["package"], lead["debian_package"]
        if deb:
            how = f"install the Debian package {deb} (apt install {deb})"
        elif name in table:
            how = "Debian 12 does not package it"
        else:
            how = "no Debian package is known for it"
        message = f"cannot run: the project imports {name}, which is not installed; {how}"
        others = [m for m in missing if m is not lead]
        if others:
            message += "; also missing: " + ", ".join(
                m["package"] + (f" ({m['debian_package']})" if m["debian_package"] else
                                " (not in Debian 12)" if m["package"] in table else
                                " (no Debian package known)") for m in others)
        return Failure("dryrun.missing-package", message, EXIT_FAILED, location, package=name,
                       debian_package=deb, also_missing=others)


def main(options):
    # The stand-ins come first, before anything the project could bring along.
    if STANDINS not in sys.path:
        sys.path.insert(0, STANDINS)
    return DryRun(options).run()

