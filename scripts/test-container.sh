#!/usr/bin/env bash
# Build the action's images from this checkout and test them as GitHub's runner runs them:
# docker/base.Dockerfile (dependencies, llama.cpp compiled), then ./Dockerfile on top of it
# (the action's image, which compiles nothing), then tests/container/ against the images.
# Exits 0 with "skipped" only when no Docker daemon is reachable; any other failure fails.
#   TEST_CONTAINER_TIMES=FILE   append build times (seconds) as JSON lines to FILE
set -euo pipefail
cd "$(dirname "$0")/.."

if ! docker info >/dev/null 2>&1; then
  echo "test-container: skipped: no Docker daemon is reachable (on a development machine: bash ../shared/docker/setup.sh)"
  exit 0
fi

base=ground-gate-base:test
image=ground-gate:test
times=${TEST_CONTAINER_TIMES:-}

build() {  # build NAME ARGS...: docker build, timed
  local name=$1 started elapsed
  shift
  started=$(date +%s.%N)
  echo "test-container: building $name" >&2
  docker build --progress=plain "$@" >"/tmp/test-container-build-$name.log" 2>&1 || {
    tail -n 60 "/tmp/test-container-build-$name.log" >&2
    echo "test-container: building $name failed (log above)" >&2
    exit 1
  }
  elapsed=$(python3 -c "import sys; print(round(float(sys.argv[2]) - float(sys.argv[1]), 1))" "$started" "$(date +%s.%N)")
  echo "test-container: built $name in ${elapsed} s" >&2
  [ -z "$times" ] || echo "{\"image\": \"$name\", \"build_seconds\": $elapsed}" >>"$times"
}

# The pull request's own images, never the published ones: the base from this checkout's
# docker/base.Dockerfile, the action's image on top of it.
build base -f docker/base.Dockerfile -t "$base" .
build action --build-arg "BASE_IMAGE=$base" -t "$image" .
docker image ls --format '{{.Repository}}:{{.Tag}} {{.Size}}' "ground-gate*" >&2

# The test tools and the model the local-judge test mounts, as actions/cache would restore it.
scripts/setup.sh dev
model=${GROUND_GATE_CONTAINER_MODEL:-qwen2.5-coder-0.5b}
.venv/bin/ground-gate models pull "$model" >/dev/null
GROUND_GATE_IMAGE=$image GROUND_GATE_CONTAINER_MODEL=$model \
  .venv/bin/pytest -q -p no:cacheprovider -s tests/container
