"""``python -m dpverify`` is the same as the ``dpverify`` command."""

from dpverify.cli import main

if __name__ == "__main__":
    raise SystemExit(main())
