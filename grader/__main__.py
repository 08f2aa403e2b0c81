from .cli import main

# Guarded: worker processes started with "spawn" import this module again.
if __name__ == "__main__":
    raise SystemExit(main())
