simulate -m yi-34b-200k -g a100-pcie-80gb-nvl -t 2 -e sarathi-serve -w lognormal:1730:5696:415:834:8192 --rate 1 -n 64
