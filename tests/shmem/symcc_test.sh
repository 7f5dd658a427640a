#!/bin/sh
# symcc_test.sh SYMCC SYMRUN SOURCE INCDIR: compile SOURCE with the symcc
# wrapper alone (no other flags but the test's include directory), then
# run it on 2 PEs.
set -e
symcc=$1 symrun=$2 src=$3 inc=$4
dir=$(mktemp -d)
trap 'rm -rf "$dir"' EXIT
"$symcc" -I"$inc" -c "$src" -o "$dir/prog.o"
"$symcc" "$dir/prog.o" -o "$dir/prog"
"$symrun" -np 2 "$dir/prog"
