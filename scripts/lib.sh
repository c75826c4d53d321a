# Shared by scripts/test and scripts/quickstart: install what is missing, build.
# Sourced, not run.

ROOT="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"

# Debian packages the build needs, with a file each one provides (so that a machine
# that has everything installs nothing and never touches the network).
DEPENDENCIES=(
  "g++:/usr/bin/g++"
  "cmake:/usr/bin/cmake"
  "ninja-build:/usr/bin/ninja"
  "ccache:/usr/bin/ccache"
  "libboost-dev:/usr/include/boost/asio.hpp"
  "libboost-program-options-dev:/usr/include/boost/program_options.hpp"
  "protobuf-compiler:/usr/bin/protoc"
  "libprotobuf-dev:/usr/include/google/protobuf/message.h"
  "libspdlog-dev:/usr/include/spdlog/spdlog.h"
  "libfmt-dev:/usr/include/fmt/format.h"
  "libyaml-cpp-dev:/usr/include/yaml-cpp/yaml.h"
  "libgtest-dev:/usr/include/gtest/gtest.h"
  "libgmock-dev:/usr/include/gmock/gmock.h"
  "libbenchmark-dev:/usr/include/benchmark/benchmark.h"
  "jq:/usr/bin/jq"
  "libssl-dev:/usr/include/openssl/hmac.h"
  "zlib1g-dev:/usr/include/zlib.h"
  "util-linux:/usr/bin/unshare"
  # failover_netns_test: each namespace host reaches LSB_SHAREDIR through a FUSE mount.
  "bindfs:/usr/bin/bindfs"
  "fuse3:/usr/bin/fusermount3"
  # The fuzz build (tests/fuzz): clang and its libFuzzer + sanitizer runtimes.
  "clang-14:/usr/bin/clang++-14"
  "libclang-rt-14-dev:/usr/lib/llvm-14/lib/clang/14.0.6/lib/linux/libclang_rt.fuzzer-x86_64.a"
  # metrics_test: scrapes /metrics with curl and reads it with Prometheus' own parser.
  "curl:/usr/bin/curl"
  "python3-prometheus-client:/usr/lib/python3/dist-packages/prometheus_client/parser.py"
  # dashboard_test: the dashboard loaded in headless Chromium.
  "chromium:/usr/bin/chromium"
)

install_missing() {
  local missing=()
  for entry in "${DEPENDENCIES[@]}"; do
    [ -e "${entry#*:}" ] || missing+=("${entry%%:*}")
  done
  [ ${#missing[@]} -eq 0 ] && return 0
  echo "Installing: ${missing[*]}"
  local sudo=""
  [ "$(id -u)" -ne 0 ] && sudo="sudo"
  export DEBIAN_FRONTEND=noninteractive
  $sudo apt-get update -qq
  $sudo apt-get install -y -qq --no-install-recommends "${missing[@]}" >/dev/null
}

# build DIR [cmake args...]
build() {
  local dir="$1"
  shift
  cmake -S "$ROOT" -B "$dir" -G Ninja "$@" >/dev/null
  cmake --build "$dir" --parallel "$(nproc)"
}
