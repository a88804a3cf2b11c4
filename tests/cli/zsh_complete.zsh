# SPDX-License-Identifier: BSD-3-Clause
# What zsh's completion offers for a command line, as a person at the prompt gets it: an
# interactive zsh under zpty with FPATH_DIR first in fpath, PATH_DIR first in PATH, LINE typed
# and then TAB; prints the screen's text (escapes and all) once it holds WANT, or after 30 s.
#   zsh -f zsh_complete.zsh FPATH_DIR PATH_DIR LINE WANT
zmodload zsh/zpty || exit 77
zpty -b z zsh -f -i
zpty -w z "PS1='%% '; fpath=($1 \$fpath); autoload -U compinit; compinit -u -D; LISTMAX=0"
zpty -w z "PATH=$2:\$PATH"
zpty -w -n z "$3"$'\t'
# syncemu answers the completion's questions in tens of ms; 30 s is for a stalled host
local all= chunk
for (( i = 0; i < 300; i++ )); do
	while zpty -r -t z chunk; do all+=$chunk; done
	[[ $all == *"$4"* ]] && break
	sleep 0.1
done
print -r -- "$all"
zpty -d z
