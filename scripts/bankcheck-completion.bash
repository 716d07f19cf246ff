# bash completion for bankcheck: subcommands, each subcommand's options, the values of
# --format, --arch, --color, --op and --width, and .cu/.ptx files for check and fix.
# Installed as share/bash-completion/completions/bankcheck; or: source this file.
# It needs nothing but bash (not the bash-completion package's helpers).

# The options of each subcommand (tests/install_test.sh checks them against --help).
_bankcheck_launch_opts="--kernel --launch --grid --block --smem --arg --blocks --arch --nvcc -I -D
  -p --threads --max-memory --nvcc-timeout --budget --ptx-level"
_bankcheck_check_opts="$_bankcheck_launch_opts --format -o --output --color --fail-on
  --no-progress -h --help"
_bankcheck_fix_opts="$_bankcheck_launch_opts --format -o --output --top --apply --apply-to
  --force --color --fail-on --no-progress -h --help"
_bankcheck_explain_opts="--op --width --addrs --type --decl --expr --block --set --active --arch
  --format -o --output -h --help"
_bankcheck_occupancy_opts="--arch --threads --regs --smem --dynamic-smem --carveout --format
  -h --help"
_bankcheck_run_opts="--backend --kernel --arch --format -o --output --color --fail-on --launches
  --repeats --threads --no-progress --ptx-level --nvcc -h --help"

# Architectures: the bank model's (check, fix, explain) and the occupancy calculator's.
_bankcheck_archs="sm_10 sm_11 sm_12 sm_13 sm_20 sm_21 sm_30 sm_32 sm_35 sm_37 sm_30-8byte
  sm_32-8byte sm_35-8byte sm_37-8byte sm_50 sm_52 sm_53 sm_60 sm_61 sm_62 sm_70 sm_72 sm_75
  sm_80 sm_86 sm_87 sm_89 sm_90 sm_90a sm_100 sm_100a sm_100f sm_101 sm_103 sm_110 sm_120
  sm_121"
_bankcheck_occupancy_archs="sm_70 sm_75 sm_80 sm_86 sm_87 sm_89 sm_90 sm_100 sm_103 sm_120
  sm_121"

# Files whose names end in one of the given extensions, and directories to go into.
_bankcheck_files() {
  local cur=$1
  shift
  local IFS=$'\n' f ext
  for f in $(compgen -f -- "$cur"); do
    if [[ -d $f ]]; then
      COMPREPLY+=("$f")  # -o filenames adds the slash
      continue
    fi
    for ext in "$@"; do
      [[ $f == *."$ext" ]] && COMPREPLY+=("$f") && break
    done
  done
}

_bankcheck() {
  local cur=${COMP_WORDS[COMP_CWORD]} prev=""
  ((COMP_CWORD > 0)) && prev=${COMP_WORDS[COMP_CWORD - 1]}
  COMPREPLY=()
  local IFS=$' \t\n'

  # The subcommand: the first word after bankcheck that is not an option.
  local sub="" i
  for ((i = 1; i < COMP_CWORD; i++)); do
    case ${COMP_WORDS[i]} in
      -*) ;;
      *) sub=${COMP_WORDS[i]}; break ;;
    esac
  done
  if [[ -z $sub ]]; then
    if [[ $cur == -* ]]; then
      COMPREPLY=($(compgen -W "--help --version" -- "$cur"))
    else
      COMPREPLY=($(compgen -W "run check fix explain occupancy" -- "$cur"))
    fi
    return 0
  fi

  # The value of the option before the cursor.
  case $prev in
    --format)
      case $sub in
        check | run) COMPREPLY=($(compgen -W "text json sarif html" -- "$cur")) ;;
        fix) COMPREPLY=($(compgen -W "text json sarif" -- "$cur")) ;;
        *) COMPREPLY=($(compgen -W "text json" -- "$cur")) ;;
      esac
      return 0
      ;;
    --arch)
      if [[ $sub == occupancy ]]; then
        COMPREPLY=($(compgen -W "$_bankcheck_occupancy_archs" -- "$cur"))
      else
        COMPREPLY=($(compgen -W "$_bankcheck_archs" -- "$cur"))
      fi
      return 0
      ;;
    --color) COMPREPLY=($(compgen -W "auto always never" -- "$cur")); return 0 ;;
    --op) COMPREPLY=($(compgen -W "ld st atom red cas" -- "$cur")); return 0 ;;
    --width) COMPREPLY=($(compgen -W "1 2 4 8 16" -- "$cur")); return 0 ;;
    --blocks | --launches) COMPREPLY=($(compgen -W "all" -- "$cur")); return 0 ;;
    --backend) COMPREPLY=($(compgen -W "auto emulator gpu" -- "$cur")); return 0 ;;
    --repeats) COMPREPLY=($(compgen -W "execute skip" -- "$cur")); return 0 ;;
    --fail-on) COMPREPLY=($(compgen -W "ways\>1 excess\>10%" -- "$cur")); return 0 ;;
    -o | --output | --apply-to | --nvcc)
      local IFS=$'\n'
      COMPREPLY=($(compgen -f -- "$cur"))
      return 0
      ;;
    -I | -p)
      local IFS=$'\n'
      COMPREPLY=($(compgen -d -- "$cur"))
      return 0
      ;;
    --kernel | --launch | --grid | --block | --smem | --arg | -D | --threads | --max-memory | \
      --nvcc-timeout | --budget | --top | --addrs | --type | --decl | --expr | --set | \
      --active | --regs | --dynamic-smem | --carveout)
      return 0  # a value the user types
      ;;
  esac

  local opts
  case $sub in
    check) opts=$_bankcheck_check_opts ;;
    fix) opts=$_bankcheck_fix_opts ;;
    explain) opts=$_bankcheck_explain_opts ;;
    occupancy) opts=$_bankcheck_occupancy_opts ;;
    run)
      # After the program's name, the words are the program's.
      local w
      for ((w = i + 1; w < COMP_CWORD; w++)); do
        [[ ${COMP_WORDS[w]} == -- || ${COMP_WORDS[w]} != -* ]] && return 0
      done
      opts=$_bankcheck_run_opts
      ;;
    *) return 0 ;;
  esac
  if [[ $cur == -* ]]; then
    COMPREPLY=($(compgen -W "$opts" -- "$cur"))
  elif [[ $sub == check || $sub == fix ]]; then
    _bankcheck_files "$cur" cu ptx PTX
  fi
  return 0
}

complete -o filenames -F _bankcheck bankcheck
