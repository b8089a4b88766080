"""python3 -m portolan_dryrun --project DIR [options] [-- ARGS]: see driver.py."""
import argparse
import sys


def parse(argv):
    args = list(argv)
    extra = []
    if "--" in args:
        i = args.index("--")
        args, extra = args[:i], args[i + 1:]
    p = argparse.ArgumentParser(prog="python3 -m portolan_dryrun",
                                description="Portolan's CPU dry run of a project's own code.")
    p.add_argument("--project", required=True, help="project folder")
    p.add_argument("--flavour", default=None,
                   help="cerebras-pytorch, cerebras-layers, determined-pytorchtrial, determined-core, "
                        "graphcore-poptorch or plain-pytorch (portolan-cli detects it)")
    p.add_argument("--entry", default=None, help="entry script, relative to the project")
    p.add_argument("--params", default=None,
                   help="Model Zoo params file or Determined experiment config")
    p.add_argument("--params-reason", default=None,
                   help="why this params file (portolan-cli: the project's saved choice)")
    p.add_argument("--steps", type=int, default=3, help="optimizer steps (default 3)")
    p.add_argument("--batch", type=int, default=2, help="dry-run micro-batch (default 2)")
    p.add_argument("--sdk-path", default=None, help="a Cerebras Model Zoo checkout")
    p.add_argument("--api", default=None, choices=["runner", "cstorch", "trainer"],
                   help="Cerebras API generation (default: detected from the project)")
    p.add_argument("--events-fd", type=int, default=None,
                   help="write events to this file descriptor (default: stdout)")
    p.add_argument("--capture-dir", default=None,
                   help="where to write the capture (default PROJECT/.portolan/capture)")
    p.add_argument("--threads", type=int, default=0, help="torch intra-op threads")
    p.add_argument("--memory-limit-mb", type=int, default=0,
                   help="the memory limit set by the parent (only for messages)")
    p.add_argument("--record", default=None,
                   help="record the initial weights, first batches and losses here (replay.py)")
    p.add_argument("--replay", default=None,
                   help="replay a recording: same initial weights and batches (replay.py)")
    options = p.parse_args(args)
    if options.steps < 1 or options.batch < 1:
        p.error("--steps and --batch must be at least 1")
    options.args = extra
    return options


def main():
    options = parse(sys.argv[1:])
    from .driver import main as run

    code = run(options)
    sys.stdout.flush()
    sys.stderr.flush()
    return code


if __name__ == "__main__":
    sys.exit(main())
