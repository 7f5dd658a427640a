#!/bin/sh
# pkgconfig_run.sh PKG_CONFIG_DIR SYMRUN SOURCE [CFLAGS]: build SOURCE as
# the README says, `cc prog.c $(pkg-config --cflags --libs symheap)`, with
# PKG_CONFIG_PATH=PKG_CONFIG_DIR (a build tree's meson-uninstalled/, or an
# installation's lib/.../pkgconfig), and run it on 2 PEs under SYMRUN,
# without LD_LIBRARY_PATH: the flags must carry the library's location.
set -eu
pcdir=$1 symrun=$2 src=$3 extra=${4-}
dir=$(mktemp -d)
trap 'rm -rf "$dir"' EXIT
unset LD_LIBRARY_PATH
export PKG_CONFIG_PATH="$pcdir"
flags=$(pkg-config --cflags --libs symheap)
echo "cc $src $flags"
# shellcheck disable=SC2086
${CC:-cc} $extra "$src" -o "$dir/prog" $flags
"$symrun" -n 2 "$dir/prog"
