"""`python -m kalkulator`: the same command line as `kalkulator` (for environments without the script on PATH)."""

from kalkulator.cli import main

if __name__ == "__main__":
    main(prog_name="kalkulator")
