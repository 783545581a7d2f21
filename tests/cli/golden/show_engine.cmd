show engine vllm-0.6
