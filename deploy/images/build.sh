#!/usr/bin/env bash
# Builds Berth's sandbox images without a container registry: a root file
# system is assembled in a temp dir and imported with `docker import`.
#
#   build.sh test    [TAG]   FROM-scratch image with Debian's static busybox
#                            (default tag berth/test:latest; used by tests)
#   build.sh sandbox [TAG]   Debian bookworm minbase with python3, git, curl
#                            (default tag berth/sandbox:latest; the default image)
#
# A registry-based build of the same sandbox image is deploy/images/sandbox/Dockerfile.
set -euo pipefail

kind=${1:-sandbox}
tag=${2:-}
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT

need_pkg() { # need_pkg COMMAND PACKAGE: install from Debian when missing
  command -v "$1" >/dev/null 2>&1 && return 0
  echo "installing $2 from Debian's packages..." >&2
  apt-get update -qq && DEBIAN_FRONTEND=noninteractive apt-get install -y -qq "$2" >/dev/null
}

common_files() { # a root user, /workspace and /tmp every image needs
  mkdir -p "$1/workspace" "$1/tmp" "$1/etc" "$1/root"
  chmod 1777 "$1/tmp"
  [ -f "$1/etc/passwd" ] || echo 'root:x:0:0:root:/root:/bin/sh' >"$1/etc/passwd"
  [ -f "$1/etc/group" ] || echo 'root:x:0:' >"$1/etc/group"
}

labels=(--change 'LABEL io.berth.managed=true' --change 'WORKDIR /workspace')

case "$kind" in
test)
  tag=${tag:-berth/test:latest}
  # The static build: it runs FROM scratch, with no libc in the image.
  dpkg -s busybox-static >/dev/null 2>&1 || need_pkg /nonexistent busybox-static
  bb=/bin/busybox
  root="$work/rootfs"
  mkdir -p "$root/bin"
  cp "$bb" "$root/bin/busybox"
  for app in $("$root/bin/busybox" --list); do
    [ "$app" = busybox ] || ln -sf busybox "$root/bin/$app"
  done
  common_files "$root"
  tar -C "$root" -c . | docker import "${labels[@]}" \
    --change 'ENV PATH=/bin' --change 'LABEL io.berth.image=test' - "$tag" >/dev/null
  ;;
sandbox)
  tag=${tag:-berth/sandbox:latest}
  need_pkg debootstrap debootstrap
  root="$work/rootfs"
  echo "debootstrap bookworm (minbase + ca-certificates curl git python3 procps)..." >&2
  debootstrap --variant=minbase --include=ca-certificates,curl,git,python3,procps \
    bookworm "$root" http://deb.debian.org/debian >"$work/debootstrap.log" 2>&1 ||
    { tail -20 "$work/debootstrap.log" >&2; exit 1; }
  rm -rf "$root/var/cache/apt/archives/"*.deb "$root/var/lib/apt/lists/"*
  common_files "$root"
  tar -C "$root" --numeric-owner -c . | docker import "${labels[@]}" \
    --change 'ENV PATH=/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin' \
    --change 'ENV LANG=C.UTF-8' --change 'LABEL io.berth.image=sandbox' - "$tag" >/dev/null
  ;;
*)
  echo "usage: $0 test|sandbox [TAG]" >&2
  exit 2
  ;;
esac
echo "built $tag" >&2
