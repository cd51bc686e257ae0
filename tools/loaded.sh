#!/bin/sh
# Runs a command beside CPU burners, as on a loaded machine: the suite must hold there too.
#
#   tools/loaded.sh COMMAND...
#
# Starts BURNERS_PER_CORE (default 2) busy loops per core, each one bounded by
# BURN_SECONDS (default 3600), runs COMMAND, and kills the burners when it ends (or is
# interrupted). Exits with COMMAND's status.
set -u
per_core=${BURNERS_PER_CORE:-2}
seconds=${BURN_SECONDS:-3600}
count=$(($(nproc) * per_core))
pids=""
stop() {
	# shellcheck disable=SC2086  # the ids are words
	[ -n "$pids" ] && kill $pids 2>/dev/null
	pids=""
}
trap stop EXIT
trap 'stop; exit 130' INT
trap 'stop; exit 143' TERM
i=0
while [ "$i" -lt "$count" ]; do
	timeout "$seconds" sh -c 'while :; do :; done' &
	pids="$pids $!"
	i=$((i + 1))
done
echo "tools/loaded.sh: $count CPU burners beside: $*" >&2
"$@"
