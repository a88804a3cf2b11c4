# SPDX-License-Identifier: BSD-3-Clause
# bash completion for syncemu: commands, each command's options and the scenario keys, all read
# from syncemu itself ('syncemu --help', 'syncemu COMMAND --help', 'syncemu scenario keys'), so
# they are always those of the syncemu being completed (on the PATH, or build/tools/syncemu in a
# build tree: '. tools/completion/syncemu.bash' there).

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

# the values a key of choices takes (its "allowed" column), as KEY=VALUE
_syncemu_values() {
	"$1" scenario keys --markdown 2>/dev/null | awk -F ' [|] ' -v k="$2" '
		{ key = $1; gsub(/[|` ]/, "", key) }
		key == k && ($2 == "choice" || $2 == "link preset" || $2 == "name list") {
			v = $4; sub(/^a comma list of /, "", v); n = split(v, a, /, /)
			for (i = 1; i <= n; i++) print k "=" a[i] }'
}

# syncemu lab's subcommands' options ('up options:' ... in its --help)
_syncemu_lab_options() {
	"$1" lab --help 2>/dev/null | awk -v s="$2 options:" '$0 == s { on = 1; next } on && /^$/ { exit }
		on && match($0, /^  +(-[A-Za-z]( [A-Z.=_]+)?, )?--[a-z][a-z0-9-]*/) { t = substr($0, 1, RLENGTH); sub(/.*--/, "--", t); print t }'
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
	# --set KEY=VALUE: the key's values. Readline splits the word at '=' (COMP_WORDBREAKS), so
	# the word and the option before it are read off the line itself
	local line=${COMP_LINE:0:COMP_POINT} word opt
	word=${line##*[[:space:]]}
	opt=${line%"$word"}
	opt=${opt%"${opt##*[![:space:]]}"}
	opt=${opt##*[[:space:]]}
	if [[ $word == *=* ]] && { [ "$opt" = -s ] || [ "$opt" = --set ]; }; then
		COMPREPLY=($(compgen -W "$(_syncemu_values "$se" "${word%%=*}")" -- "$word"))
		[[ $COMP_WORDBREAKS == *=* ]] && COMPREPLY=("${COMPREPLY[@]#*=}")
		return 0
	fi
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
	-c | --capture)
		[ "$cmd" = lab ] || [ "$cmd" = run ] || [ "$cmd" = sweep ] || [ "$cmd" = bridge ] || return 0
		compopt -o nospace 2>/dev/null
		local pre=${cur%${cur##*,}} v
		v=$(_syncemu_values "$se" trace.capture | sed 's/^trace.capture=//')
		COMPREPLY=($(compgen -P "$pre" -W "$v" -- "${cur##*,}"))
		return 0
		;;
	-H | --host)
		[ "$cmd" = lab ] && COMPREPLY=($(compgen -W "a1 b1 a2 b2 a3 b3 a4 b4" -- "$cur"))
		return 0
		;;
	-t | --trace | -o | --out | --queue-csv | --csv | --plot | --steps-csv | --chart-js | --tables)
		COMPREPLY=($(compgen -f -- "$cur"))
		return 0
		;;
	esac
	if [ "$cmd" = lab ]; then
		local sub=""
		for ((i = i + 1; i < COMP_CWORD; i++)); do
			case ${COMP_WORDS[i]} in
			up | exec | status | list | down) sub=${COMP_WORDS[i]}; break ;;
			esac
		done
		if [ -z "$sub" ]; then
			COMPREPLY=($(compgen -W "up exec status list down --help" -- "$cur"))
		elif [[ $cur == -* ]]; then
			COMPREPLY=($(compgen -W "$(_syncemu_lab_options "$se" "$sub")" -- "$cur"))
		elif [ "$sub" = up ]; then
			COMPREPLY=($(compgen -f -X '!*.ini' -- "$cur") $(compgen -d -- "$cur"))
		elif [ "$sub" = exec ]; then
			COMPREPLY=($(compgen -c -- "$cur"))
		fi
		return 0
	fi
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
complete -F _syncemu syncemu build/tools/syncemu ./build/tools/syncemu
