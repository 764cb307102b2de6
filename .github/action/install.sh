#!/usr/bin/env bash
# The install steps of the GitHub Action (action.yml), with actions/cache between them:
#
#   install.sh locate  Finds usicheck: USICHECK when set (an existing binary: nothing to
#                      install), else the release binary for this runner, verified against
#                      the release's sha256 file. Without one, writes what the build needs:
#                      cache-key, root and source.
#   install.sh build   `cargo install --locked --root BUILD_ROOT` from BUILD_SOURCE (locate's
#                      root and source), unless the cache restored BUILD_ROOT.
#
# Each writes usicheck=PATH to $GITHUB_OUTPUT once it has a binary.
#
# Which usicheck: INPUT_VERSION (a release tag, or any git ref to build) when given, else the
# action's own ref (ACTION_REF, e.g. the v1 of `uses: OWNER/usicheck@v1`) in the action's
# repository (ACTION_REPOSITORY). The action passes github.action_ref and
# github.action_repository through env: a composite action's run steps see them empty
# (actions/runner#2473). Without a version, a build uses the action's own checkout
# (ACTION_PATH): exactly the ref the workflow pinned, with no second download, and it works
# for `uses: ./` too, where no repository or ref is known.
set -euo pipefail

output() {
  echo "$1=$2"
  if [[ -n ${GITHUB_OUTPUT:-} ]]; then
    echo "$1=$2" >>"$GITHUB_OUTPUT"
  fi
}

die() {
  echo "::error title=usicheck action::$1" >&2
  exit 1
}

# macOS has shasum but no sha256sum.
if command -v sha256sum >/dev/null; then
  sha256=(sha256sum)
else
  sha256=(shasum -a 256)
fi

# The release asset's target triple for this runner (the names .github/workflows/release.yml
# uploads: usicheck-TARGET.tar.gz and usicheck-TARGET.sha256).
runner_target() {
  case "${RUNNER_OS:-}/${RUNNER_ARCH:-}" in
    Linux/X64) echo x86_64-unknown-linux-gnu ;;
    Linux/ARM64) echo aarch64-unknown-linux-gnu ;;
    macOS/X64) echo x86_64-apple-darwin ;;
    macOS/ARM64) echo aarch64-apple-darwin ;;
  esac
}

# Downloads and verifies the release binary of TAG for TARGET into DIR; fails (quietly, for
# the build to take over) when the release or its asset does not exist.
download() {
  local repo=$1 tag=$2 target=$3 dir=$4
  local base="https://github.com/$repo/releases/download/$tag"
  local archive="usicheck-$target.tar.gz" sums="usicheck-$target.sha256"
  mkdir -p "$dir"
  curl -fsSL --retry 3 -o "$dir/$archive" "$base/$archive" 2>/dev/null || return 1
  curl -fsSL --retry 3 -o "$dir/$sums" "$base/$sums" 2>/dev/null || return 1
  local expected actual
  expected=$(awk -v f="$archive" '$2 == f || $2 == "*" f { print $1 }' "$dir/$sums")
  actual=$("${sha256[@]}" "$dir/$archive" | awk '{ print $1 }')
  # A mismatch is an error, not a reason to build: the download was tampered with or broken.
  [[ -n $expected && $expected == "$actual" ]] ||
    die "$base/$archive: sha256 $actual, but $sums says '${expected:-nothing}'"
  tar -xzf "$dir/$archive" -C "$dir"
  [[ -x $dir/usicheck ]] || die "$base/$archive has no usicheck binary"
}

locate() {
  if [[ -n ${USICHECK:-} ]]; then
    [[ -x $USICHECK ]] || die "USICHECK=$USICHECK is not an executable file"
    output usicheck "$USICHECK"
    return
  fi
  if [[ ${RUNNER_OS:-} == Windows ]]; then
    die "usicheck drives engines through Unix process groups and signals: run this job on Linux or macOS (an engine built for Windows can be certified under WSL)"
  fi
  local repo=${ACTION_REPOSITORY:-} ref=${INPUT_VERSION:-${ACTION_REF:-}} target
  target=$(runner_target)
  local dir="${RUNNER_TEMP:-/tmp}/usicheck-release"
  if [[ -n $repo && -n $ref && -n $target ]] && download "$repo" "$ref" "$target" "$dir"; then
    output usicheck "$dir/usicheck"
    return
  fi
  echo "No release binary of usicheck ${ref:-(unknown ref)} for ${target:-this runner}: building it with cargo."
  local source
  if [[ -n ${INPUT_VERSION:-} ]]; then
    [[ -n $repo ]] || die "version: unknown repository to fetch $INPUT_VERSION from (github.action_repository is empty)"
    source="git https://github.com/$repo $INPUT_VERSION"
  else
    # The checkout's content names the build: a moved tag (v1) or branch gets a new key.
    [[ -n ${ACTION_PATH:-} ]] || die "ACTION_PATH (github.action_path) is not set"
    local digest
    digest=$(cd "$ACTION_PATH" && find . \( -path ./target -o -path ./.git \) -prune -o -type f -print0 |
      LC_ALL=C sort -z | xargs -0 "${sha256[@]}" | "${sha256[@]}" | cut -c1-16)
    source="path $digest"
  fi
  local key
  key="usicheck-${RUNNER_OS:-}-${RUNNER_ARCH:-}-$(echo "$source" | tr ' /' '--')"
  output cache-key "$key"
  output root "${RUNNER_TOOL_CACHE:-${RUNNER_TEMP:-/tmp}}/usicheck/$key"
  output source "$source"
}

build() {
  local bin="$BUILD_ROOT/bin/usicheck"
  if [[ ! -x $bin ]]; then
    command -v cargo >/dev/null ||
      die "no release binary and no cargo to build one: install a Rust toolchain first (e.g. dtolnay/rust-toolchain@stable)"
    local kind location ref
    read -r kind location ref <<<"$BUILD_SOURCE"
    if [[ $kind == git ]]; then
      # --rev takes a tag, a branch or a commit (cargo fetches the branches and tags for it).
      cargo install --locked --root "$BUILD_ROOT" --git "$location" --rev "$ref" usicheck
    else
      cargo install --locked --root "$BUILD_ROOT" --path "$ACTION_PATH"
    fi
  fi
  output usicheck "$bin"
}

case "${1:-}" in
  locate) locate ;;
  build) build ;;
  *) die "usage: install.sh locate|build" ;;
esac
