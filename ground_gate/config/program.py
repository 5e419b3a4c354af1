"""A command target's program found without running it, as `validate` and `run` check it
before any call: the program on PATH or at its path, and the script an interpreter is given.
Relative paths are the working directory's, where the command runs."""

from __future__ import annotations

import os
import re
import shutil
from collections.abc import Mapping, Sequence
from pathlib import Path

# Programs whose first argument that is not an option is a script file to run.
_INTERPRETER = re.compile(
    r"(python|pypy|node|deno|bun|ruby|perl|php|bash|sh|zsh|dash|Rscript|julia|lua)"
    r"[0-9.]*(\.exe)?"
)
# Options after which no script file follows: the code or module is the argument itself.
_NO_SCRIPT = frozenset({"-c", "-m", "-e", "--eval", "-p", "--print", "-E", "-r", "--command"})
# Options of an interpreter that take a value (the value is not the script).
_TAKES_VALUE = frozenset({"-W", "-X", "-O", "--require", "-I", "-x"})


def program_problem(argv: Sequence[str], env: Mapping[str, str]) -> str | None:
    """Why `argv` cannot start as written, or None. Finds the program as the OS would (a name
    on the environment's PATH, else a path) and, for an interpreter, its script file."""
    program = argv[0]
    if os.sep in program or (os.altsep and os.altsep in program):
        path = Path(program)
        if not path.is_file():
            return f"the program {program} does not exist (relative to the working directory)"
        if not os.access(path, os.X_OK):
            return (
                f"the program {program} is not executable (chmod +x, or run it by its interpreter)"
            )
    elif shutil.which(program, path=env.get("PATH", os.defpath)) is None:
        return f"the program {program} is not on the PATH"
    script = _script(argv)
    if script is not None and not Path(script).is_file():
        return f"the script {script} that {Path(program).name} would run does not exist"
    return None


def _script(argv: Sequence[str]) -> str | None:
    """The script an interpreter in argv[0] runs, if it names one."""
    if not _INTERPRETER.fullmatch(Path(argv[0]).name):
        return None
    skip = False
    for argument in argv[1:]:
        if skip:
            skip = False
            continue
        if argument in _NO_SCRIPT:
            return None
        if argument in _TAKES_VALUE:
            skip = True
            continue
        if argument.startswith("-"):
            continue
        return argument
    return None
