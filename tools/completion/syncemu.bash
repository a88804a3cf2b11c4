# SPDX-License-Identifier: BSD-3-Clause
# bash completion for syncemu: commands, each command's options and the scenario keys, all read
# from syncemu itself ('syncemu --help', 'syncemu COMMAND --help', 'syncemu scenario keys'), so
# they are always those of the syncemu on the PATH.

_syncemu_commands() {
	"$1" --help 2>/dev/null | awk '/^commands:/ { on = 1; next } on && /^  [a-z]/ { print $1 } on && /^$/ { exit }'
}

_syncemu_options() {
	"$1" "$2" --help 2>/dev/null | awk '/^options:/ { on = 1; next } on && /^$/ { exit }
		on && match($0, /^  +(-[A-Za-z], )?--[a-z][a-z0-9-]*/) { s = substr($0, 1, RLENGTH); sub(/.*--/, "--", s); print s }'
}

# the keys, as SECTION.KEY= (what --set takes)
_syncemu_keys() {
	"$1" scenario keys 2>/dev/null | awk 'NR > 1 && $1 ~ /^[a-z_]+\.[a-z_0-9]+$/ { print $1 "=" }'
}

_syncemu() {
	local cur=${COMP_WORDS[COMP_CWORD]} prev=${COMP_WORDS[COMP_CWORD - 1]}
	local se=${COMP_WORDS[0]} cmd="" i
	for ((i = 1; i < COMP_CWORD; i++)); do
		case ${COMP_WORDS[i]} in
		-*) ;;
		*) cmd=${COMP_WORDS[i]}; break ;;
		esac
	done
	COMPREPLY=()
	if [ -z "$cmd" ]; then
		COMPREPLY=($(compgen -W "$(_syncemu_commands "$se") --help --version" -- "$cur"))
		return 0
	fi
	case $prev in
	-s | --set | -k | --key)
		compopt -o nospace 2>/dev/null
		local k=$(_syncemu_keys "$se")
		[ "$prev" = -k ] || [ "$prev" = --key ] && k=${k//=/}
		COMPREPLY=($(compgen -W "$k" -- "$cur"))
		return 0
		;;
	-v | --variant)
		COMPREPLY=($(compgen -W "A B C E C\\' E\\' all" -- "$cur"))
		return 0
		;;
	-b | --budget)
		COMPREPLY=($(compgen -W "low high free all" -- "$cur"))
		return 0
		;;
	-t | --trace | -o | --out | --queue-csv | --csv | --plot | --steps-csv | --chart-js)
		COMPREPLY=($(compgen -f -- "$cur"))
		return 0
		;;
	esac
	if [[ $cur == -* ]]; then
		COMPREPLY=($(compgen -W "$(_syncemu_options "$se" "$cmd")" -- "$cur"))
		return 0
	fi
	case $cmd in
	scenario)
		[ "$prev" = scenario ] && COMPREPLY=($(compgen -W "check dump keys" -- "$cur")) && return 0
		;;
	report)
		COMPREPLY=($(compgen -f -X '!*.json' -- "$cur") $(compgen -d -- "$cur"))
		return 0
		;;
	validate)
		COMPREPLY=($(compgen -f -X '!*.@(pcap|pcapng)' -- "$cur") $(compgen -d -- "$cur"))
		return 0
		;;
	esac
	# a scenario file
	COMPREPLY=($(compgen -f -X '!*.ini' -- "$cur") $(compgen -d -- "$cur"))
}
complete -F _syncemu syncemu
