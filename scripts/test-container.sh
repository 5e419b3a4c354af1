#!/usr/bin/env bash
# Build the action's images from this checkout and test them as GitHub's runner runs them:
# docker/base.Dockerfile (dependencies, llama.cpp compiled), then ./Dockerfile on top of it
# (the action's image, which compiles nothing), then tests/container/ against the images.
# Exits 0 with "skipped" only when no Docker daemon is reachable (or, with --if-built, no base
# image is built for this checkout's dependencies); any other failure fails.
#   --if-built                  the fast path for every test run (scripts/test.sh): run only when
#                               the base image for these dependencies is already built, tagged
#                               ground-gate-base:<python3 docker/base_tag.py>, so that nothing
#                               compiles (the action's image builds in seconds on top of it)
#   TEST_CONTAINER_TIMES=FILE   append build times (seconds) as JSON lines to FILE
set -euo pipefail
cd "$(dirname "$0")/.."

if_built=0
case "${1:-}" in
  "") ;;
  --if-built) if_built=1 ;;
  *) echo "usage: scripts/test-container.sh [--if-built]" >&2; exit 2 ;;
esac

if ! docker info >/dev/null 2>&1; then
  echo "test-container: skipped: no Docker daemon is reachable (on a development machine: bash ../shared/docker/setup.sh)"
  exit 0
fi

base=ground-gate-base:test
image=ground-gate:test
# the base built for exactly these dependencies (docker/base.Dockerfile, pyproject.toml)
built_base=ground-gate-base:$(python3 docker/base_tag.py)
times=${TEST_CONTAINER_TIMES:-}

if [ "$if_built" = 1 ] && ! docker image inspect "$built_base" >/dev/null 2>&1; then
  echo "test-container: skipped: no $built_base built yet (llama.cpp compiles in it, 5-14 minutes on 2 cores: run scripts/test-container.sh once)"
  exit 0
fi

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
# docker/base.Dockerfile (with --if-built, the one already built from it: its tag is the
# digest of what it is built from), the action's image on top of it.
if [ "$if_built" = 1 ]; then
  base=$built_base
  echo "test-container: the base image $base is built already" >&2
else
  build base -f docker/base.Dockerfile -t "$base" -t "$built_base" .
fi
build action --build-arg "BASE_IMAGE=$base" -t "$image" .
docker image ls --format '{{.Repository}}:{{.Tag}} {{.Size}}' "ground-gate*" >&2

# The test tools and the model the local-judge test mounts, as actions/cache would restore it.
scripts/setup.sh dev
model=${GROUND_GATE_CONTAINER_MODEL:-qwen2.5-coder-0.5b}
.venv/bin/ground-gate models pull "$model" >/dev/null
GROUND_GATE_IMAGE=$image GROUND_GATE_CONTAINER_MODEL=$model \
  .venv/bin/pytest -q -p no:cacheprovider -s tests/container
