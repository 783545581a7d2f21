estimate -m opt-13b -g a100-sxm4-80gb -e distserve -b 8 -p 512 -o 128
