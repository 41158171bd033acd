"""``python -m gieok ...``: the same command as the ``gieok`` console script."""

from gieok.cli import main

if __name__ == "__main__":
    main()
