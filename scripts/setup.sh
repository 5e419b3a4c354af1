#!/usr/bin/env bash
# Create (or reuse) the project's virtual environment and install ground-gate into it with
# the local judge. Usage: scripts/setup.sh [EXTRAS]   (default extras: local; `none`: ground-gate
# alone, enough for `ground-gate models pull`, which scripts/demo.sh runs while llama.cpp builds)
# Everything comes from the package registries; nothing else is downloaded.
set -euo pipefail
cd "$(dirname "$0")/.."

extras=${1:-local}
venv=${GROUND_GATE_VENV:-.venv}
python=${PYTHON:-python3}
llama_version=0.3.36

"$python" - <<'PY'
import sys
if sys.version_info < (3, 11):
    sys.exit(f"ground-gate needs Python 3.11 or newer; {sys.executable} is {sys.version.split()[0]}")
PY

[ -x "$venv/bin/python" ] || "$python" -m venv "$venv"
pip=("$venv/bin/python" -m pip --disable-pip-version-check)

# llama-cpp-python compiles llama.cpp from source. A default build targets the building
# machine's CPU (-march=native) and pip caches that wheel, which then crashes with a
# segmentation fault on a CPU without the same instructions. Build once, for any x86-64
# CPU with AVX2, into our own cache, and install from there. LLAVA_BUILD=OFF: no multimodal
# library (mtmd, images and audio), which ground-gate never loads: 51 of 178 compile steps.
wheels="${XDG_CACHE_HOME:-$HOME/.cache}/ground-gate/wheels"
find_links=()
if [[ ",$extras," == *",local,"* ]] && [ "$(uname -m)" = "x86_64" ]; then
  if ! compgen -G "$wheels/llama_cpp_python-$llama_version-*.whl" >/dev/null; then
    echo "ground-gate setup: building llama-cpp-python $llama_version for AVX2 CPUs (about 6 minutes, once)" >&2
    CMAKE_ARGS="-DGGML_NATIVE=OFF -DGGML_AVX=ON -DGGML_AVX2=ON -DGGML_FMA=ON -DGGML_F16C=ON -DGGML_BMI2=ON -DGGML_AVX512=OFF -DGGML_AMX_TILE=OFF -DGGML_AMX_INT8=OFF -DLLAVA_BUILD=OFF" \
      "${pip[@]}" wheel --quiet --no-cache-dir --no-deps -w "$wheels" "llama-cpp-python==$llama_version"
  fi
  find_links=(--find-links "$wheels")
fi

spec=".[$extras]"
[ "$extras" != none ] || spec=.
"${pip[@]}" install --quiet "${find_links[@]}" -e "$spec"

# The HTML report's tests drive a real headless Chromium through chromedriver (Selenium is in
# the dev extra). Debian packages both; install them where we may (root with apt-get), else
# those tests skip and say what is missing.
if [[ ",$extras," == *",dev,"* ]] && ! command -v chromedriver >/dev/null; then
  if [ "$(id -u)" = 0 ] && command -v apt-get >/dev/null; then
    echo "ground-gate setup: installing chromium and chromium-driver for the browser tests" >&2
    { apt-get update -qq && DEBIAN_FRONTEND=noninteractive apt-get install -y -qq chromium chromium-driver >/dev/null; } \
      || echo "ground-gate setup: could not install chromium; the browser tests will skip" >&2
  else
    echo "ground-gate setup: no chromedriver; install chromium and its driver for the browser tests" >&2
  fi
fi
echo "ground-gate setup: ready in $venv (extras: $extras)" >&2
