# ground-gate's base image: Python and every third-party dependency, llama.cpp built once.
#
# The action's own image (../Dockerfile) starts FROM this one and only copies ground-gate in,
# so a workflow run compiles nothing: the 4-12 minute llama.cpp build happens here, once per
# change of dependencies, in .github/workflows/base-image.yml, which publishes the result as
#   ghcr.io/<owner>/ground-gate-base:<tag>   (tag: python3 docker/base_tag.py)
# The tag is a digest of this file and of pyproject.toml's dependency lists; a unit test
# checks that ../Dockerfile names the tag of the dependencies it was written for.
# No model is baked in: the local judge's model reaches a run from the workspace cache that
# actions/cache restores (see docs/github-action.md), so judges served over HTTP pull no GGUF.
# No secret is ever passed to the build. No `# syntax=` line: BuildKit's built-in frontend
# supports everything used here, and an air-gapped builder cannot fetch another one.
ARG PYTHON_VERSION=3.11.11

# --- 1. wheels for every dependency, built from pyproject.toml alone -------------------------
# The full image has the compilers llama-cpp-python needs; none of them reach the final image.
FROM python:${PYTHON_VERSION}-bookworm AS wheels
# The `local` extra brings llama.cpp, so `judge.provider: local` works with no key at all.
ARG EXTRAS=local
# A portable CPU build: the published image must run on any x86-64 runner with AVX2, not only
# on the machine that built it (llama.cpp defaults to -march=native). The same flags as
# scripts/setup.sh; AMX off because a build with it crashes on CPUs that lack it; no
# multimodal library (LLAVA_BUILD=OFF: mtmd, images and audio), which ground-gate never loads.
ARG CMAKE_ARGS="-DGGML_NATIVE=OFF -DGGML_AVX=ON -DGGML_AVX2=ON -DGGML_FMA=ON -DGGML_F16C=ON -DGGML_BMI2=ON -DGGML_AVX512=OFF -DGGML_AMX_TILE=OFF -DGGML_AMX_INT8=OFF -DLLAVA_BUILD=OFF"
ENV CMAKE_ARGS=${CMAKE_ARGS} \
    PIP_DISABLE_PIP_VERSION_CHECK=1
WORKDIR /build
COPY pyproject.toml ./
# pyproject.toml's build backend (setuptools run on a copy of the sources)
COPY build_backend ./build_backend
# An empty package with the real dependency list; setuptools comes along so that the action's
# image can install ground-gate with no index and no build isolation.
RUN mkdir ground_gate \
    && touch ground_gate/__init__.py README.md \
    && spec="."; if [ -n "${EXTRAS}" ]; then spec=".[${EXTRAS}]"; fi \
    && pip wheel --no-cache-dir --wheel-dir /wheels "${spec}" "setuptools>=68" \
    && rm /wheels/ground_gate-*.whl

# --- 2. the runtime -------------------------------------------------------------------------
FROM python:${PYTHON_VERSION}-slim-bookworm
ENV PYTHONDONTWRITEBYTECODE=1 \
    PYTHONUNBUFFERED=1 \
    PIP_DISABLE_PIP_VERSION_CHECK=1
# llama.cpp's CPU backend links the OpenMP runtime, which the slim image does not have.
# apt's package caches go too (77 MB where the base lacks Debian's docker-clean hook).
RUN apt-get update \
    && apt-get install -y --no-install-recommends libgomp1=12.* \
    && rm -rf /var/lib/apt/lists/* /var/cache/apt/*.bin
RUN --mount=type=bind,from=wheels,source=/wheels,target=/wheels \
    pip install --no-cache-dir --no-index /wheels/*.whl
# Fail the build, not a user's run, when a module cannot load: llama.cpp's shared library and
# its server included.
RUN python -c "import llama_cpp, llama_cpp.server.app, openai, yaml, click, nltk, tabulate, jsonschema, punkt.data.english, jinja2, jmespath, httpx" \
    && python -m pip check
