# The ground-gate GitHub Action's image (action.yml: runs.using docker, image Dockerfile).
# It compiles nothing and downloads nothing: every dependency, llama.cpp built, comes with the
# base image (docker/base.Dockerfile, published by .github/workflows/base-image.yml), and
# ground-gate itself is pure Python, installed here with no index. GitHub builds this file at
# the start of each job in seconds; .github/workflows/release.yml also publishes it prebuilt.
# A fork or an air-gapped runner builds the base itself and passes it in:
#   docker build -f docker/base.Dockerfile -t ground-gate-base .
#   docker build --build-arg BASE_IMAGE=ground-gate-base -t ground-gate .
# No secret is ever passed to the build: keys and tokens reach the container at run time only.
ARG BASE_IMAGE=ghcr.io/ground-gate/ground-gate-base:deps-1ca6ef216482
FROM ${BASE_IMAGE}
COPY pyproject.toml README.md /tmp/ground-gate/
COPY ground_gate /tmp/ground-gate/ground_gate
# pyproject.toml's build backend: setuptools (in the base), run on a copy of the sources
COPY build_backend /tmp/ground-gate/build_backend
# --no-index and --no-deps: nothing is fetched; pip check fails the build when pyproject.toml
# asks for a dependency the base does not have (rebuild the base: see docker/base_tag.py).
RUN pip install --no-cache-dir --no-index --no-deps --no-build-isolation /tmp/ground-gate \
    && rm -rf /tmp/ground-gate \
    && python -m pip check
# The build fails, not a user's run, when something the action needs cannot load offline:
# every ground-gate module, llama.cpp's library and server, the Punkt sentence splitter.
RUN python -m ground_gate.selfcheck
# Where the local judge's model is looked for and saved: the workspace, the one place that
# actions/cache can restore before the run and save after it (see docs/github-action.md).
ENV GROUND_GATE_MODEL_DIR=/github/workspace/.ground-gate/models
# Docker actions run as the default user, root: GitHub's rule, so no USER instruction, and
# no WORKDIR either (the runner starts the container in /github/workspace).
# https://docs.github.com/en/actions/sharing-automations/creating-actions/dockerfile-support-for-github-actions
ENTRYPOINT ["ground-gate", "action"]
