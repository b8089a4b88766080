"""Portolan's CPU dry run of a project's own code (run by portolan-cli run --dry-run).

Not imported by projects: the child process runs `python3 -m portolan_dryrun`, which puts the
SDK stand-ins (../portolan_standins) first on sys.path and runs the project's entry point.
"""
