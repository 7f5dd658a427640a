#!/bin/sh
# warn_unused.sh SYMCC: a program that drops a sym_status_t (sym_init's)
# does not build under -Werror, the compiler naming the dropped result;
# with SYM_NO_WARN_UNUSED_RESULT defined it builds.
set -u
symcc=$1
dir=$(mktemp -d)
trap 'rm -rf "$dir"' EXIT
cat >"$dir/drop.c" <<'PROG'
#include <symheap.h>
int main(void)
{
    sym_init();
    return sym_finalize() == SYM_OK ? 0 : 1;
}
PROG
if "$symcc" -Werror "$dir/drop.c" -o "$dir/drop" 2>"$dir/err"; then
    echo "FAILED: a dropped sym_init() status built without a warning"
    exit 1
fi
grep -E "unused[-_]result|warn_unused_result" "$dir/err" || {
    echo "FAILED: the error does not name the unused result:"
    cat "$dir/err"
    exit 1
}
"$symcc" -Werror -DSYM_NO_WARN_UNUSED_RESULT "$dir/drop.c" -o "$dir/drop" || {
    echo "FAILED: SYM_NO_WARN_UNUSED_RESULT did not turn the warning off"
    exit 1
}
echo "ok: dropped status refused, SYM_NO_WARN_UNUSED_RESULT accepted"
