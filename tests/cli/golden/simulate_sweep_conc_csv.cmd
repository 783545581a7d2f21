simulate -m llama-2-7b -g l40s --workload fixed:512:256 --think 0 --requests 300 --sweep-concurrency 1,4,16,64 --format csv
