#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# Build the sroce KUnit/debug kernel (Debian linux-source-6.1 + kernel.config)
# and sroce.ko against it, with its KUnit suites (CONFIG_SROCE_KUNIT_TEST=m).
#
#   kernel.sh build    kernel (cached) + module, published in build/kunit/
#   kernel.sh kernel   only the kernel (cached), published in build/kunit/
#   kernel.sh module   only the module; the kernel must already be built
#   kernel.sh tree     print the path of the cached kernel build tree
#
# The kernel is built once per (config fragment, source tarball, compiler) in
# $SROCE_CACHE/kunit/<key>/, outside the repo, so `make clean` and fresh
# checkouts do not pay the ~5 minute build again. The source is extracted once
# per tarball into $SROCE_CACHE/kunit/src-<tarball key>/ and built with O=.
#
# Outputs (the VM harness relies on these names):
#   build/kunit/bzImage, kernel.release, config, System.map,
#   modules.builtin, modules.builtin.modinfo, modroot/lib/modules/<release>/
#   (rdma_rxe.ko, depmod'ed), tree -> the cached build tree,
#   module/sroce.ko
#
# Environment: SROCE_CACHE (default /var/cache/sroce), SROCE_JOBS (default
# nproc + 1), SROCE_LINUX_SOURCE (the tarball), SROCE_MODULE_SRC (build the
# module from this directory instead of the repo: for proving the pipeline
# with a scratch module).
set -euo pipefail

TOP=$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)
FRAGMENT=$TOP/tests/kunit/kernel.config
TARBALL=${SROCE_LINUX_SOURCE:-/usr/src/linux-source-6.1.tar.xz}
CACHE=${SROCE_CACHE:-/var/cache/sroce}/kunit
OUT=$TOP/build/kunit
SROCE_DIR=drivers/infiniband/sw/sroce
JOBS=${SROCE_JOBS:-$(($(nproc) + 1))}

log() { echo "kunit-kernel: $*" >&2; }
die() { log "error: $*"; exit 1; }

short_hash() { sha256sum | cut -c1-16; }

# The tarball is identified by name, size and mtime: a package upgrade changes
# all three, and hashing 140 MB on every run would cost more than it buys.
tarball_key() {
	[ -r "$TARBALL" ] || die "$TARBALL missing (apt-get install linux-source-6.1)"
	stat -c '%n %s %Y' "$TARBALL" | short_hash
}

# Everything that changes the kernel binary: the fragment, the source and the
# compiler (modules must be built with the kernel's compiler).
kernel_key() {
	{
		cat "$FRAGMENT"
		tarball_key
		gcc --version | head -n 1
	} | short_hash
}

# Extract the tarball once per version; a partial extraction has no stamp and
# is redone.
source_dir() {
	local dir

	dir=$CACHE/src-$(tarball_key)
	if [ ! -e "$dir/.extracted" ]; then
		log "extracting $TARBALL"
		rm -rf "$dir"
		mkdir -p "$dir"
		tar -xJf "$TARBALL" -C "$dir"
		touch "$dir/.extracted"
	fi
	find "$dir" -mindepth 1 -maxdepth 1 -type d -name 'linux-source-*' | head -n 1
}

# Print the fragment's lines that the final .config does not honour.
unmet_options() {
	local config=$1 line name

	while IFS= read -r line; do
		case $line in
		CONFIG_*=*)
			grep -qxF -- "$line" "$config" || echo "  wanted $line, got: $(
				grep -E "^(# )?${line%%=*}[= ]" "$config" || echo absent)"
			;;
		"# CONFIG_"*" is not set")
			name=${line#\# }
			name=${name%% *}
			! grep -q "^$name=" "$config" || echo "  wanted $name unset, got: $(
				grep "^$name=" "$config")"
			;;
		esac
	done < "$FRAGMENT"
}

configure() {
	local src=$1 tree=$2 unmet

	cp "$FRAGMENT" "$tree/.config"
	make -s -C "$src" O="$tree" olddefconfig > "$tree/configure.log" 2>&1 ||
		die "olddefconfig failed, see $tree/configure.log"
	unmet=$(unmet_options "$tree/.config")
	[ -z "$unmet" ] || die "kernel.config options dropped by olddefconfig (unmet dependencies?):
$unmet"
}

compile() {
	local src=$1 tree=$2 start=$SECONDS

	log "building kernel in $tree with -j$JOBS (log: $tree/build.log)"
	if ! make -C "$src" O="$tree" -j"$JOBS" all > "$tree/build.log" 2>&1; then
		tail -n 30 "$tree/build.log" >&2
		die "kernel build failed, see $tree/build.log"
	fi
	log "kernel built in $((SECONDS - start)) s"
}

# Build the kernel for the current key unless a finished build is cached.
# Concurrent callers (make -j check) wait on the lock instead of racing.
build_kernel() {
	local tree src

	mkdir -p "$CACHE"
	tree=$CACHE/$(kernel_key)
	exec 9> "$CACHE/.lock"
	flock 9
	if [ ! -e "$tree/.sroce-built" ]; then
		src=$(source_dir)
		[ -n "$src" ] || die "no linux-source-* directory in $TARBALL"
		rm -rf "$tree"
		mkdir -p "$tree"
		configure "$src" "$tree"
		compile "$src" "$tree"
		touch "$tree/.sroce-built"
	fi
	flock -u 9
	echo "$tree"
}

publish_kernel() {
	local tree=$1 release

	release=$(cat "$tree/include/config/kernel.release")
	mkdir -p "$OUT"
	cp "$tree/arch/x86/boot/bzImage" "$tree/System.map" \
		"$tree/modules.builtin" "$tree/modules.builtin.modinfo" "$OUT/"
	cp "$tree/.config" "$OUT/config"
	echo "$release" > "$OUT/kernel.release"
	ln -sfn "$tree" "$OUT/tree"
	rm -rf "$OUT/modroot"
	make -s -C "$tree" INSTALL_MOD_PATH="$OUT/modroot" modules_install > /dev/null
	log "kernel $release ready in $OUT"
}

# Copy the module sources the way the top-level Makefile does, into a fresh
# directory so files deleted from the repo do not linger in the build.
stage_module_sources() {
	local dest=$1

	rm -rf "$dest"
	mkdir -p "$dest"
	if [ -n "${SROCE_MODULE_SRC:-}" ]; then
		cp -a "$SROCE_MODULE_SRC/." "$dest/"
		return
	fi
	[ -e "$TOP/Kbuild" ] || die "no Kbuild in $TOP: the module sources are not there yet"
	cp -a "$TOP/Kbuild" "$dest/"
	[ ! -d "$TOP/drivers" ] || cp -a "$TOP/drivers" "$dest/"
	[ ! -d "$TOP/include" ] || cp -a "$TOP/include" "$dest/"
}

build_module() {
	local tree=$1 dest=$OUT/module warned

	[ -e "$tree/.sroce-built" ] || die "kernel not built yet: run '$0 kernel'"
	stage_module_sources "$dest"
	log "building module with its KUnit suites against $(cat "$tree/include/config/kernel.release")"
	# The suites are linked in only on request (the driver's Kbuild):
	# stock-kernel builds (make module) carry none of them.
	if ! make -C "$tree" M="$dest" W=1 CONFIG_SROCE_KUNIT_TEST=m modules > "$OUT/module.log" 2>&1; then
		cat "$OUT/module.log" >&2
		die "module build failed: $(grep -m 1 -E 'error:|Error ' "$OUT/module.log" || true)"
	fi
	grep -E 'warning:|error:' "$OUT/module.log" >&2 || true
	# Everything compiled under $dest is ours (module and KUnit suites):
	# a warning there fails the build like an error (make check's rule).
	warned=$(grep -F "$dest/" "$OUT/module.log" | grep -m 1 -E ':[0-9]+(:[0-9]+)?: warning:') &&
		die "module build warned: ${warned#"$dest"/}"
	# Kbuild leaves it in the driver directory; run.sh and vm-run load
	# module/sroce.ko. A scratch module (SROCE_MODULE_SRC) may be there already.
	[ ! -e "$dest/$SROCE_DIR/sroce.ko" ] || cp "$dest/$SROCE_DIR/sroce.ko" "$dest/sroce.ko"
	build_kmod "$tree" "$dest"
	log "module ready: $(find "$dest" -maxdepth 1 -name '*.ko' -printf '%f ')"
}

# The kernel-verbs test module, in module/kmod/ as the Makefile puts it in
# build/<kver>/kmod/ (tests/vm/tests/kverbs.sh loads it from beside sroce.ko).
build_kmod() {
	local tree=$1 dest=$2/kmod

	[ -z "${SROCE_MODULE_SRC:-}" ] && [ -e "$TOP/tests/kmod/Kbuild" ] || return 0
	mkdir -p "$dest"
	cp -a "$TOP/tests/kmod/Kbuild" "$TOP"/tests/kmod/*.c "$dest/"
	if ! make -C "$tree" M="$dest" W=1 modules > "$OUT/kmod.log" 2>&1 ||
	   grep -q -E ':[0-9]+(:[0-9]+)?: warning:' "$OUT/kmod.log"; then
		cat "$OUT/kmod.log" >&2
		die "test module build failed or warned"
	fi
}

# Two callers (make check and make check-debug, or two engineers) must not
# publish into build/kunit at the same time. run.sh takes this lock itself
# around build + use and tells us with SROCE_KUNIT_LOCKED.
lock_out() {
	[ -z "${SROCE_KUNIT_LOCKED:-}" ] || return 0
	mkdir -p "$OUT"
	exec 8> "$OUT/.lock"
	flock 8
}

main() {
	local tree

	[ "${1:-}" = tree ] || lock_out
	case ${1:-} in
	build)
		tree=$(build_kernel)
		publish_kernel "$tree"
		build_module "$tree"
		;;
	kernel)
		tree=$(build_kernel)
		publish_kernel "$tree"
		;;
	module)
		build_module "$CACHE/$(kernel_key)"
		;;
	tree)
		echo "$CACHE/$(kernel_key)"
		;;
	*)
		echo "usage: $0 build|kernel|module|tree" >&2
		exit 2
		;;
	esac
}

main "$@"
