#!/usr/bin/env python
import os
import sys
from pathlib import Path


def main():
    root = Path(__file__).resolve().parent
    # two import roots: the project and platform/ (which is not a package)
    for p in (root / "platform", root):
        if str(p) not in sys.path:
            sys.path.insert(0, str(p))
    os.environ.setdefault("DJANGO_SETTINGS_MODULE", "config.settings")
    from django.core.management import execute_from_command_line

    execute_from_command_line(sys.argv)


if __name__ == "__main__":
    main()
