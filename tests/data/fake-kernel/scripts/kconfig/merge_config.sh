#!/bin/sh
# Stand-in for Linux's merge_config.sh -m -O DIR BASE FRAGMENT...: the last
# assignment of an option wins; the result goes to DIR/.config.
out=.
while [ $# -gt 0 ]; do
	case $1 in
	-m) shift ;;
	-O) out=$2; shift 2 ;;
	*) break ;;
	esac
done
cat "$@" | awk '
	/^CONFIG_[A-Za-z0-9_]+=/ { split($0, a, "="); name = a[1] }
	/^# CONFIG_[A-Za-z0-9_]+ is not set/ { name = $2 }
	/^CONFIG_|^# CONFIG_.* is not set/ {
		if (!(name in v)) order[++n] = name
		v[name] = $0
	}
	END { for (i = 1; i <= n; i++) print v[order[i]] }' >"$out/.config.merge"
mv "$out/.config.merge" "$out/.config"
