#!/bin/sh
# SPDX-License-Identifier: (GPL-2.0-only OR BSD-2-Clause)
#
# unit_exec.sh UNIT INSTANCE ETC start|stop - runs what systemd runs for one
# instance of a template unit, for a machine where systemd is not PID 1
# (check_fleet): %i replaced by INSTANCE, /etc/ldlat/ by ETC/, Environment=
# then EnvironmentFile= (which overrides it; a leading '-' makes the file
# optional), then ExecStartPre= and ExecStart= lines in order (start) or
# ExecStop= (stop), each as the shell splits it (the units quote as both
# agree), a leading '-' ignoring its failure.  Exits 1 at the first failure.
set -u
unit=$1 inst=$2 etc=$3 verb=$4
text=$(sed -e "s|%i|$inst|g" -e "s|/etc/ldlat/|$etc/|g" "$unit") || exit 1
eval "$(printf '%s\n' "$text" | sed -n 's/^Environment=\(.*\)$/export \1/p')"
for f in $(printf '%s\n' "$text" | sed -n 's/^EnvironmentFile=//p'); do
	optional=false
	case $f in -*) optional=true f=${f#-} ;; esac
	if [ -f "$f" ]; then
		set -a
		. "$f"
		set +a
	elif ! $optional; then
		echo "unit_exec: $unit: EnvironmentFile $f is missing" >&2
		exit 1
	fi
done
case $verb in
start) keys="ExecStartPre ExecStart" ;;
stop) keys="ExecStop" ;;
*)
	echo "unit_exec: start or stop, not '$verb'" >&2
	exit 2
	;;
esac
for k in $keys; do
	printf '%s\n' "$text" | sed -n "s/^$k=//p" >"${TMPDIR:-/tmp}/unit_exec.$$"
	while IFS= read -r line; do
		ignore=false
		case $line in -*) ignore=true line=${line#-} ;; esac
		eval "$line" </dev/null || $ignore || {
			rm -f "${TMPDIR:-/tmp}/unit_exec.$$"
			exit 1
		}
	done <"${TMPDIR:-/tmp}/unit_exec.$$"
	rm -f "${TMPDIR:-/tmp}/unit_exec.$$"
done
exit 0
