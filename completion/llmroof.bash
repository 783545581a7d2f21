# bash completion for llmroof: commands, options (read from each command's --help), catalog
# ids (read from `llmroof list`, so LLMROOF_DATA's catalog), dtypes, formats and file arguments.
_llmroof_ids()
{
    # $1 = gpus|models|engines; ids, plus aliases for GPUs (last CSV column, space-separated)
    local line
    llmroof list "$1" --format csv 2>/dev/null | tail -n +2 | while IFS= read -r line; do
        line=${line%$'\r'}
        printf '%s\n' "${line%%,*}"
        if [[ $1 == gpus ]]; then
            local al=${line##*,}
            [[ -n $al ]] && printf '%s\n' $al
        fi
    done
}

_llmroof_list_item()
{
    # complete the last item of a comma-separated list from the words in $1 (and "all" if $2)
    local prefix="" last=$cur
    if [[ $cur == *,* ]]; then
        prefix=${cur%,*},
        last=${cur##*,}
    fi
    local words=$1
    [[ -n ${2:-} && -z $prefix ]] && words="all $words"
    COMPREPLY=($(compgen -P "$prefix" -W "$words" -- "$last"))
    compopt -o nospace 2>/dev/null
}

_llmroof()
{
    local cur=${COMP_WORDS[COMP_CWORD]} prev=${COMP_WORDS[COMP_CWORD-1]}
    local cmds="list show import-hf estimate memory report roofline simulate plan validate calibrate sweep check serve help"
    local cmd="" i
    for ((i = 1; i < COMP_CWORD; i++)); do
        case " $cmds " in *" ${COMP_WORDS[i]} "*) cmd=${COMP_WORDS[i]}; break ;; esac
    done
    COMPREPLY=()
    case $prev in
        -m|--model) COMPREPLY=($(compgen -W "$(_llmroof_ids models)" -- "$cur")); return ;;
        -g|--gpu) COMPREPLY=($(compgen -W "$(_llmroof_ids gpus)" -- "$cur")); return ;;
        --models) _llmroof_list_item "$(_llmroof_ids models)" all; return ;;
        --gpus) _llmroof_list_item "$(_llmroof_ids gpus)" $([[ $cmd == sweep || $cmd == plan || $cmd == report ]] && echo all); return ;;
        --weight-dtype|--kv-dtype|--act-dtype) _llmroof_list_item "fp32 tf32 fp16 bf16 fp8 int8 int4 fp4"; return ;;
        --state-dtype) COMPREPLY=($(compgen -W "fp32 fp16 bf16 fp8" -- "$cur")); return ;;
        --slo-percentile) COMPREPLY=($(compgen -W "p50 p90 p95 p99" -- "$cur")); return ;;
        -e|--engine) COMPREPLY=($(compgen -W "$(_llmroof_ids engines)" -- "$cur")); return ;;
        --admission) COMPREPLY=($(compgen -W "optimistic no-evict reserve wait" -- "$cur")); return ;;
        --by) COMPREPLY=($(compgen -W "metric gpu source model" -- "$cur")); return ;;
        --cv) COMPREPLY=($(compgen -W "source $([[ $cmd == calibrate ]] || echo gpu)" -- "$cur")); return ;;
        --format)
            # the command's own formats, from its --help ("output format: csv or jsonl (default
            # csv)"): sweep takes only csv and jsonl, import-hf only json; before a command, all
            local fmts="table md csv json html jsonl"
            if [[ -n $cmd ]]; then
                fmts=$(llmroof "$cmd" --help 2>/dev/null |
                    sed -n 's/^ *--format FMT *output format: \(.*\) (default.*/\1/p' | sed 's/,//g; s/ or / /')
            fi
            COMPREPLY=($(compgen -W "$fmts" -- "$cur")); return ;;
        --table) COMPREPLY=($(compgen -W "$(llmroof "$cmd" --help 2>/dev/null | sed -n 's/.*instead of the first: //p' | tr -d ',')" -- "$cur")); return ;;
        --gpus-file|--models-file|--spec-draft-config|--svg|--trace|--requests-out|--trace-out|--map|--out|--uncertainty-out|--fit-gpus|--fit-engines|--serving|--serving-map) COMPREPLY=($(compgen -f -- "$cur")); return ;;
        --ops) # validate's --ops takes a file; estimate's and report's is a flag
            if [[ $cmd == validate ]]; then COMPREPLY=($(compgen -f -- "$cur")); return; fi ;;
        --workload|-w)
            if [[ $cur == csv:* ]]; then # csv:FILE: the file after the prefix
                COMPREPLY=($(compgen -P csv: -f -- "${cur#csv:}")); return
            fi
            COMPREPLY=($(compgen -W "chat docqa code openorca sharegpt fixed: random: lognormal: csv:" -- "$cur")); compopt -o nospace 2>/dev/null; return ;;
        --scenario) COMPREPLY=($(compgen -W "offline server" -- "$cur")); return ;;
        --router) COMPREPLY=($(compgen -W "round-robin least-loaded prefix-affinity" -- "$cur")); return ;;
        --spec) COMPREPLY=($(compgen -W "eagle eagle3 mtp medusa draft:" -- "$cur")); compopt -o nospace 2>/dev/null; return ;;
        --kv-link) COMPREPLY=($(compgen -W "nvlink node net ib pcie" -- "$cur")); return ;;
        --svg-dir|--web|--data) COMPREPLY=($(compgen -d -- "$cur")); return ;;
    esac
    if [[ -z $cmd ]]; then
        COMPREPLY=($(compgen -W "$cmds --help --version --format --gpus-file --models-file" -- "$cur"))
        return
    fi
    if [[ $cur == -* ]]; then
        # the options of the command's option list (an indented "-x, --name" or "--name" line),
        # not every --word its help text mentions
        COMPREPLY=($(compgen -W "$(llmroof "$cmd" --help 2>/dev/null |
            sed -n 's/^ *\(-[A-Za-z0-9], \)\{0,1\}\(--[a-z0-9][a-z0-9-]*\).*/\2/p' | sort -u)" -- "$cur"))
        return
    fi
    case $cmd in
        list) COMPREPLY=($(compgen -W "gpus models engines" -- "$cur")) ;;
        show)
            case $prev in
                gpu) COMPREPLY=($(compgen -W "$(_llmroof_ids gpus)" -- "$cur")) ;;
                model) COMPREPLY=($(compgen -W "$(_llmroof_ids models)" -- "$cur")) ;;
                engine) COMPREPLY=($(compgen -W "$(_llmroof_ids engines)" -- "$cur")) ;;
                *) COMPREPLY=($(compgen -W "gpu model engine" -- "$cur")) ;;
            esac ;;
        import-hf|check|validate|calibrate) COMPREPLY=($(compgen -f -- "$cur")) ;;
        help) [[ $prev == help ]] && COMPREPLY=($(compgen -W "${cmds% help}" -- "$cur")) ;;
    esac
}
complete -F _llmroof llmroof
