"""The files a target reads (targets/inputs.py): an argument no path can be names none."""

from __future__ import annotations

import sys
from pathlib import Path

from ground_gate.config.model import TargetConfig
from ground_gate.targets.inputs import target_inputs


def test_target_inputs__a_script_argument_longer_than_a_file_name_is_no_file(tmp_path: Path):
    script = tmp_path / "app.py"
    script.write_text("print()\n", encoding="utf-8")
    long_code = "import sys; " + "x = 1; " * 100  # over 255 bytes between slashes
    target = TargetConfig(command=(sys.executable, "-c", long_code, str(script)))
    found = [path for _, path in target_inputs("d", target)]
    assert found == [Path(sys.executable), script]  # the interpreter and the script, not the code
