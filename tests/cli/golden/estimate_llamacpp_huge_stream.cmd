estimate -m llama-30b -g rtx-6000-ada -t 4 -e llama.cpp-2024-06 -b 1000000 -p 1000000000 -o 2 --format csv
