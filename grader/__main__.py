import sys

from .extras import MissingExtra, require_dependencies

# Guarded: worker processes started with "spawn" import this module again.
if __name__ == "__main__":
    # Before the command line's imports: outside the venv, numpy or yaml is missing, and the
    # user gets one line naming the interpreter and the install, not an import's traceback.
    try:
        require_dependencies(next((arg for arg in sys.argv[1:] if not arg.startswith("-")), "python -m grader"))
    except MissingExtra as exc:
        print(f"error: {exc}", file=sys.stderr)
        raise SystemExit(2) from None
    import os

    from .cli import main
    from .stop import STOPPED

    status = main(prog="python -m grader")
    if status in STOPPED:
        # A run that a signal stopped has ended its workers and said so in one line: it exits
        # now, with the signal's status (130 for Ctrl-C). Through the interpreter's own exit,
        # under load, about 1 run in 5 of Ctrl-C as the workers start died of SIGINT instead
        # (strace: the interpreter reset SIGINT and sent it to itself on the way out).
        sys.stdout.flush()
        sys.stderr.flush()
        os._exit(status)
    raise SystemExit(status)
