"""Which `modelzoo.common...` names the Model Zoo's own models import, and whether each one
resolves in a dry run: with a checkout (--sdk-path) and with Portolan's built-in fallback alone.

    /usr/bin/python3 modelzoo_names.py SDK_TREE [SDK_TREE ...] [--json]

SDK_TREE is a folder holding modelzoo/ (corpus/sdk/modelzoo-R1.6.0, ...). The models are every
Python file of the tree outside modelzoo/common (the shared SDK code they import) and outside
the TensorFlow folders (a dry run runs PyTorch code). Each module is
imported in a child process with the dry run's Model Zoo finder, as portolan_dryrun sets it up
(stand-ins of the closed SDK first on sys.path), once per configuration; a name resolves when
its module imports and, for `from M import N`, M has N (or M.N is a module). Exit status 1 when
a name fails with the checkout (a third-party package it needs aside) or with the fallback.
"""
import ast
import json
import os
import subprocess
import sys

HERE = os.path.dirname(os.path.abspath(__file__))
PYTHON = os.path.abspath(os.path.join(HERE, "..", "..", "..", "resources", "python"))
STANDINS = os.path.join(PYTHON, "portolan_standins")
FALLBACK = os.path.join(STANDINS, "_modelzoo_fallback")


def imported_names(tree_root):
    """{(module, name or None): [file:line]} of modelzoo.common imports in the tree's models."""
    found = {}
    base = os.path.join(tree_root, "modelzoo")
    for dirpath, dirnames, filenames in os.walk(base):
        rel_dir = os.path.relpath(dirpath, base).replace(os.sep, "/")
        # The shared code itself, and the TensorFlow models (a dry run runs PyTorch code).
        if rel_dir == "common" or rel_dir.startswith("common/") or \
                "tf" in rel_dir.split("/"):
            continue
        dirnames.sort()
        for name in sorted(filenames):
            if not name.endswith(".py"):
                continue
            path = os.path.join(dirpath, name)
            try:
                with open(path, "r", encoding="utf-8") as f:
                    tree = ast.parse(f.read())
            except (SyntaxError, UnicodeDecodeError, OSError):
                continue
            where = os.path.relpath(path, tree_root)
            for node in ast.walk(tree):
                if isinstance(node, ast.ImportFrom) and node.module and not node.level and \
                        node.module.startswith("modelzoo.common") and \
                        not node.module.startswith("modelzoo.common.tf"):
                    for alias in node.names:
                        found.setdefault((node.module, alias.name), []).append(
                            f"{where}:{node.lineno}")
                elif isinstance(node, ast.Import):
                    for alias in node.names:
                        if alias.name.startswith("modelzoo.common"):
                            found.setdefault((alias.name, None), []).append(
                                f"{where}:{node.lineno}")
    return found


# Run in the child: imports each module with the finder and reports what resolved.
CHILD = r"""
import importlib, json, sys, traceback
sys.path.insert(0, STANDINS)
sys.path.insert(0, PYTHON)
from portolan_dryrun import modelzoo_finder, summaries
modelzoo_finder.install(sys, "/nonexistent", None, STANDINS, SDK, FALLBACK)
class _Session:  # what the dry run installs before the project runs, without its events
    def warn_once(self, *args, **kwargs):
        pass
summaries.install(_Session())
out = {}
for module, names in json.loads(sys.stdin.read()):
    try:
        m = importlib.import_module(module)
    except BaseException as e:
        out[module] = {"error": f"{type(e).__name__}: {str(e).splitlines()[0] if str(e) else ''}"[:300]}
        continue
    missing = []
    for n in names:
        if n is None or n == "*" or hasattr(m, n):
            continue
        try:
            importlib.import_module(module + "." + n)
        except BaseException:
            missing.append(n)
    out[module] = {"missing": missing, "file": getattr(m, "__file__", None)}
print(json.dumps(out))
"""


def resolve(names, sdk):
    by_module = {}
    for module, name in names:
        by_module.setdefault(module, []).append(name)
    code = CHILD.replace("STANDINS", repr(STANDINS)).replace("PYTHON", repr(PYTHON)) \
        .replace("SDK", repr(sdk)).replace("FALLBACK", repr(FALLBACK))
    env = dict(os.environ, PYTHONDONTWRITEBYTECODE="1")
    p = subprocess.run(["/usr/bin/python3", "-c", code], input=json.dumps(sorted(
        by_module.items())), capture_output=True, text=True, env=env, timeout=600)
    if p.returncode != 0:
        raise RuntimeError(p.stderr[-3000:])
    return json.loads(p.stdout.strip().splitlines()[-1])


def check(trees):
    """[{module, name, sdk: ok|why, fallback: ok|why, used_at}] over all trees."""
    rows = []
    for tree in trees:
        names = imported_names(tree)
        with_sdk = resolve(names, tree)
        alone = resolve(names, None)
        for (module, name), where in sorted(names.items(), key=lambda kv: (kv[0][0],
                                                                           kv[0][1] or "")):
            def verdict(result):
                r = result.get(module, {})
                if "error" in r:
                    # A third-party package the Model Zoo needs (not a stand-in's gap): the
                    # dry run reports it as dryrun.missing-package.
                    if r["error"].startswith("ModuleNotFoundError: No module named") and not \
                            any(p in r["error"] for p in ("'modelzoo", "'cerebras")):
                        return "package: " + r["error"].split("'")[1]
                    return r["error"]
                return "ok" if name not in r.get("missing", []) else "missing"

            rows.append({"release": os.path.basename(os.path.normpath(tree)), "module": module,
                         "name": name, "sdk": verdict(with_sdk), "fallback": verdict(alone),
                         "used_at": where[:3], "uses": len(where)})
    return rows


def main(argv):
    as_json = "--json" in argv
    trees = [a for a in argv if not a.startswith("--")]
    rows = check(trees)
    if as_json:
        print(json.dumps(rows, indent=1))
    else:
        for r in rows:
            print(f"{r['release']:16} {r['module'] + ('.' + r['name'] if r['name'] else ''):70} "
                  f"sdk: {r['sdk'][:60]:12} fallback: {r['fallback'][:60]}")
        bad_sdk = [r for r in rows if not ok(r["sdk"])]
        packages = sorted({r["sdk"][9:] for r in rows if r["sdk"].startswith("package: ")})
        bad_fallback = [r for r in rows if r["fallback"] != "ok"]
        print(f"\n{len(rows)} names; not resolved with the checkout: {len(bad_sdk)} (and "
              f"{sum(r['sdk'].startswith('package: ') for r in rows)} that need a package not "
              f"installed: {', '.join(packages) or 'none'}); with the fallback alone: "
              f"{len(bad_fallback)}")
    # Both must hold every name: the checkout (or a named third-party package it needs), and
    # the built-in fallback a user without a checkout runs on.
    return 1 if any(not ok(r["sdk"]) or r["fallback"] != "ok" for r in rows) else 0


def ok(verdict):
    """Resolved, or needing a third-party package (the dry run names it; not a stand-in gap)."""
    return verdict == "ok" or verdict.startswith("package: ")


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
