import sys

from .extras import MissingExtra, require_dependencies

# Guarded: worker processes started with "spawn" import this module again.
if __name__ == "__main__":
    # Before the command line's imports: outside the venv, numpy or yaml is missing, and the
    # user gets one line naming the interpreter and the install, not an import's traceback.
    try:
        require_dependencies(next((arg for arg in sys.argv[1:] if not arg.startswith("-")), None))
    except MissingExtra as exc:
        print(f"error: {exc}", file=sys.stderr)
        raise SystemExit(2) from None
    from .cli import exit_with, main

    exit_with(main(prog="python -m grader"))
