#!/usr/bin/env bash
# tools/call-loops: a loop between two files is found and named with the calls that close it,
# a chain is not one, and the product's own build has none (the layering rule "a step never
# calls its orchestrator", checked on every make test).
set -uo pipefail
. "$(dirname "$0")/../lib/tap.sh"
T=$(mktemp -d)
trap 'rm -rf "$T"' EXIT
O=${O:-$ROOT/build/default}

mkdir -p "$T/loop/lib" "$T/chain/lib"
cat > "$T/a.c" <<'C'
int b_step(void);
int a_run(void) { return b_step(); }
int a_helper(void) { return 1; }
C
cat > "$T/b.c" <<'C'
int a_helper(void);
int b_step(void) { return a_helper(); }
C
cat > "$T/c.c" <<'C'
int c_leaf(void) { return 2; }
C
cat > "$T/d.c" <<'C'
int c_leaf(void);
int d_top(void) { return c_leaf(); }
C
setup "the sample objects compile" bash -c "cc -c -o '$T/loop/lib/a.o' '$T/a.c' && cc -c -o '$T/loop/lib/b.o' '$T/b.c' &&
  cc -c -o '$T/chain/lib/c.o' '$T/c.c' && cc -c -o '$T/chain/lib/d.o' '$T/d.c'"

"$ROOT/tools/call-loops" "$T/loop" > "$T/out" 2>&1
check "a file calling back into its caller is a loop (exit 1)" test $? = 1
check "the loop names both files" grep -qx 'call loop: lib/a.c lib/b.c' "$T/out"
check "and the call that closes it" grep -qx '  lib/b.c -> lib/a.c: a_helper' "$T/out"
check "a chain of calls is no loop" "$ROOT/tools/call-loops" "$T/chain"
check "the product's build has no call loop" "$ROOT/tools/call-loops" "$O"
finish
