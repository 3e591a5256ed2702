# SPDX-License-Identifier: (GPL-2.0-only OR BSD-2-Clause)
# bash completion for ldlat-hist, ldlat-top, ldlat-stat and ldlat-c2c.  The options come
# from the tool's own --help (the command's, after a command word), so they
# are always the ones the installed binary takes.

_ldlat_help()
{
	ARGP_HELP_FMT=rmargin=1000 "$@" --help 2>/dev/null
}

_ldlat()
{
	local cur prev words cword tool word mode="" i
	_init_completion -s || return
	tool=${words[0]}

	# after --, a command and its arguments
	for ((i = 1; i < cword; i++)); do
		if [[ ${words[i]} == -- ]]; then
			_command_offset $((i + 1))
			return
		fi
	done
	# the command word (show, report, ...), where the tool has commands
	local commands
	local help flags
	help=$(_ldlat_help "$tool")
	commands=$(sed -n '/^Commands (/,/^$/s/^  \([a-z-]*\) .*/\1/p' <<<"$help" | tr '\n' ' ')
	# the flags that choose a command (--show DIR, --input FILE, --plan)
	flags=$(sed -n '/^Commands (/,/^$/s/.*(or \(--[a-z-]*\).*/\1/p' <<<"$help" | tr '\n' ' ')
	if ((cword > 1)) && [[ " $commands " == *" ${words[1]} "* ]]; then
		mode=${words[1]}
	fi

	case $prev in
	--source)
		COMPREPLY=($(compgen -W 'auto ldlat page-faults' -- "$cur"))
		return
		;;
	-s | --class)
		local classes
		classes=$(_ldlat_help "$tool" $mode | tr -d '\n' |
			sed -n 's/.*(classes: \([^;]*\); groups: \([^)]*\)).*/\1 \2/p')
		local prefix=""
		[[ $cur == *,* ]] && prefix=${cur%,*},
		COMPREPLY=($(compgen -P "$prefix" -W "$classes" -- "${cur##*,}"))
		compopt -o nospace
		return
		;;
	-p | --pid)
		local pids
		pids=$(cd /proc && compgen -G '[0-9]*')
		COMPREPLY=($(compgen -W "$pids" -- "$cur"))
		return
		;;
	-G | --cgroup)
		local mnt
		mnt=$(awk '$3 == "cgroup2" { print $2; exit }' /proc/self/mounts)
		[[ -n $mnt ]] || return
		COMPREPLY=($(cd "$mnt" && compgen -d -- "${cur#/}"))
		[[ $cur == /* ]] && COMPREPLY=("${COMPREPLY[@]/#//}")
		compopt -o nospace -o filenames
		return
		;;
	--format)
		COMPREPLY=($(compgen -W 'text json openmetrics' -- "$cur"))
		return
		;;
	--op)
		COMPREPLY=($(compgen -W 'load store pfetch exec any' -- "$cur"))
		return
		;;
	-a | --addr)
		COMPREPLY=($(compgen -W "'[heap]' '[stack]'" -- "$cur"))
		return
		;;
	--by)
		local keys
		# the option's help, its continuation lines too, up to the next option
		keys=$(_ldlat_help "$tool" $mode | sed -n '/^ *--by=/,/^ *-/p' | sed '1!{/^ *-/d}' |
			grep -o '\b[a-z]\+\b' |
			grep -xE 'class|range|both|none|ip|data|pid|tid|cpu|node|cgroup|region' | sort -u)
		COMPREPLY=($(compgen -W "$keys" -- "$cur"))
		return
		;;
	--config | --input | --output | -o)
		_filedir
		return
		;;
	--pin | --show | --unpin)
		_filedir -d
		return
		;;
	-e | --event | -L | --ldlat | -c | --period | -F | --freq | -C | --cpu | -d | --duration | \
		-i | --interval | --min-lat | --max-lat | --linear | --rows | -n | --entries)
		return
		;;
	esac
	if ((cword == 1)) && [[ $cur != -* ]] && [[ -n $commands ]]; then
		COMPREPLY=($(compgen -W "$commands" -- "$cur"))
		return
	fi
	if [[ $mode == show || $mode == unpin ]] && ((cword == 2)) && [[ $cur != -* ]]; then
		_filedir -d
		return
	fi
	if [[ $mode == report ]] && ((cword == 2)) && [[ $cur != -* ]]; then
		_filedir
		return
	fi
	local opts
	opts=$(_ldlat_help "$tool" $mode | grep -oE '^ +(-[a-zA-Z?], )?--[a-z-]+(\[?=)?' |
		sed -E 's/^ +(-[a-zA-Z?], )?//; s/\[?=$/=/')
	[[ -z $mode ]] && opts="$opts $flags"
	COMPREPLY=($(compgen -W "$opts" -- "$cur"))
	[[ ${COMPREPLY-} == *= ]] && compopt -o nospace
}
complete -F _ldlat ldlat-hist ldlat-top ldlat-stat ldlat-c2c
