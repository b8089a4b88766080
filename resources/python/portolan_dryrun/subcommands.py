"""argparse sub-commands (`main.py train ...`): the dry run picks the one that trains.

A program with sub-commands either requires one (`add_subparsers(required=True)`) or exits with
its usage when none is given. When the command line names none, the dry run chooses, from what
the code does rather than from its names where it can:
1. the sub-command whose handler (a callable given with `set_defaults(func=...)`, under any
   key) reaches a backward pass or an optimizer step, following the functions and the project
   classes it names (their code objects, without running anything);
2. the sub-command whose branch in the calling file (`if args.<dest> == "name":`, or a `match`
   case) calls code that reaches training, as in 1;
3. a sub-command named like training (train, fit, finetune, pretrain).
A sub-command given by the user (after `--`) is always used. The choice, its evidence and the
alternatives are said in a `warning` event of kind `subcommand`.
"""
import argparse
import ast
import inspect
import os
import sys
import types

TRAINING_CALLS = {"backward", "zero_grad", "step_optimizer", "trainingModel"}
TRAINING_NAMES = ("train", "fit", "finetune", "fine-tune", "fine_tune", "pretrain", "training")
MAX_DEPTH = 5


def _codes(code):
    yield code
    for const in code.co_consts:
        if isinstance(const, types.CodeType):
            yield from _codes(const)


class Reach:
    """Whether code reaches a training call, through the functions and classes it names."""

    def __init__(self, in_project):
        self.in_project = in_project
        self.seen = set()

    def function(self, fn, depth=0):
        fn = inspect.unwrap(fn) if callable(fn) else fn
        if isinstance(fn, (types.MethodType, staticmethod, classmethod)):
            fn = fn.__func__
        if isinstance(fn, type):
            return self.klass(fn, depth)
        code = getattr(fn, "__code__", None)
        if code is None or code in self.seen or depth > MAX_DEPTH:
            return False
        if not self.in_project(code.co_filename):
            return False
        self.seen.add(code)
        return self.code(code, getattr(fn, "__globals__", {}), depth)

    def klass(self, cls, depth):
        try:
            source = inspect.getsourcefile(cls)
        except TypeError:
            return False
        if not source or not self.in_project(source):
            return False
        return any(self.function(v, depth + 1) for v in vars(cls).values()
                   if isinstance(v, (types.FunctionType, staticmethod, classmethod)))

    def code(self, code, globals_, depth):
        for c in _codes(code):
            if TRAINING_CALLS & set(c.co_names):
                return True
        for c in _codes(code):
            for name in c.co_names:
                value = globals_.get(name)
                if isinstance(value, types.ModuleType):
                    # module.function(...): the attribute names of the same code object.
                    for attr in c.co_names:
                        target = getattr(value, attr, None)
                        if callable(target) and self.function(target, depth + 1):
                            return True
                elif callable(value) and self.function(value, depth + 1):
                    return True
        return False


def _branch_calls(path, dest, name):
    """Names called in the calling file's branches taken for sub-command `name`."""
    try:
        with open(path, "r", encoding="utf-8") as f:
            tree = ast.parse(f.read())
    except (OSError, SyntaxError, ValueError, UnicodeDecodeError):
        return set()

    def selects(test):
        for node in ast.walk(test):
            if isinstance(node, ast.Compare) and any(
                    isinstance(c, ast.Constant) and c.value == name for c in node.comparators):
                subject = node.left
                if isinstance(subject, ast.Attribute) and (dest is None or subject.attr == dest):
                    return True
                if isinstance(subject, ast.Name):
                    return True
        return False

    calls = set()

    def collect(body):
        for stmt in body:
            for node in ast.walk(stmt):
                if isinstance(node, ast.Call):
                    f = node.func
                    calls.add(f.id if isinstance(f, ast.Name) else
                              f.attr if isinstance(f, ast.Attribute) else None)

    for node in ast.walk(tree):
        if isinstance(node, ast.If) and selects(node.test):
            collect(node.body)
        elif hasattr(ast, "Match") and isinstance(node, ast.Match):
            for case in node.cases:
                if any(isinstance(p, ast.MatchValue) and isinstance(p.value, ast.Constant) and
                       p.value.value == name for p in ast.walk(case.pattern)):
                    collect(case.body)
    calls.discard(None)
    return calls


def choose(action, caller_file, caller_globals, in_project):
    """(name, reason) of the sub-command to run, or (None, None)."""
    names = list(action.choices)
    evidence = []
    for name in names:
        parser = action.choices[name]
        handlers = [v for v in getattr(parser, "_defaults", {}).values() if callable(v)]
        if any(Reach(in_project).function(h) for h in handlers):
            evidence.append((name, "its handler reaches a backward pass or an optimizer step"))
    if not evidence and caller_file:
        for name in names:
            calls = _branch_calls(caller_file, action.dest if action.dest != argparse.SUPPRESS
                                  else None, name)
            if TRAINING_CALLS & calls:
                evidence.append((name, "its branch calls backward or an optimizer step"))
                continue
            reach = Reach(in_project)
            if any(callable(caller_globals.get(c)) and reach.function(caller_globals[c])
                   for c in calls):
                evidence.append((name, "its branch reaches a backward pass or an optimizer "
                                 "step"))
    if evidence:
        named = [e for e in evidence if e[0].lower() in TRAINING_NAMES]
        return (named or evidence)[0]
    for wanted in TRAINING_NAMES:
        for name in names:
            if name.lower() == wanted:
                return name, "named like training (no handler that trains was found)"
    return None, None


def _parses(original, parser, argv):
    """Whether the command line parses with nothing left over (a probe: errors are caught)."""
    try:
        _, extras = original(parser, argv, None)
        return not extras
    except KeyboardInterrupt:
        raise
    except BaseException:  # noqa: BLE001 - argparse's error (ArgumentsError) or its exit
        return False


def install(session, in_project):
    original = argparse.ArgumentParser.parse_known_args
    state = {"done": False}

    def parse_known_args(parser, args=None, namespace=None):
        if args is None and not state["done"]:
            action = next((a for a in parser._actions
                           if isinstance(a, argparse._SubParsersAction)), None)
            argv = sys.argv[1:]
            if action is not None and action.choices and \
                    not any(a in action.choices for a in argv):
                state["done"] = True
                frame = sys._getframe(1)
                while frame is not None and not in_project(frame.f_code.co_filename):
                    frame = frame.f_back
                caller_file = frame.f_code.co_filename if frame else None
                caller_globals = frame.f_globals if frame else {}
                name, reason = choose(action, caller_file, caller_globals, in_project)
                if name is not None:
                    position = next((i for i in range(len(argv) + 1)
                                     if _parses(original, parser,
                                                argv[:i] + [name] + argv[i:])), len(argv))
                    sys.argv[1:] = argv[:position] + [name] + argv[position:]
                    others = [n for n in action.choices if n != name]
                    session.events.emit(
                        "warning", kind="subcommand",
                        message=f"the program has sub-commands and none was given: the dry run "
                        f"runs `{name}` ({reason}); the others are "
                        f"{', '.join(others) or 'none'}; give another after -- "
                        f"(portolan-cli run ... -- {others[0] if others else name} ...)",
                        chosen=name, reason=reason, alternatives=others,
                        argv=sys.argv[1:])
        return original(parser, args, namespace)

    argparse.ArgumentParser.parse_known_args = parse_known_args
